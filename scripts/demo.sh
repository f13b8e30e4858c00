#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# demo.sh: build sbd, boot a VM, and show it at work (see tests/vm-demo.sh).
#   KERNEL=6.12 (default), 6.1 or 7.2;  NSECTORS=32768 HARDSECT_SIZE=4096
. "$(dirname "$0")/lib.sh"
need_root
export KERNELS=${KERNEL:-6.12}
tier=$(kernel_tiers)
out=$SBD_OUT/demo
"$SBD_ROOT/scripts/install-deps.sh"
log "fetching kernel $tier (cached after the first run), building sbd.ko, packing the VM"
vm_image "$tier" "$out" vm-demo.sh "${NSECTORS:-32768}" "${HARDSECT_SIZE:-4096}"
log "sbd.ko built against $(cat "$(kernel_dir "$tier")/release")"
log "booting the VM (software emulation, about two minutes)"
"$SBD_ROOT/scripts/boot-vm.sh" "$tier" "$out/initramfs.img" "$out/console.log" ||
	die "the VM did not finish; console in $out/console.log"
grep -a '^@@ demo' "$out/console.log" | sed 's/^@@ demo //; s/\r$//'
grep -aq '^@@ demo RESULT: sbd works' "$out/console.log"
