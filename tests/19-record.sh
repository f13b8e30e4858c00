# SPDX-License-Identifier: GPL-2.0
# Recordings and visits of their crash states: a disk with a cache
# records a run of raw O_DIRECT writes, FUA writes, fsyncs (FLUSH),
# marks, discards and zeroouts (tests/tools/sbd-model.c plays it), then
# every point is visited under several policies and compared block by
# block with an image the model computes on its own; the end is checked
# after each point.  Then the contract of the files record, mark, visit
# and points (and cut_at's refusals without a recording): bad input,
# visits and the return, a disk mounted or held open; dirty page cache
# at a visit and at a cut; determinism; unload while recording and
# while visiting; a recording and visits beside fio.
# A recording's memory is 23-record-memory.sh's, cuts while recording
# 24-record-cut.sh's, the export 25-record-export.sh's, filesystems'
# crash states 26-record-fs.sh's.

# Requires: cache_mb, debugfs; fio, ext4, sbd-model (tests/tools).
# QUICK=1: in the quick run (QUICK=1 scripts/run-tests.sh).

# shellcheck disable=SC2034 # model_run's (vm-lib.sh)
POLICIES="none all random:7:50 torn:5"

mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
model_run model@512 512 60 11
model_run model@4096 4096 60 12
# Writes on 24 blocks: FUA writes overlap older writes of their epoch.
model_run overlap@512 512 80 14 24
model_run overlap@4096 4096 80 15 24
maxbs=$(sbd_max_block)
[ "$maxbs" -le 4096 ] || model_run "model@$maxbs" "$maxbs" 40 13

# --- The files' contract, on an 8 MiB disk with a 4 MiB cache.
random_file "$TMP/A" 65536
random_file "$TMP/B" 65536
head -c 65536 /dev/zero > "$TMP/Z"

check files/no-cache-load load_sbd nsectors=16384 || return
check_fails files/no-record-file-without-cache test -e "$REC"
unload_sbd
check files/load load_sbd nsectors=16384 cache_mb=4 || return
expect files/state-none none "$(cat "$REC")"
expect files/visit-none none "$(cat "$VISIT")"
expect files/stats-none "state none" "$(cat "$SBD_SYS"/record_stats)"
write_refused files/mark-before-start "$MARK" m1
write_refused files/visit-without-recording "$VISIT" "0 none"
write_refused files/cut-at-without-recording "$CUTAT" 5
for bad in "" "start" "start 0" "start +4" "start x" "start 4 4" "begin" "stop" "drop" "Start 4"; do
	write_refused "files/record '$bad'" "$REC" "$bad"
done
expect files/still-none none "$(cat "$REC")"
check files/start sh -c "echo 'start 8' > $REC"
write_refused files/start-twice "$REC" "start 8"
expect files/recording recording "$(cat "$REC")"
for bad in "" "two words" "$(printf 'x%.0s' $(seq 33))" "tab	bed"; do
	write_refused "files/mark '$bad'" "$MARK" "$bad"
done
check files/mark-32 sh -c "echo $(printf 'y%.0s' $(seq 32)) > $MARK"
write_refused files/visit-while-recording "$VISIT" "0 none"
write_refused files/cut-at-past "$CUTAT" 1
wr "$TMP/A" 0
check files/mark sh -c "echo after-A > $MARK"
expect files/listing "1 mark yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy
2 write 0 65536
3 mark after-A" "$(cat "$POINTS")"
check files/stop sh -c "echo stop > $REC"
write_refused files/mark-after-stop "$MARK" m2
for bad in "" "4 none" "1" "1 some" "1 random 1" "1 random 1 101" "+1 none" "1 none x" \
	   "end 1" "99999999999999999999999 none"; do
	write_refused "files/visit '$bad'" "$VISIT" "$bad"
done
check files/visit-1 sh -c "echo '1 none' > $VISIT"
expect files/visit-reads "1 none" "$(cat "$VISIT")"
expect files/visit-1-has-no-write "$(sha256sum < "$TMP/Z")" "$(at 0 | sha256sum)"
check files/visit-3-all sh -c "echo '3 all' > $VISIT"
expect files/visit-3-all-has-A "$(sha256sum < "$TMP/A")" "$(at 0 | sha256sum)"
# A write during a visit is undone by the next move.
check files/write-during-visit wr "$TMP/B" 0
check files/end sh -c "echo end > $VISIT"
expect files/end-reads end "$(cat "$VISIT")"
expect files/end-has-A "$(sha256sum < "$TMP/A")" "$(at 0 | sha256sum)"
check_output files/visits-counted '^visits 2$' cat "$SBD_SYS"/record_stats
# A mounted filesystem would not see the change: refused.
check files/mkfs-at-end mkfs.ext4 -q -F -E nodiscard /dev/sbd0
check files/mount mount /dev/sbd0 "$MNT"
write_refused files/visit-while-mounted "$VISIT" "0 none"
umount "$MNT"
check files/visit-after-umount sh -c "echo '0 none' > $VISIT"
# The page cache is dropped: a reader that keeps the disk open sees it.
exec 3< /dev/sbd0
dd if=/dev/sbd0 of="$TMP/before" bs=64k count=1 status=none
check files/visit-with-reader sh -c "echo '3 all' > $VISIT"
dd if=/dev/sbd0 of="$TMP/after" bs=64k count=1 status=none
same files/held-open-reader-sees-the-visit "$TMP/A" "$TMP/after"
exec 3<&-
check files/power-off-refused-after-end sh -c "! echo off > $PWR"
check files/drop sh -c "echo drop > $REC"
expect files/dropped-keeps-content "$(sha256sum < "$TMP/A")" "$(at 0 | sha256sum)"
expect files/dropped none "$(cat "$REC")"

