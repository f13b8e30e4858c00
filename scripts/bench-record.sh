#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench-record.sh: what sbd's volatile write cache and a recording cost,
# and how long visits take for the bytes they move (issue "Crash
# exploration, 1").  One VM boot per kernel, all rows in the same boot.
#
#   KERNELS="7.2 6.12"  which kernels
#   ROUNDS=5            rounds of each fio row
#   VM_CPUS=1           guest vCPUs (1: one busy host thread, less noise)
#   ICOUNT=0            wall clock; ICOUNT=3: QEMU -icount (bench.sh says why)
#
# Prints, per kernel, the median KiB/s of each row and its ratio to
# "plain" (no cache), and the visit lines; bench/results-record/ keeps
# the console logs.  Wall clock under TCG: compare ratios, not speeds.
. "$(dirname "$0")/lib.sh"
need_root
export KERNELS=${KERNELS:-7.2 6.12}
export VM_CPUS=${VM_CPUS:-1} VM_MEM=${VM_MEM:-6144}
ICOUNT=${ICOUNT:-0}
res=$SBD_ROOT/bench/results-record/$([ "$ICOUNT" = 0 ] && echo wallclock || echo "icount$ICOUNT")
mkdir -p "$res"
"$SBD_ROOT/scripts/install-deps.sh"
[ "$ICOUNT" = 0 ] || use_icount "$SBD_OUT/bench-record/icount" "$ICOUNT"
for tier in $(kernel_tiers); do
	out=$SBD_OUT/bench-record/$tier
	vm_image "$tier" "$out" vm-bench-record.sh "${ROUNDS:-5}"
	log "$tier: booting"
	"$SBD_ROOT/scripts/boot-vm.sh" "$tier" "$out/initramfs.img" "$out/console.log" ||
		log "$tier: the VM did not finish"
	cp "$out/console.log" "$res/console-$tier.log"
	grep -a '^@@ bench' "$out/console.log" | sed 's/\r$//; s/^@@ bench //' |
		python3 -c '
import sys, statistics
rows = {}
for line in sys.stdin:
    w = line.split()
    if len(w) > 2 and w[2].startswith("kib_s="):
        rows.setdefault((w[0], w[1]), []).append(float(w[2][6:]))
    elif not line.startswith("round-stats"):
        print(line, end="")
for (label, row), v in sorted(rows.items(), key=lambda r: (r[0][1], r[0][0])):
    med = statistics.median(v)
    base = statistics.median(rows.get(("plain", row), [0])) or 1
    print(f"{label:7} {row:13} {med:12.0f} KiB/s  {med / base:.2f} of plain  ({len(v)} rounds, {min(v):.0f}-{max(v):.0f})")
' | tee "$res/summary-$tier.txt"
done
