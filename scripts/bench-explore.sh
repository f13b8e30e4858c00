#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench-explore.sh: crash states checked per minute, sbd's way (record
# once, visit each state) against the dm-log-writes way (replay the log
# from its start for each state, as fstests' generic/482 does), side by
# side in one VM boot, at several workload sizes.
#
#   KERNELS=7.2         which kernel
#   SIZES=200,800,3200  workload sizes (files written and fsynced)
#   STATES=20           states checked per size and way
#
# Prints, per size, states per minute both ways and their ratio, and
# the share of a state's time spent getting it (replay or visit);
# bench/results-explore/ keeps the console log.
. "$(dirname "$0")/lib.sh"
need_root
export KERNELS=${KERNELS:-7.2}
export VM_MEM=${VM_MEM:-6144}
res=$SBD_ROOT/bench/results-explore
mkdir -p "$res"
"$SBD_ROOT/scripts/install-deps.sh"
for tier in $(kernel_tiers); do
	out=$SBD_OUT/bench-explore/$tier
	mkdir -p "$out"
	"$SBD_ROOT/scripts/fetch-kernel.sh" "$tier" > "$out/fetch.log" 2>&1 ||
		die "$tier: fetch failed"
	"$SBD_ROOT/scripts/build-module.sh" "$tier" > "$out/build.log" 2>&1 ||
		die "$tier: build failed"
	"$SBD_ROOT/scripts/make-initramfs.sh" "$tier" "$out/initramfs.img" \
		vm-bench-explore.sh "${SIZES:-200,800,3200}" "${STATES:-20}" \
		> "$out/initramfs.log" 2>&1 || die "$tier: initramfs failed"
	log "$tier: booting"
	"$SBD_ROOT/scripts/boot-vm.sh" "$tier" "$out/initramfs.img" "$out/console.log" ||
		log "$tier: the VM did not finish"
	cp "$out/console.log" "$res/console-$tier.log"
	grep -a '^@@ bench' "$out/console.log" | sed 's/\r$//; s/^@@ bench //' |
		awk '
		{ print }
		$3 == "way" {
			spm = $6 * 60 / $8; rate[$2, $4] = spm
			printf "  size %s, %s: %.1f states/min, getting the state %.0f%% of the time\n",
				$2, $4, spm, 100 * $10 / $8
		}
		$3 == "way" && $4 == "sbd" && rate[$2, "dm-log-writes"] > 0 {
			printf "  size %s: sbd checks %.1f times as many states per minute\n",
				$2, rate[$2, "sbd"] / rate[$2, "dm-log-writes"]
		}' | tee "$res/summary-$tier.txt"
done
