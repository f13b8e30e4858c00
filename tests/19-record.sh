# SPDX-License-Identifier: GPL-2.0
# Recording and crash states: a disk with a cache records a run of raw
# O_DIRECT writes, FUA writes, fsyncs (FLUSH), marks, discards and
# zeroouts (tests/tools/sbd-model.c plays it), then every point is
# visited under several policies and compared block by block with an
# image the model computes on its own; the end is checked after each
# point.  Then the sysfs files' contract: bad input, limits, the aimed
# live cut, determinism, a full recording, unload while visiting.

# Requires: cache_mb, debugfs; fio, ext4, xfs, sbd-model, sbd-logreplay (tests/tools); dm-log-writes and dmsetup for the comparison (skipped without).
# QUICK=1: in the quick run (QUICK=1 scripts/run-tests.sh).

POLICIES="none all random:7:50 torn:5"

# export_check NAME SIZE: on a stopped recording of a SIZE-byte disk,
# every prefix of the export that ends at a FLUSH, FUA write or mark
# replays to the visit (POINT, none) that log-writes-points names for
# it, and the whole log to the visit (LAST, all).  Leaves it at the end.
export_check() {
	check "$1/export-at-0" sh -c "echo '0 none' > $VISIT" || return
	check "$1/export" cp "$EXPORT" "$TMP/x.log" || return
	check "$1/export-points" cp "$EXPORT-points" "$TMP/x.map" || return
	dd if=/dev/sbd0 of="$TMP/x0.img" bs=64k iflag=direct status=none
	_bad="" _n=0
	while read -r _e _p _kind _rest; do
		case "$_kind $_rest" in
		*again*) continue ;;
		flush* | mark* | *fua*) ;;
		*) continue ;;
		esac
		_n=$((_n + 1))
		sbd-logreplay limit "$TMP/x.log" "$2" $((_e + 1)) "$TMP/r.img" "$TMP/x0.img" &&
			echo "$_p none" > "$VISIT" &&
			dd if=/dev/sbd0 of="$TMP/v.img" bs=64k iflag=direct status=none ||
			{ _bad="$_bad entry $_e (point $_p): a step failed;"; continue; }
		cmp -s "$TMP/r.img" "$TMP/v.img" ||
			_bad="$_bad entry $_e ($_p $_kind $_rest): the replay is not ($_p none);"
	done < "$TMP/x.map"
	_last=$(stat_value "$SBD_SYS"/record_stats points)
	sbd-logreplay limit "$TMP/x.log" "$2" 0 "$TMP/r.img" "$TMP/x0.img" &&
		echo "$_last all" > "$VISIT" &&
		dd if=/dev/sbd0 of="$TMP/v.img" bs=64k iflag=direct status=none &&
		cmp -s "$TMP/r.img" "$TMP/v.img" ||
		_bad="$_bad the whole log is not ($_last all);"
	expect "$1/export-prefixes-replay-to-visits" "" "$_bad"
	echo "@@ | export: $(grep -c . "$TMP/x.map") entries ($(grep -c again "$TMP/x.map") again), $_n prefixes replayed"
	echo end > "$VISIT"
}

# model_run NAME BS NOPS SEED [BLOCKS]: a 1 MiB disk of BS-byte blocks,
# recorded while sbd-model plays NOPS operations (on its first BLOCKS
# blocks only, if given: overlapping writes), then every state checked,
# and the export.
model_run() {
	_n=$1
	check "$_n/load" load_sbd nsectors=$((1048576 / $2)) hardsect_size="$2" cache_mb=4 ||
		return
	check "$_n/start" sh -c "echo 'start 16' > $REC" || { unload_sbd; return; }
	check_output "$_n/play" '^ok played' env SBD_MODEL_BLOCKS="${5:-0}" \
		sbd-model play /dev/sbd0 "$4" "$3" "$TMP/trace"
	check "$_n/stop" sh -c "echo stop > $REC"
	expect "$_n/state-stopped" stopped "$(cat "$REC")"
	cp "$POINTS" "$TMP/listing"
	expect "$_n/points-counted" "$(grep -c . "$TMP/listing")" "$(stat_value "$SBD_SYS"/record_stats points)"
	# shellcheck disable=SC2086 # $POLICIES: a list of words, on purpose
	_out=$(sbd-model check /dev/sbd0 "$TMP/trace" "$TMP/listing" $POLICIES 2>&1)
	_rc=$?
	if [ $_rc = 0 ]; then
		pass "$_n/every-state-matches-the-model"
	else
		fail "$_n/every-state-matches-the-model" "$_out"
	fi
	printf '%s\n' "$_out" | grep '^ok states' | sed 's/^/@@ | /'
	echo "@@ | $(grep -E '^(points|saved_bytes|memory_used|visits|moved_bytes|last_move_usec) ' \
		"$SBD_SYS"/record_stats | tr '\n' ' ')"
	export_check "$_n" 1048576
	check "$_n/drop" sh -c "echo drop > $REC"
	check "$_n/unload" unload_sbd
}

mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
model_run model@512 512 60 11
model_run model@4096 4096 60 12
# Writes on 24 blocks: FUA writes overlap older writes of their epoch.
model_run overlap@512 512 80 14 24
check overlap@512/export-logs-fua-writes-again grep -q again "$TMP/x.map"
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

# --- A recording whose memory runs out ends "full"; its points stay.
check full/start sh -c "echo 'start 1' > $REC"
for i in $(seq 0 19); do wr "$TMP/B" $((i * 65536)) 2>/dev/null; done
expect full/state full "$(cat "$REC")"
n=$(stat_value "$SBD_SYS"/record_stats points)
check full/some-points test "$n" -ge 10 -a "$n" -lt 20
check full/visit-last sh -c "echo '$n all' > $VISIT"
expect full/last-recorded-write "$(sha256sum < "$TMP/B")" \
	"$(at $(((n - 1) * 65536)) | sha256sum)"
check full/end sh -c "echo end > $VISIT"
check full/drop sh -c "echo drop > $REC"

# --- Every point costs its saved bytes and 24 bytes: a FLUSH, which
# saves nothing, takes no page.  512-byte writes, each with its FLUSH,
# into a 1 MiB recording: about 3,700 points (1 MiB / (512 + 2 * 24)).
check account/start sh -c "echo 'start 1' > $REC"
check account/pairs fio --name=pairs --filename=/dev/sbd0 --rw=write --bs=512 \
	--size=2M --direct=1 --fsync=1 --ioengine=psync --output=/dev/null
expect account/state full "$(cat "$REC")"
n=$(stat_value "$SBD_SYS"/record_stats points)
check account/every-pair-fits test "$n" -gt 3600
expect account/memory-is-bytes-and-points "$(($(stat_value "$SBD_SYS"/record_stats saved_bytes) + 24 * n))" \
	"$(stat_value "$SBD_SYS"/record_stats memory_used)"
check account/drop sh -c "echo drop > $REC"

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

# --- The aimed live cut: the power goes off as point 3 completes; the
# 4th write fails; at power on the disk is the state (3, none).
unload_sbd
check cut/load load_sbd nsectors=16384 cache_mb=4
check cut/start sh -c "echo 'start 8' > $REC"
check cut/arm sh -c "echo 3 > $CUTAT"
expect cut/armed 3 "$(cat "$CUTAT")"
wr "$TMP/A" 0 && sync /dev/sbd0 && wr "$TMP/A" 65536
check_fails_with cut/4th-write-fails "Input/output error" wr "$TMP/B" 131072
expect cut/power-off off "$(cat "$PWR")"
expect cut/state cut "$(cat "$REC")"
expect cut/three-points 3 "$(stat_value "$SBD_SYS"/record_stats points)"
write_refused cut/visit-while-off "$VISIT" "1 none"
check cut/power-on sh -c "echo on > $PWR"
expect cut/visiting "3 none" "$(cat "$VISIT")"
expect cut/flushed-kept "$(sha256sum < "$TMP/A")" "$(at 0 | sha256sum)"
expect cut/unflushed-lost "$(sha256sum < "$TMP/Z")" "$(at 65536 | sha256sum)"
expect cut/never-written "$(sha256sum < "$TMP/Z")" "$(at 131072 | sha256sum)"
check cut/end sh -c "echo end > $VISIT"
expect cut/end-has-it "$(sha256sum < "$TMP/A")" "$(at 65536 | sha256sum)"
check cut/drop sh -c "echo drop > $REC"

