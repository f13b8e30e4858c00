#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-bench-explore.sh SIZES STATES: crash states checked per minute, sbd's
# way against the dm-log-writes way, in one VM boot
# (scripts/bench-explore.sh).
#
# For each workload size N (mkfs.ext4, then N files written and
# fsynced, one directory fsync in ten), the same run goes once through
# the kernel's dm-log-writes target on sbd0 (its log on sbd1), logged
# from before mkfs as fstests does, while sbd0 records it too.  Then
# STATES crash states, at FLUSH points spread evenly over the run, are
# checked both ways, each: get the state, mount (journal replay),
# unmount, e2fsck -fn.
#   dm-log-writes: discard a brd disk (/dev/ram0) and replay the log
#     onto it from its start to the Kth FLUSH (sbd-logreplay apply, as
#     fstests' replay-log does; generic/482 replays from the start for
#     every state);
#   sbd: visit the Kth FLUSH point on sbd0 (policy none).
# Prints per size and way: states, seconds, states per minute, and the
# seconds of getting the state (replay or visit) against the rest.
. ./vm-lib.sh
SIZES=${1:-200,800,3200}
STATES=${2:-20}
MIB=128
now() { cut -d' ' -f1 /proc/uptime; }	# busybox date has no %N
since() { echo "$(now) $1" | awk '{ printf "%.3f", $1 - $2 }'; }

check_fs() {	# DEV: mount, unmount, fsck; prints nothing, fails on a problem
	mount -t ext4 "$1" "$MNT" && umount "$MNT" && e2fsck -fn "$1" > /dev/null 2>&1
}

mkdir -p "$MNT" "$TMP"
modprobe dm-log-writes || { echo "@@ bench no dm-log-writes"; exit 1; }
for n in $(echo "$SIZES" | tr , ' '); do
	insmod "$SBD_KO" sizes=${MIB}M,1G cache_mb=64 || exit 1
	modprobe brd rd_nr=1 rd_size=$((MIB * 1024)) max_part=0 || exit 1
	echo 'start 512' > /sys/block/sbd0/sbd/record
	dmsetup create --noudevsync lw --table \
		"0 $((MIB * 2048)) log-writes /dev/sbd0 /dev/sbd1" && dmsetup mknodes lw
	mkfs.ext4 -q -F -E nodiscard /dev/mapper/lw
	mount /dev/mapper/lw "$MNT"
	t0=$(now)
	i=0
	while [ $i -lt "$n" ]; do
		i=$((i + 1))
		head -c $((i * 7919 % 16384 + 1)) /dev/urandom > "$MNT/f$i"
		sync "$MNT/f$i"
		[ $((i % 10)) != 0 ] || sync "$MNT"
	done
	umount "$MNT"
	dmsetup remove --noudevsync lw
	echo stop > /sys/block/sbd0/sbd/record
	echo "@@ bench size $n workload $(since "$t0") s, $(awk '$1 == "points" { print $2 }' \
		/sys/block/sbd0/sbd/record_stats) points"
	dd if=/dev/sbd1 of=/tmp/lw.log bs=1M iflag=direct status=none
	awk '$2 == "flush" { print $1 }' /sys/kernel/debug/sbd/sbd0/points > /tmp/flushes
	nf=$(grep -c . /tmp/flushes)
	echo "@@ bench size $n flushes $nf log-entries $(sbd-logreplay dump /tmp/lw.log | grep -c .)"
	# STATES FLUSH points spread evenly: the kth of the run's nf.
	: > /tmp/pick
	s=1
	while [ $s -le "$STATES" ]; do
		echo $(((s * nf + STATES - 1) / STATES)) >> /tmp/pick
		s=$((s + 1))
	done
	# The dm-log-writes way.
	get=0 t0=$(now) bad=0
	while read -r k; do
		t1=$(now)
		blkdiscard /dev/ram0 && sbd-logreplay apply /tmp/lw.log "$k" /dev/ram0
		get=$(echo "$get $(since "$t1")" | awk '{ print $1 + $2 }')
		check_fs /dev/ram0 || bad=$((bad + 1))
	done < /tmp/pick
	echo "@@ bench size $n way dm-log-writes states $STATES seconds $(since "$t0") get $get bad $bad"
	# sbd's way.
	get=0 t0=$(now) bad=0
	while read -r k; do
		t1=$(now)
		p=$(sed -n "${k}p" /tmp/flushes)
		echo "$p none" > /sys/block/sbd0/sbd/visit
		get=$(echo "$get $(since "$t1")" | awk '{ print $1 + $2 }')
		check_fs /dev/sbd0 || bad=$((bad + 1))
	done < /tmp/pick
	echo end > /sys/block/sbd0/sbd/visit
	echo "@@ bench size $n way sbd states $STATES seconds $(since "$t0") get $get bad $bad"
	rmmod sbd
	rmmod brd
	rm -f /tmp/lw.log
done
echo "@@ bench done"
