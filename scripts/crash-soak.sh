#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# crash-soak.sh: a longer crash-consistency soak than 22-powercut-fs.sh runs.
# Boots one kernel with sbd and a volatile write cache, and runs
# ITERATIONS power-cut rounds on ext4 and then on xfs (tests/vm-crashloop.sh),
# cycling through the policies none, all, random and torn.
#
#   KERNEL=6.12 (default), 6.1 or 7.2
#   ITERATIONS=20     rounds per filesystem (about 15-30 s each)
#   CUT_WITHIN=10     cut 1 to this many seconds (seeded) after the first
#                     file is durable; longer rounds record more files
#                     (22-powercut-fs.sh cuts within 3 s, for time)
#   SEED=N            the first round's seed (default: random, printed)
#
# Ends with "N passed, N failed" over every check of every round.
. "$(dirname "$0")/lib.sh"
need_root
export KERNELS=${KERNEL:-6.12}
tier=$(kernel_tiers)
ITERATIONS=${ITERATIONS:-20}
CUT_WITHIN=${CUT_WITHIN:-10}
case $CUT_WITHIN in
''|*[!0-9]*|0|1) die "CUT_WITHIN must be a whole number of seconds, 2 or more" ;;
esac
out=$SBD_OUT/crash-soak
"$SBD_ROOT/scripts/install-deps.sh"
vm_image "$tier" "$out" vm-crash-soak.sh "$ITERATIONS" "$CUT_WITHIN" ${SEED:+"$SEED"}
log "booting; $ITERATIONS rounds per filesystem; console in $out/console.log"
passed=0 failed=0
VM_TIMEOUT=${VM_TIMEOUT:-$((600 + ITERATIONS * 2 * (90 + CUT_WITHIN)))} \
	"$SBD_ROOT/scripts/boot-vm.sh" "$tier" "$out/initramfs.img" \
	"$out/console.log" || { failed=$((failed + 1)); echo "FAIL vm-finished"; }
while IFS= read -r line; do
	line=${line%$'\r'}
	case $line in
	"@@ ok "*)   passed=$((passed + 1)) ;;
	"@@ FAIL "*) failed=$((failed + 1)); echo "FAIL ${line#@@ FAIL }" ;;
	"@@ | "*)    echo "    ${line#@@ | }" ;;
	esac
done < <(grep -a '^@@ ' "$out/console.log")
echo "$passed passed, $failed failed"
[ $failed = 0 ]