# Power-on after an aimed cut changes the disk: refused, as a visit
# is, while a filesystem still holds it (its umount failed, say).
unload_sbd
check cut-mounted/load load_sbd nsectors=16384 cache_mb=4
# No lazy init: nothing writes in the background.
check cut-mounted/mkfs mkfs.ext4 -q -F \
	-E nodiscard,lazy_itable_init=0,lazy_journal_init=0 /dev/sbd0
check cut-mounted/mount mount /dev/sbd0 "$MNT"
check cut-mounted/start sh -c "echo 'start 8' > $REC"
aim=$(($(stat_value "$SBD_SYS"/record_stats points) + 2))
check cut-mounted/arm sh -c "echo $aim > $CUTAT"
sh -c "echo data > $MNT/f && sync" 2>/dev/null
expect cut-mounted/power-off off "$(cat "$PWR")"
write_refused cut-mounted/power-on-while-mounted "$PWR" on
expect cut-mounted/still-off off "$(cat "$PWR")"
expect cut-mounted/still-cut cut "$(cat "$REC")"
check cut-mounted/umount umount "$MNT"
check cut-mounted/power-on sh -c "echo on > $PWR"
expect cut-mounted/visiting "$aim none" "$(cat "$VISIT")"
check cut-mounted/drop sh -c "echo drop > $REC"

# A cut by hand while recording ends the recording there and shows the
# crash state of its last point under powercut_policy: a visit.
unload_sbd
check manual-cut/load load_sbd nsectors=16384 cache_mb=4
check manual-cut/start sh -c "echo 'start 8' > $REC"
wr "$TMP/A" 0 && sync /dev/sbd0 && wr "$TMP/B" 65536
check manual-cut/policy sh -c "echo none > $POL"
check manual-cut/off sh -c "echo off > $PWR"
expect manual-cut/state cut "$(cat "$REC")"
check manual-cut/on sh -c "echo on > $PWR"
expect manual-cut/visiting "3 none" "$(cat "$VISIT")"
expect manual-cut/flushed-kept "$(sha256sum < "$TMP/A")" "$(at 0 | sha256sum)"
expect manual-cut/unflushed-lost "$(sha256sum < "$TMP/Z")" "$(at 65536 | sha256sum)"
check manual-cut/end sh -c "echo end > $VISIT"
expect manual-cut/end-has-it "$(sha256sum < "$TMP/B")" "$(at 65536 | sha256sum)"

# The aimed cut at several points of a longer run: what power-on shows
# is, by hash, the visit of that point on the whole run's recording.
aim_full() {	# POINT: hash of the visit (POINT, random 3 50) of the whole run
	record_play 31 50 0 nsectors=2048 && echo "$1 random 3 50" > "$VISIT" && dev_sum
}
aim_cut() {	# POINT: hash of what power-on shows after a cut at POINT
	unload_sbd
	load_sbd nsectors=2048 cache_mb=4 && echo 'start 16' > "$REC" &&
		echo "random 3 50" > "$POL" && echo "$1" > "$CUTAT" || return
	sbd-model play /dev/sbd0 31 50 "$TMP/trace" > /dev/null
	[ "$(cat "$PWR")" = off ] && echo on > "$PWR" && dev_sum
}
for p in 7 20 41; do
	want=$(aim_full $p)
	got=$(aim_cut $p)
	check "cut/at-$p/ran" test -n "$want" -a -n "$got"
	expect "cut/at-$p/power-on-shows-the-visit" "$want" "$got"
done
unload_sbd
check cut/reload load_sbd nsectors=16384 cache_mb=4

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

