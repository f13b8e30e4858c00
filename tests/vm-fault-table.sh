#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-fault-table.sh: which faults each file system notices
# (scripts/fault-table.sh).  For ext4, xfs and btrfs, with their mkfs
# defaults (ext4 and xfs checksum their metadata, btrfs its data too):
# sbd-explore's @db workload (its check reads every committed version
# back), the states at its flush, FUA and mark points under "none" and
# "all", each once with no fault and once with each --fault.  Every
# state is checked (--no-dedup); a failing state is counted where it
# first failed: mount, the check, or fsck.
. ./vm-lib.sh
EXPLORE=../explore/sbd-explore
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
# bookworm's mkfs.xfs wants 300 MiB.
load_sbd nsectors=655360 cache_mb=32 || exit 1
for fs in ext4 xfs btrfs; do
	for fault in none lose misdirect bitrot unreadable; do
		f=""
		[ "$fault" = none ] || f="--fault $fault"
		# shellcheck disable=SC2086 # $f: an option and its value, or nothing
		$EXPLORE --fs "$fs" --workload @db --ops 6 --points flush,fua,mark --max-points 8 \
			--random 0 --torn 0 --no-dedup --save-max 0 $f --save /tmp/ft > /tmp/ft.out 2>&1
		rc=$?
		echo drop > /sys/block/sbd0/sbd/record 2> /dev/null
		awk -v fs="$fs" -v fault="$fault" -v rc=$rc '
			/^FAIL \(/ {
				n++
				if ($0 ~ /\): mount failed/) m++
				else if ($0 ~ /\): check failed/) c++
				else if ($0 ~ /\): fsck: /) f++
				else e++
			}
			/^time: / { for (i = 1; i < NF; i++) if ($i == "for") st = $(i + 1) }
			END {
				printf "@@ bench faults %s %s states %d failed %d mount %d check %d fsck %d other %d exit %d\n",
					fs, fault, st, n, m, c, f, e, rc
			}' /tmp/ft.out
		grep -m3 '^FAIL (' /tmp/ft.out | cut -c1-200 | sed 's/^/@@ bench example /'
		rm -rf /tmp/ft
	done
done
unload_sbd
