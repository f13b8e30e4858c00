# SPDX-License-Identifier: GPL-2.0
# Races: sysfs changes (bad-block edits away from the I/O, iostats,
# write_cache, scheduler) while fio verifies; torn reads; open, sysfs
# reads and I/O racing rmmod; two insmod at once.

# Requires: fio, sbd-torn (tests/tools).
# QUICK=0: not in the quick run (QUICK=1 scripts/run-tests.sh).

# --- sysfs changes under a verifying fio (first 32 MiB); bad blocks
# are marked and cleared in the last 32 MiB, which fio never touches.
# At least 16 rounds of changes, however fast fio is, and on while it
# runs.
check sysfs/load load_sbd nsectors=$((64 << 11)) || return
Q=/sys/block/sbd0/queue
BB=/sys/block/sbd0/sbd/badblocks
fio --name=race --filename=/dev/sbd0 --rw=randrw --bsrange=512-256k --size=16m \
	--numjobs=2 --offset_increment=16m --direct=1 --ioengine=libaio --iodepth=16 \
	--verify=crc32c --verify_fatal=1 --loops=2 --output="$TMP/fio.out" \
	> /dev/null 2>&1 &
fio_pid=$!
n=0 errs=""
while [ $n -lt 16 ] || { kill -0 $fio_pid 2>/dev/null && [ $n -lt 300 ]; }; do
	s=$((65536 + (n % 64) * 512))
	echo "+$s 64" > $BB || errs="$errs mark-$n"
	echo $((n % 2)) > $Q/iostats || errs="$errs iostats-$n"
	cat /sys/block/sbd0/stat /sys/block/sbd0/sbd/* > /dev/null 2>&1
	echo "-$s 64" > $BB || errs="$errs clear-$n"
	case $((n % 3)) in
	0) echo none > $Q/scheduler ;;
	1) echo mq-deadline > $Q/scheduler ;;
	2) echo "write through" > $Q/write_cache ;;
	esac || errs="$errs queue-$n"
	n=$((n + 1))
done
if wait $fio_pid; then
	pass sysfs/fio-verify-ok
else
	fail sysfs/fio-verify-ok "fio failed:" "$(tail -n 20 "$TMP/fio.out")"
fi
echo "@@ | sysfs: $n rounds of changes"
expect sysfs/every-change-accepted "" "$errs"
expect sysfs/no-bad-blocks-left "" "$(cat $BB)"
echo 1 > $Q/iostats
echo none > $Q/scheduler
check sysfs/unload unload_sbd

# --- torn reads: whole 4 KiB blocks flipped between two patterns by two
# writers while two readers check that each block they read is one
# pattern (sbd copies each segment under its lock).  Few blocks, so
# reads and writes meet often.
check torn/load load_sbd nsectors=64 hardsect_size=4096 || return
check_output torn/no-torn-reads 'torn 0$' sbd-torn /dev/sbd0 4 20
check torn/unload unload_sbd

# --- open, sysfs reads and I/O racing rmmod, in a loop: every rmmod
# either fails (busy) or succeeds, and nothing else goes wrong.
rounds=0 unloaded=0 errs=""
while [ $rounds -lt 30 ]; do
	load_sbd nsectors=2048 || { errs="$errs load-$rounds"; break; }
	(
		for _ in 1 2 3; do
			dd if=/dev/sbd0 of=/dev/null bs=4k count=64 iflag=direct 2>/dev/null
			cat /sys/block/sbd0/sbd/size_bytes /sys/block/sbd0/stat 2>/dev/null
			# xfs_io, not dd: with the node gone, dd would create a
			# regular file /dev/sbd0.
			xfs_io -d -c "pwrite -q 0 64k" /dev/sbd0 2>/dev/null
		done
	) > /dev/null &
	racer=$!
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		if rmmod sbd 2>"$TMP/rmmod.err"; then
			unloaded=$((unloaded + 1))
			break
		fi
		# Busy is either kmod's "in use" (it read a refcount) or
		# EAGAIN: an opener took a reference between kmod's read and
		# delete_module(), whose try_stop_module() then says
		# -EWOULDBLOCK.  Any other error is a failure.
		grep -q -e 'in use' -e 'Resource temporarily unavailable' \
			"$TMP/rmmod.err" ||
			errs="$errs rmmod-$rounds:$(cat "$TMP/rmmod.err")"
	done
	wait $racer
	[ -e /sys/module/sbd ] && rmmod sbd
	[ -e /sys/module/sbd ] && { errs="$errs still-loaded-$rounds"; break; }
	rounds=$((rounds + 1))
done
expect rmmod-race/clean "" "$errs"
echo "@@ | rmmod-race: $unloaded of $rounds rounds unloaded under I/O"
expect rmmod-race/nothing-left "" "$(sbd_leftovers)"

# --- two insmod at once: exactly one sbd results.  Since 6.6 the
# kernel treats concurrent loads of the same file as one (both return
# its result: 0); before, the second fails with EEXIST (or EBUSY while
# the first is still initializing), and so it does since 6.6 when the
# first load is over before the second starts.  Which one happens is
# timing: one check name for all of them.
insmod "$SBD_KO" nsectors=2048 > "$TMP/i1" 2>&1 &
p1=$!
insmod "$SBD_KO" nsectors=4096 > "$TMP/i2" 2>&1 &
p2=$!
r1=0 r2=0
wait $p1 || r1=1
wait $p2 || r2=1
case $((r1 + r2)) in
0) pass two-insmod/one-wins
   echo "@@ | two-insmod: both succeeded (one load, shared)" ;;
1) check_output two-insmod/one-wins 'File exists|busy' cat "$TMP/i1" "$TMP/i2" ;;
*) fail two-insmod/one-wins "both failed:" "$(cat "$TMP/i1" "$TMP/i2")" ;;
esac
check_output two-insmod/winner-size '^(1048576|2097152)$' blockdev --getsize64 /dev/sbd0
expect two-insmod/one-disk sbd0 "$(cd /sys/block && echo sbd*)"
expect two-insmod/one-module 1 "$(grep -c '^sbd ' /proc/modules)"
check two-insmod/unload unload_sbd
expect two-insmod/nothing-left "" "$(sbd_leftovers)"
rm -f "$TMP/fio.out" "$TMP/rmmod.err" "$TMP/i1" "$TMP/i2"