# --- The export in dm-log-writes' format, against the kernel's own
# dm-log-writes target stacked on the recording disk (its log on sbd1),
# on a run whose writes overlap: the same writes, FLUSHes, FUA writes
# and marks with the same data, in the same order, but for the FUA
# writes sbd logs again; a replay of sbd's to the Kth FLUSH gives what
# sbd's visit of that point gives, and so does the target's, up to the
# first FLUSH whose epoch has a FUA write that it logged ahead of an
# older write to the same block (the wrong block then stays wrong).
lw_check() {
	check lw/load load_sbd sizes=1M,16M cache_mb=4 || return
	if ! modprobe dm-log-writes 2>/dev/null; then
		skip lw/compare "this kernel has no dm-log-writes module"
		unload_sbd
		return
	fi
	check lw/start sh -c "echo 'start 16' > $REC" || return
	check lw/create dmsetup create --noudevsync lw \
		--table "0 2048 log-writes /dev/sbd0 /dev/sbd1" || return
	dmsetup mknodes lw
	check_output lw/play '^ok played' env SBD_MODEL_DISK=sbd0 SBD_MODEL_DM=lw \
		SBD_MODEL_BLOCKS=24 sbd-model play /dev/mapper/lw 21 60 "$TMP/trace"
	# Removing the target logs what was never flushed, and a last mark.
	check lw/remove dmsetup remove --noudevsync lw
	check lw/stop sh -c "echo stop > $REC"
	check lw/visit-0 sh -c "echo '0 none' > $VISIT"
	check lw/export cp "$EXPORT" "$TMP/sbd.log"
	check lw/export-points cp "$EXPORT-points" "$TMP/sbd.map"
	dd if=/dev/sbd1 of="$TMP/kernel.log" bs=1M iflag=direct status=none
	sbd-logreplay dump "$TMP/kernel.log" | grep -v ' dm-log-writes-end$' |
		cut -d' ' -f2- > "$TMP/kernel.dump"
	sbd-logreplay dump "$TMP/sbd.log" |
		awk 'NR == FNR { if ($NF == "again") again[$1] = 1; next }
		     !($1 in again)' "$TMP/sbd.map" - | cut -d' ' -f2- > "$TMP/sbd.dump"
	check lw/kernel-log-has-entries test "$(grep -c . "$TMP/kernel.dump")" -gt 20
	same lw/same-entries-same-data-but-again "$TMP/kernel.dump" "$TMP/sbd.dump"
	# Replay each to every FLUSH; sbd visits the point of that FLUSH.
	# The FLUSHes whose epoch sbd logged a FUA write again in:
	awk '$NF == "again" { again = 1 } $3 == "flush" { print $2, again + 0; again = 0 }' \
		"$TMP/sbd.map" > "$TMP/flushes"
	_bad="" _k=0 _hit=0 _wrong=0 _first=""
	while read -r _p _again; do
		_k=$((_k + 1))
		sbd-logreplay replay "$TMP/kernel.log" 1048576 $_k "$TMP/k.img" &&
			sbd-logreplay replay "$TMP/sbd.log" 1048576 $_k "$TMP/s.img" &&
			echo "$_p none" > "$VISIT" &&
			dd if=/dev/sbd0 of="$TMP/v.img" bs=64k iflag=direct status=none ||
			{ _bad="$_bad flush $_k (point $_p): a step failed;"; continue; }
		cmp -s "$TMP/s.img" "$TMP/v.img" ||
			_bad="$_bad flush $_k (point $_p): sbd's replay differs from the visit;"
		[ "$_again" = 1 ] && _hit=$((_hit + 1)) && _first=${_first:-$_k}
		if ! cmp -s "$TMP/k.img" "$TMP/v.img"; then
			_wrong=$((_wrong + 1))
			[ -n "$_first" ] ||
				_bad="$_bad flush $_k (point $_p): the target's replay differs, before any FUA write logged early;"
		fi
	done < "$TMP/flushes"
	check lw/some-flushes test $_k -gt 3
	expect lw/replays-and-visits-agree "" "$_bad"
	echo "@@ | dm-log-writes: $(grep -c . "$TMP/kernel.dump") entries, $_k FLUSH points replayed;" \
		"$_hit with a FUA write logged again by sbd, the first at FLUSH ${_first:-none};" \
		"the target's replay differs from the visit at $_wrong"
	echo end > "$VISIT"
	unload_sbd
}
unload_sbd
lw_check

# --- Filesystems: a recorded workload that marks each file durable
# ("fN:SHA16") once its fsync and its directory's returned, replacing
# some by rename; then every FLUSH and mark point is visited, the
# filesystem mounted (journal replay), every file marked at or before
# the point checked, unmounted and fsck'd; the return, by hash.
fs_workload() {
	_i=0
	while [ $_i -lt "$2" ]; do
		_i=$((_i + 1))
		_f=f$_i
		# Every 3rd step replaces an older file by rename instead.
		[ $((_i % 3)) = 0 ] && _f=f$((_i - 2))
		head -c $((_i * 7919 % 23 * 4096 + _i * 37 % 4096 + 1)) /dev/urandom \
			> "$TMP/src"
		dd if="$TMP/src" of="$1/t$_i" bs=64k conv=fsync status=none &&
			mv "$1/t$_i" "$1/$_f" && sync "$1" || return
		echo "$_f:$(sha256sum < "$TMP/src" | cut -c1-16)" > "$MARK" || return
		# Never synced: whatever a crash leaves of it is fine.
		cp "$TMP/src" "$1/u$_i"
	done
}

