#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-bench-explore.sh SIZES STATES [MIB [REC_MIB]]: crash states checked per minute, sbd's
# way against the dm-log-writes way, in one VM boot
# (scripts/bench-explore.sh).
#
# For each workload size N (mkfs.ext4, then N operations by
# sbd-fsyncfiles: a file written and fsynced, the directory fsynced every
# tenth), the same run goes once through the kernel's dm-log-writes
# target on sbd0 (its log on sbd1), logged from before mkfs as fstests
# does, while sbd0 records it too.  Then STATES crash states, at FLUSH
# points spread evenly over the run, are checked both ways, each: get
# the state, mount (journal replay), unmount, e2fsck -fn.
#   dm-log-writes: discard a brd disk (/dev/ram0) and replay the log
#     onto it from its start to the Kth FLUSH (sbd-logreplay apply, as
#     fstests' replay-log does; generic/482 replays from the start for
#     every state);
#   sbd: visit the Kth FLUSH point on sbd0 (policy none).  The first
#     visit comes from the recording's end, each later one from the
#     previous state, as sbd-explore goes.
# Prints per size and way: states, seconds, and the seconds of each part
# of a state (get, mount, umount, fsck); for sbd also the time sbd's
# visits spent moving data (record_stats' last_move_usec, summed).
# Times come from /proc/uptime read by the shell itself (no process per
# reading: under TCG a spawn costs tens of milliseconds), in
# centiseconds, summed over the states.
. ./vm-lib.sh
SIZES=${1:-500,2000,8000}
STATES=${2:-24}
MIB=${3:-256}	# the disk (sbd0 and the brd replay disk)
REC_MIB=${4:-1024}	# sbd0's recording, and sbd1 that holds the kernel's log
# T: centiseconds since boot (the uptime's dot dropped; it is past 1 s).
tick() { read -r _u _ < /proc/uptime; T=${_u%.*}${_u#*.}; }
secs() { printf '%d.%02d' $(($1 / 100)) $(($1 % 100)); }

# check_fs DEV: mount, unmount, fsck, each part's time added to its sum.
check_fs() {
	tick; _a=$T
	mount -t ext4 "$1" "$MNT" || return 1
	tick; _b=$T
	umount "$MNT" || return 1
	tick; _c=$T
	e2fsck -fn "$1" > /dev/null 2>&1
	_rc=$?
	tick
	mnt=$((mnt + _b - _a)) umnt=$((umnt + _c - _b)) fsck=$((fsck + T - _c))
	return $_rc
}
report() {	# WAY START: one line of sums for this size and way
	tick
	echo "@@ bench size $n way $1 states $STATES seconds $(secs $((T - $2)))" \
		"get $(secs "$get") mount $(secs "$mnt") umount $(secs "$umnt")" \
		"fsck $(secs "$fsck") bad $bad${3:+ move $3}"
}

mkdir -p "$MNT" "$TMP"
modprobe dm-log-writes || { echo "@@ bench no dm-log-writes"; exit 1; }
for n in $(echo "$SIZES" | tr , ' '); do
	insmod "$SBD_KO" sizes="${MIB}M,${REC_MIB}M" cache_mb=64 || exit 1
	modprobe brd rd_nr=1 rd_size=$((MIB * 1024)) max_part=0 || exit 1
	echo "start $REC_MIB" > /sys/block/sbd0/sbd/record
	dmsetup create --noudevsync lw --table \
		"0 $((MIB * 2048)) log-writes /dev/sbd0 /dev/sbd1" && dmsetup mknodes lw
	mkfs.ext4 -q -F -E nodiscard /dev/mapper/lw
	mount /dev/mapper/lw "$MNT"
	tick; t0=$T
	sbd-fsyncfiles "$MNT" "$n" || echo "@@ bench size $n: the workload failed"
	tick
	echo "@@ bench size $n workload $(secs $((T - t0))) s"
	umount "$MNT"
	dmsetup remove --noudevsync lw
	echo stop > /sys/block/sbd0/sbd/record
	awk '{ printf "@@ bench size '"$n"' record %s %s\n", $1, $2 }' /sys/block/sbd0/sbd/record_stats
	awk '$2 == "flush" { print $1 }' /sys/kernel/debug/sbd/sbd0/points > /tmp/flushes
	nf=$(grep -c . /tmp/flushes)
	# The log is replayed straight from sbd1 (through its page cache).
	echo "@@ bench size $n flushes $nf log-entries $(sbd-logreplay dump /dev/sbd1 | grep -c .)"
	# STATES FLUSH points spread evenly: "K POINT", the Kth of nf.
	awk -v s="$STATES" -v nf="$nf" '{ p[NR] = $1 }
		END { for (i = 1; i <= s; i++) { k = int((i * nf + s - 1) / s); print k, p[k] } }' \
		/tmp/flushes > /tmp/pick
	# The dm-log-writes way.
	get=0 mnt=0 umnt=0 fsck=0 bad=0
	tick; t0=$T
	while read -r k p; do
		tick; t1=$T
		blkdiscard /dev/ram0 && sbd-logreplay apply /dev/sbd1 "$k" /dev/ram0
		tick; get=$((get + T - t1))
		check_fs /dev/ram0 || bad=$((bad + 1))
	done < /tmp/pick
	report dm-log-writes "$t0"
	# sbd's way.
	get=0 mnt=0 umnt=0 fsck=0 bad=0 move=0
	tick; t0=$T
	while read -r k p; do
		tick; t1=$T
		echo "$p none" > /sys/block/sbd0/sbd/visit
		tick; get=$((get + T - t1))
		while read -r f v; do
			[ "$f" != last_move_usec ] || move=$((move + v))
		done < /sys/block/sbd0/sbd/record_stats
		check_fs /dev/sbd0 || bad=$((bad + 1))
	done < /tmp/pick
	# The return to the recording's end is part of sbd's way.
	tick; t1=$T
	echo end > /sys/block/sbd0/sbd/visit
	tick; get=$((get + T - t1))
	while read -r f v; do
		[ "$f" != last_move_usec ] || move=$((move + v))
	done < /sys/block/sbd0/sbd/record_stats
	report sbd "$t0" "$(secs $((move / 10000)))"
	rmmod sbd
	rmmod brd
done
echo "@@ bench done"