# --- Dirty page cache of the raw disk is written back before a visit
# moves the store (into the cache, where the visit undoes it), not onto
# the state it made.  The disk stays open (fd 3): closing the last
# opener would write it back anyway.
check dirty/start sh -c "echo 'start 8' > $REC"
wr "$TMP/A" 0 && sync /dev/sbd0 && wr "$TMP/B" 65536
check dirty/stop sh -c "echo stop > $REC"
check dirty/visit-2 sh -c "echo '2 none' > $VISIT"
clean=$(dev_sum)
check dirty/end sh -c "echo end > $VISIT"
exec 3<> /dev/sbd0
check dirty/buffered-write dd if="$TMP/Z" of=/dev/sbd0 bs=64k count=2 conv=notrunc status=none
check dirty/visit-2-again sh -c "echo '2 none' > $VISIT"
sync
expect dirty/visit-is-the-state "$clean" "$(dev_sum)"
exec 3>&-
check dirty/drop sh -c "echo drop > $REC"
# The same for a cut without a recording: the dirty data reaches the
# cache, where policy "none" loses it.
wr "$TMP/A" 0 && sync /dev/sbd0
exec 3<> /dev/sbd0
check dirty/buffered-before-cut dd if="$TMP/B" of=/dev/sbd0 bs=64k count=1 conv=notrunc status=none
check dirty/policy sh -c "echo none > $POL"
check dirty/cut sh -c "echo off > $PWR"
check dirty/on sh -c "echo on > $PWR"
sync
expect dirty/cut-lost-it "$(sha256sum < "$TMP/A")" "$(at 0 | sha256sum)"
exec 3>&-

# --- Determinism: the same single-threaded run recorded twice gives
# the same points and the same state, by hash.
det_run() {
	record_play 77 40 0 nsectors=2048 && echo "7 torn 3" > "$VISIT" &&
		printf '%s %s\n' "$(sha256sum < "$POINTS" | cut -c1-64)" "$(dev_sum)"
}
d1=$(det_run)
d2=$(det_run)
check det/ran test -n "$d1"
expect det/same-points-same-state "$d1" "$d2"
# The same on every kernel: the hashes 6.1, 6.12 and 7.2 gave alike.
expect det/same-on-every-kernel \
	"90d34cd60fe02f8632ba41908fc50b678dfff85a32222ce09ef2e6f32c4e5a6d 0d257e41d077eb368a3aaa4df22b26b2358f9d073857210a7ca2e1688b3e9775" \
	"$d1"

# --- Unload while recording and while visiting leaks nothing.
unload_sbd
base=$(meminfo_kb VmallocUsed)
for i in 1 2 3; do
	load_sbd nsectors=16384 cache_mb=4 && echo 'start 8' > "$REC" &&
		wr "$TMP/A" 0 && rmmod sbd || break
	load_sbd nsectors=16384 cache_mb=4 && echo 'start 8' > "$REC" &&
		wr "$TMP/A" 0 && echo stop > "$REC" && echo '0 none' > "$VISIT" &&
		rmmod sbd || break
done
check leak/unloaded test ! -e /sys/module/sbd
check leak/vmalloc-back-to-baseline test $(($(meminfo_kb VmallocUsed) - base)) -lt 1024

# --- Races: a recording under a verifying fio with marks written from
# another process, then visits and returns while fio writes and reads.
# The data of the second part is not the point (writes during visits can
# fill the ring and fail): no kernel report, no hang and no leak is.
check race/load load_sbd nsectors=65536 cache_mb=8 || return
check race/start sh -c "echo 'start 96' > $REC" || return
( i=0; while [ $i -lt 200 ]; do echo "r$i" > "$MARK" || break; i=$((i + 1)); done ) &
marker=$!
fio_ok race/recording-under-fio --name=rec --filename=/dev/sbd0 --rw=randwrite \
	--bs=4k --size=8m --direct=1 --ioengine=libaio --iodepth=8 --numjobs=2 \
	--offset_increment=8m --fsync=16 --verify=crc32c --verify_fatal=1
wait $marker
check race/still-recording test "$(cat "$REC")" = recording
check race/stop sh -c "echo stop > $REC"
n=$(stat_value "$SBD_SYS"/record_stats points)
fio --name=visits --filename=/dev/sbd0 --rw=randrw --bs=4k --size=16m \
	--direct=1 --ioengine=libaio --iodepth=4 --numjobs=2 --offset_increment=16m \
	--time_based --runtime=8 > /dev/null 2>&1 &
fio_pid=$!
i=0 refused=0
while kill -0 $fio_pid 2>/dev/null && [ $i -lt 40 ]; do
	echo "$(( (i * 7919) % (n + 1) )) torn $i" > "$VISIT" 2>/dev/null ||
		refused=$((refused + 1))
	echo end > "$VISIT" 2>/dev/null || refused=$((refused + 1))
	i=$((i + 1))
done
wait $fio_pid
echo "@@ | $n points; $i visits and returns beside fio, $refused refused"
check race/return sh -c "echo end > $VISIT"
check race/drop sh -c "echo drop > $REC"
check race/unload unload_sbd
