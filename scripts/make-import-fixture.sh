#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make-import-fixture.sh: make tests/data/import/, a recording saved on
# one kernel (KERNELS, default 6.1) that tests/32-import.sh imports on
# every kernel and checks against sbd-model: a recording that travels.
#
#   KERNELS=6.1   the kernel that records
#   SEED=41 NOPS=40   sbd-model's run
#
# Run again only to change the fixture; its README says how it was made.
. "$(dirname "$0")/lib.sh"
need_root
export KERNELS=${KERNELS:-6.1}
"$SBD_ROOT/scripts/install-deps.sh"
tier=$(kernel_tiers)
out=$SBD_OUT/import-fixture
vm_image "$tier" "$out" vm-import-fixture.sh "${SEED:-41}" "${NOPS:-40}"
"$SBD_ROOT/scripts/boot-vm.sh" "$tier" "$out/initramfs.img" "$out/console.log" ||
	die "the VM did not finish"
dest=$SBD_ROOT/tests/data/import
rm -rf "$dest.new"
mkdir -p "$dest.new"
tr -d '\r' < "$out/console.log" | awk -v d="$dest.new" '
	/^@@ file / { f = d "/" $3; next }
	/^@@ hex / { printf "%s", $3 > (f ".hex"); next }
	/^@@ end/ { close(f ".hex"); f = "" }'
for h in "$dest.new"/*.hex; do
	python3 -c 'import sys; sys.stdout.buffer.write(bytes.fromhex(open(sys.argv[1]).read().strip()))' "$h" \
		> "${h%.hex}" && rm "$h" || die "cannot decode $h"
done
for f in README trace points log-writes-points log-writes; do
	[ -s "$dest.new/$f" ] || die "$f is missing from the VM's output ($out/console.log)"
done
gzip -n -9 "$dest.new/log-writes"
echo "made with: KERNELS=$KERNELS SEED=${SEED:-41} NOPS=${NOPS:-40} scripts/make-import-fixture.sh at $(git -C "$SBD_ROOT" rev-parse --short HEAD)" >> "$dest.new/README"
rm -rf "$dest"
mv "$dest.new" "$dest"
ls -l "$dest"
