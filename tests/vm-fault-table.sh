#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-fault-table.sh: which faults each file system notices
# (scripts/fault-table.sh).  For ext4, xfs and btrfs, with their mkfs
# defaults (ext4 and xfs checksum their metadata, btrfs its data too):
# sbd-explore's @db workload (its check reads every committed version
# back), the states at its flush, FUA and mark points under "none" and
# "all", each once with no fault, once with each --fault and once
# recorded with --hold-writes 50 ("hold": a FLUSH overtakes the writes
# still in flight, which a file system that waits for its writes never
# depends on), each twice: without a check (what the file system notices, at mount or in
# fsck) and with @db's.  Every state is checked (--no-dedup); a failing
# state is counted once, where it first failed: mount, the check, or
# fsck (which runs only after a check that passed).
. ./vm-lib.sh
EXPLORE=../explore/sbd-explore
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
# bookworm's mkfs.xfs wants 300 MiB.
load_sbd nsectors=655360 cache_mb=32 || exit 1
for fs in ext4 xfs btrfs; do
	for fault in $(echo "${SBD_FAULTS:-none,lose,misdirect,bitrot,unreadable,hold}" | tr , ' '); do
		case $fault in
		none) f="" ;;
		hold) f="--hold-writes 50" ;;
		*) f="--fault $fault" ;;
		esac
		# First the file system alone (no check: mount and fsck), then
		# with @db's check, which reads every committed version back.
		for check in none @db; do
			# shellcheck disable=SC2086 # $f: an option and its value, or nothing
			$EXPLORE --fs "$fs" --workload @db --ops 6 --check "$check" \
				--points flush,fua,mark --max-points 8 --random 0 --torn 0 \
				--no-dedup --save-max 0 $f --save /tmp/ft > /tmp/ft.out 2>&1
			rc=$?
			echo drop > /sys/block/sbd0/sbd/record 2> /dev/null
			# A state is counted once, where it first failed.
			awk -v fs="$fs" -v fault="$fault" -v check="$check" -v rc=$rc '
				/^FAIL \(/ {
					key = substr($0, 1, index($0, ")"))
					if (key in seen) next
					seen[key] = 1
					n++
					if ($0 ~ /\): mount failed/) m++
					else if ($0 ~ /\): check failed/) c++
					else if ($0 ~ /\): fsck: /) f++
					else e++
				}
				/^time: / { for (i = 1; i < NF; i++) if ($i == "for") st = $(i + 1) }
				END {
					printf "@@ bench faults %s %s check %s states %d failed %d mount %d check %d fsck %d other %d exit %d\n",
						fs, fault, check, st, n, m, c, f, e, rc
				}' /tmp/ft.out
			grep '^--hold-writes' /tmp/ft.out | sed 's/^/@@ bench held /'
			if [ $rc -ge 2 ]; then
				tail -n 5 /tmp/ft.out | sed 's/^/@@ bench error /'
			else
				grep -m2 '^FAIL (' /tmp/ft.out | cut -c1-200 | sed 's/^/@@ bench example /'
			fi
			rm -rf /tmp/ft
		done
	done
done
unload_sbd