# fs_explore FS SECTORS EVERY TORN MKFS...: policy none at each point,
# and "torn P" too if TORN is 1; of the FLUSH points, one in EVERY (mark
# points always).  (tests/20-explore.sh explores with sbd-explore.)
fs_explore() {
	_fs=$1 _sectors=$2 _every=$3 _torn=$4
	shift 4
	check "$_fs/load" load_sbd nsectors="$_sectors" cache_mb=16 || return
	if ! check "$_fs/mkfs" "$@" /dev/sbd0 ||
	   ! check "$_fs/mount" mount -t "$_fs" /dev/sbd0 "$MNT"; then
		unload_sbd
		return
	fi
	mkdir "$MNT/w" && sync "$MNT"
	check "$_fs/start" sh -c "echo 'start 64' > $REC"
	check "$_fs/workload" fs_workload "$MNT/w" 6
	check "$_fs/umount" umount "$MNT"
	check "$_fs/stop" sh -c "echo stop > $REC"
	_end=$(dev_sum)
	cp "$POINTS" "$TMP/listing"
	awk -v every="$_every" '$2 == "mark" || ($2 == "flush" && ++n % every == 0) { print $1 }' \
		"$TMP/listing" > "$TMP/visit"
	_bad="" _states=0 _t0=$(date +%s)
	while read -r _p; do
		_pols=none
		[ "$_torn" = 0 ] || _pols="none torn"
		for _pol in $_pols; do
			[ "$_pol" = none ] || _pol="torn $_p"
			_s="$_p $_pol"
			_states=$((_states + 1))
			if ! echo "$_s" > "$VISIT"; then
				_bad="$_bad
$_s: visit refused"
				continue
			fi
			if ! mount -t "$_fs" /dev/sbd0 "$MNT"; then
				_bad="$_bad
$_s: mount failed"
				continue
			fi
			# Each file marked by then: its last mark's data, or
			# the next version's, written (and made durable, by
			# a flush that came before its mark) after that mark.
			awk -v p="$_p" '$2 != "mark" { next }
				{ split($3, a, ":") }
				$1 <= p { s[a[1]] = a[2] }
				$1 > p && (a[1] in s) && !(a[1] in n) { n[a[1]] = a[2] }
				END { for (f in s) print f, s[f], (f in n) ? n[f] : s[f] }' \
				"$TMP/listing" > "$TMP/want"
			while read -r _f _sum _next; do
				_got=$(sha256sum < "$MNT/w/$_f" | cut -c1-16)
				[ "$_got" = "$_sum" ] || [ "$_got" = "$_next" ] ||
					_bad="$_bad
$_s: $_f (marked durable, $_sum) is not intact"
			done < "$TMP/want"
			umount "$MNT"
			case $_fs in
			ext4) _out=$(e2fsck -fn /dev/sbd0 2>&1) ;;
			xfs) _out=$(xfs_repair -n /dev/sbd0 2>&1) ;;
			esac || _bad="$_bad
$_s: fsck: $(printf '%s\n' "$_out" | tail -n 5)"
		done
	done < "$TMP/visit"
	check "$_fs/return" sh -c "echo end > $VISIT"
	expect "$_fs/end-by-hash" "$_end" "$(dev_sum)"
	check "$_fs/some-marks" test "$(grep -c ' mark ' "$TMP/listing")" = 6
	expect "$_fs/every-state-mounts-intact-fsck-clean" "" "$_bad"
	echo "@@ | $_fs: $(grep -c . "$TMP/listing") points, $_states states checked in $(($(date +%s) - _t0)) s"
	unload_sbd
}
fs_explore ext4 65536 1 1 mkfs.ext4 -q -F -E nodiscard
fs_explore xfs 655360 3 0 mkfs.xfs -q -f -K

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
