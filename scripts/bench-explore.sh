#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench-explore.sh: crash states checked per minute, sbd's way (record
# once, visit each state) against the dm-log-writes way (replay the log
# from its start for each state, as fstests' generic/482 does), side by
# side in one VM boot, at several workload sizes.
#
#   KERNELS=7.2          which kernel
#   SIZES=500,2000,8000  workload sizes (operations: a file written and
#                        fsynced, the directory too every tenth)
#   STATES=24            states checked per size and way
#   MIB=256              the filesystem's size: 8,000 operations fill
#                        about a third of 256 MiB
#   REC_MIB=1024         the recording's memory, and the size of the disk
#                        that holds the kernel's log: 1 GiB holds about
#                        24,000 operations (the VM needs MIB + 2 * REC_MIB
#                        + MIB for brd, and room: raise VM_MEM to match)
#
# Prints, per size and way, states per minute and a state's time split
# into getting it (replay, or visit and return), mount, umount and fsck,
# and their ratio; for sbd also the share of the time its visits spent
# moving data in the kernel.  bench/results-explore/ keeps the console
# log and the summary.
. "$(dirname "$0")/lib.sh"
need_root
export KERNELS=${KERNELS:-7.2}
export VM_MEM=${VM_MEM:-6144}
# 8,000 operations take minutes to write and each dm-log-writes state
# seconds to replay under TCG: more than the default half hour.
export VM_TIMEOUT=${VM_TIMEOUT:-3600}
res=$SBD_ROOT/bench/results-explore
mkdir -p "$res"
"$SBD_ROOT/scripts/install-deps.sh"
for tier in $(kernel_tiers); do
	out=$SBD_OUT/bench-explore/$tier
	vm_image "$tier" "$out" vm-bench-explore.sh "${SIZES:-500,2000,8000}" \
		"${STATES:-24}" "${MIB:-256}" "${REC_MIB:-1024}"
	log "$tier: booting"
	"$SBD_ROOT/scripts/boot-vm.sh" "$tier" "$out/initramfs.img" "$out/console.log" ||
		log "$tier: the VM did not finish"
	cp "$out/console.log" "$res/console-$tier.log"
	grep -a '^@@ bench' "$out/console.log" | sed 's/\r$//; s/^@@ bench //' |
		awk '
		{ print }
		$3 == "way" {
			for (i = 5; i < NF; i += 2) v[$i] = $(i + 1)
			st = v["states"]; t = v["seconds"]; spm = st * 60 / t
			rate[$2, $4] = spm
			printf "  size %s, %s: %.1f states/min; per state %.0f ms: get %.0f, mount %.0f, umount %.0f, fsck %.0f, other %.0f; getting it %.0f%%",
				$2, $4, spm, 1000 * t / st, 1000 * v["get"] / st, 1000 * v["mount"] / st,
				1000 * v["umount"] / st, 1000 * v["fsck"] / st,
				1000 * (t - v["get"] - v["mount"] - v["umount"] - v["fsck"]) / st, 100 * v["get"] / t
			if ("move" in v)
				printf ", of which moving data in sbd %.1f%%", 100 * v["move"] / t
			printf "\n"
			delete v
		}
		$3 == "way" && $4 == "sbd" && rate[$2, "dm-log-writes"] > 0 {
			printf "  size %s: sbd checks %.1f times as many states per minute\n",
				$2, rate[$2, "sbd"] / rate[$2, "dm-log-writes"]
		}' | tee "$res/summary-$tier.txt"
done
