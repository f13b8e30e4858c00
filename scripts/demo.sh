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
grep -aq '^@@ demo RESULT: sbd works' "$out/console.log" || exit 1

# Then one application, as its users run it: SQLite in WAL mode with
# synchronous=NORMAL, in a full Debian root (scripts/run-apps.sh builds
# and caches it the first time).  Its documentation says a commit may
# be lost in a power cut; sbd-explore must find such a state, and its
# reproducer must fail again.  DEMO_APP=0 leaves it out.
[ "${DEMO_APP:-1}" = 1 ] || exit 0
case_dir=$SBD_ROOT/explore/cases/sqlite-wal-normal-durable
log "one application case, explore/cases/sqlite-wal-normal-durable, in a full Debian root (built and cached the first time: a few minutes)"
SBD_OUT=$out/app TESTS=10-corpus.sh CORPUS_CASES=sqlite-wal-normal-durable \
	"$SBD_ROOT/scripts/run-apps.sh" > "$out/app.log" 2>&1
app_rc=$?
# shellcheck source=/dev/null # the case's fields: sh assignments
. "$case_dir/case"
echo "$APP, $CONFIG. Its documentation ($REFERENCE):"
echo "  \"$PROMISE\""
echo "\$ explore/sbd-corpus --fs ext4 --quick sqlite-wal-normal-durable   # in the VM"
if [ $app_rc = 0 ] && grep -q '^ok .*/corpus/sqlite-wal-normal-durable/ext4$' "$out/app.log"; then
	grep -A1 '/corpus/sqlite-wal-normal-durable/ext4$' "$out/app.log" | sed -n 's/^    /  /p' | cut -c1-400
	echo "RESULT: the commit SQLite's documentation says may be lost was lost, at a state sbd-explore found and can show again"
else
	tail -n 15 "$out/app.log"
	die "the application case did not run as expected: $out/app.log"
fi
