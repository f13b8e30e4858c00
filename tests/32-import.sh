# SPDX-License-Identifier: GPL-2.0
# Recordings that travel.  A recording saved as files (sbd's log-writes
# export, its map, the disk at point 0) and imported into another disk
# (sbd-import; sbd-explore --from) is the same recording: the same
# points, every state as the independent model computes it and hashing
# as the original's, the same verdicts; so is one saved on another
# kernel (tests/data/import/).  A log of the kernel's own dm-log-writes
# target, of an ext4 run, is imported in its order and explored under
# torn.  An exploration shared out (--shard I/N) and joined (--merge) is
# the whole run's, no state more or fewer.  And every import sbd cannot
# make whole is refused, the disk untouched.

# Requires: cache_mb, debugfs, ndevices, sizes; ext4 (mkfs.ext4); sbd-model, sbd-logreplay (tests/tools), sbd-statehash, sbd-import (explore/); dm-log-writes and dmsetup for the kernel's log (skipped without).
# Suite kernels: newest

EXPLORE=../explore/sbd-explore
sys() { echo "/sys/block/$1/sbd/$2"; }
dbg() { echo "/sys/kernel/debug/sbd/$1/$2"; }
to() { printf '%s\n' "$2" > "$(sys "$1" "$3")"; }
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug

# Three 8 MiB disks and a 16 MiB one (the kernel target's log), each
# with a cache.
check load load_sbd ndevices=4 sizes=8M,8M,8M,16M hardsect_size=4096 cache_mb=4 || return

# --- debugfs' fua: a pwrite of whole blocks is one FUA write, recorded
# as such; anything else is refused.
head -c 8192 /dev/urandom > "$TMP/blk"
check fua/start to sbd2 "start 1" record
check fua/write dd if="$TMP/blk" of="$(dbg sbd2 fua)" bs=8192 seek=3 conv=notrunc status=none
expect fua/one-fua-point "1 write 24576 8192 fua" "$(cat "$(dbg sbd2 points)")"
check fua/data-written sh -c "dd if=/dev/sbd2 bs=8192 skip=3 count=1 iflag=direct status=none | cmp - '$TMP/blk'"
check_fails_with fua/misaligned 'Invalid argument' \
	dd if="$TMP/blk" of="$(dbg sbd2 fua)" bs=512 count=1 conv=notrunc status=none
check_fails_with fua/beyond-the-end 'No space left' \
	dd if="$TMP/blk" of="$(dbg sbd2 fua)" bs=8192 seek=1024 count=1 conv=notrunc status=none
expect fua/refused-nothing-recorded 1 "$(grep -c . "$(dbg sbd2 points)")"
check fua/drop to sbd2 drop record

# --- sbd's own export, of a recording with overlapping FUA writes,
# discards and write-zeroes (sbd-model), imported with its map: the
# same listing, and every state of the import as the model computes.
check model/start to sbd0 "start 16" record || return
check_output model/play '^ok played' env SBD_MODEL_BLOCKS=24 sbd-model play /dev/sbd0 29 60 "$TMP/trace"
check model/stop to sbd0 stop record || return
mkdir -p "$TMP/m"
cp "$(dbg sbd0 points)" "$TMP/m/points"
check model/visit-0 to sbd0 "0 none" visit &&
	check model/export cp "$(dbg sbd0 log-writes)" "$TMP/m/log-writes" &&
	check model/map cp "$(dbg sbd0 log-writes-points)" "$TMP/m/log-writes-points" &&
	check model/point0 dd if=/dev/sbd0 of="$TMP/m/point0.img" bs=1M iflag=direct status=none &&
	check model/back-to-end to sbd0 end visit || return
# The recording must hold what the export has to get right.
_again=$(grep -c again "$TMP/m/log-writes-points")
[ "$_again" -gt 0 ] && pass model/has-fua-writes-logged-again ||
	fail model/has-fua-writes-logged-again "seed 29 gives no FUA write over an older one: choose another"
_before=$(dev_sum /dev/sbd1)
check_fails_with refuse/not-recording 'is not recording' \
	sbd-import "$TMP/m/log-writes" /dev/sbd1 "$TMP/m/log-writes-points"
expect refuse/not-recording-unchanged "$_before" "$(dev_sum /dev/sbd1)"
check model/image dd if="$TMP/m/point0.img" of=/dev/sbd1 bs=1M conv=fsync status=none
check model/import-start to sbd1 "start 16" record || return
# A map of fewer entries than the log is refused, before any write.
head -n 5 "$TMP/m/log-writes-points" > "$TMP/short-map"
check_fails_with refuse/short-map 'maps 5 entries' \
	sbd-import "$TMP/m/log-writes" /dev/sbd1 "$TMP/short-map"
expect refuse/short-map-nothing-recorded 0 "$(grep -c . "$(dbg sbd1 points)")"
check_output model/import "recorded as $(grep -c . "$TMP/m/points") points" \
	sbd-import "$TMP/m/log-writes" /dev/sbd1 "$TMP/m/log-writes-points"
check model/import-stop to sbd1 stop record
cp "$(dbg sbd1 points)" "$TMP/m/points1"
check model/same-points cmp "$TMP/m/points" "$TMP/m/points1"
check model/same-end sh -c "[ $(dev_sum /dev/sbd0) = $(dev_sum /dev/sbd1) ]"
check model/every-state-of-the-import-matches-the-model \
	sbd-model check /dev/sbd1 "$TMP/trace" "$TMP/m/points1" none all random:7:50 torn:5
check model/drop-0 to sbd0 drop record
check model/drop-1 to sbd1 drop record

# --- sbd-explore: a run saved (--save-recording) on sbd0, imported on
# sbd1 (--from): the same points, states that hash alike, the same
# verdicts, state by state.
OPTS="--fs ext4 --check @db --points all --max-points 4 --random 1 --torn 1 --no-dedup -q"
# shellcheck disable=SC2086 # $OPTS: options, split on purpose
check_output explore/record 'all [0-9]+ states passed' $EXPLORE --dev /dev/sbd0 \
	--workload @db --ops 4 --keep --save-recording --save "$TMP/s" \
	--json "$TMP/orig.json" $OPTS
for _f in points log-writes.gz log-writes-points point0.img.gz README; do
	[ -s "$TMP/s/recording/$_f" ] || _miss="${_miss:-} $_f"
done
expect explore/saved "" "${_miss:-}"
# shellcheck disable=SC2086
check_output explore/from 'all [0-9]+ states passed' $EXPLORE --dev /dev/sbd1 \
	--from "$TMP/s/recording" --keep --json "$TMP/from.json" $OPTS
cp "$(dbg sbd0 points)" "$TMP/p0"
cp "$(dbg sbd1 points)" "$TMP/p1"
check explore/same-points cmp "$TMP/p0" "$TMP/p1"
# The states, one per line: "point, kind, policy, result".
states() { grep -h '"point"' "$@" | sed 's/^ *//; s/,$//'; }
expect explore/same-verdicts "$(states "$TMP/orig.json")" "$(states "$TMP/from.json")"
_n=$(grep -c . "$TMP/p0")
_bad="" _k=0
_p=0
while [ "$_p" -le "$_n" ]; do
	# (Every policy and seed of sbd-model's recording is checked above.)
	for _pol in all "torn 4"; do
		to sbd0 "$_p $_pol" visit && to sbd1 "$_p $_pol" visit || { _bad="$_bad ($_p $_pol): visit failed"; continue; }
		_h0=$(sbd-statehash /dev/sbd0 "$TMP/p0") && _h1=$(sbd-statehash /dev/sbd1 "$TMP/p1") &&
			[ "$_h0" = "$_h1" ] || _bad="$_bad ($_p $_pol): $_h0 / $_h1"
		_k=$((_k + 1))
	done
	_p=$((_p + 1))
done
expect explore/every-state-hashes-as-the-original "" "$_bad"
echo "@@ | import: $_n points, $_k states hashed on both disks"
to sbd0 end visit
to sbd1 end visit

# --- Shares: --shard I/4 of the kept recording, joined by --merge, are
# the whole run: the same states, each once, and the same verdicts.
# shellcheck disable=SC2086
$EXPLORE --dev /dev/sbd0 --again --json "$TMP/all.json" $OPTS > "$TMP/all.out" 2>&1
_all_rc=$?
expect shard/whole-run-passes 0 "$_all_rc"
for _i in 1 2 3 4; do
	# shellcheck disable=SC2086
	check "shard/run-$_i" $EXPLORE --dev /dev/sbd0 --again --shard "$_i/4" \
		--json "$TMP/shard$_i.json" $OPTS
done
check_output shard/merge 'all [0-9]+ states passed' $EXPLORE --merge "$TMP"/shard[1234].json
expect shard/same-states "$(states "$TMP/all.json" | sort)" \
	"$(states "$TMP"/shard[1234].json | sort)"
check_fails_with shard/merge-refuses-a-missing-share 'share 2/4 is missing' \
	$EXPLORE --merge "$TMP/shard1.json" "$TMP/shard3.json" "$TMP/shard4.json"
check_fails_with shard/merge-refuses-a-share-twice 'given twice' \
	$EXPLORE --merge "$TMP"/shard[1234].json "$TMP/shard1.json"
sed 's/"points": \([0-9]*\)/"points": 1\1/' "$TMP/shard2.json" > "$TMP/other2.json"
check_fails_with shard/merge-refuses-a-share-of-another-run 'another run' \
	$EXPLORE --merge "$TMP/shard1.json" "$TMP/other2.json" "$TMP/shard3.json" "$TMP/shard4.json"
for _s in 0/4 5/4 1/0 x/4; do
	# shellcheck disable=SC2086
	check_fails_with "shard/refuses-$(echo "$_s" | tr / -)" 'expected I/N' \
		$EXPLORE --dev /dev/sbd0 --again --shard "$_s" $OPTS
done
check explore/drop-0 to sbd0 drop record
check explore/drop-1 to sbd1 drop record

# --- --from refuses what it cannot import whole, and leaves the disk.
mkdir -p "$TMP/bad"
cp "$TMP/s/recording/log-writes.gz" "$TMP/s/recording/log-writes-points" "$TMP/bad/"
head -c 1048576 /dev/zero | gzip -1 > "$TMP/bad/point0.img.gz"
_before=$(dev_sum /dev/sbd1)
# shellcheck disable=SC2086
check_fails_with refuse/from-image-of-another-size 'must be of the recorded one' \
	$EXPLORE --dev /dev/sbd1 --from "$TMP/bad" $OPTS
expect refuse/from-image-disk-unchanged "$_before" "$(dev_sum /dev/sbd1)"
expect refuse/from-image-no-recording none "$(cat "$(sys sbd1 record)")"
# shellcheck disable=SC2086
check_fails_with refuse/from-not-a-directory 'not a directory' $EXPLORE --dev /dev/sbd1 --from "$TMP/m/none" $OPTS
rm -f "$TMP/bad/log-writes.gz" "$TMP/bad/point0.img.gz"
# shellcheck disable=SC2086
check_fails_with refuse/from-dir-without-log 'no log-writes or log-writes.gz' \
	$EXPLORE --dev /dev/sbd1 --from "$TMP/bad" $OPTS

# --- The kernel's dm-log-writes target, on sbd0 with its log on sbd3,
# of files written and synced on ext4: imported into sbd1 in the log's order,
# its end is sbd0's disk, each FLUSH state is the log replayed to that
# FLUSH, and it is explored under torn.
kernel_log() {
	if ! modprobe dm-log-writes 2>/dev/null; then
		skip lw/import "this kernel has no dm-log-writes module"
		return
	fi
	# The log begins after mkfs: its states are of a filesystem.
	mkdir -p "$TMP/k"
	check lw/mkfs mkfs.ext4 -q -F -E nodiscard,lazy_itable_init=1 /dev/sbd0 &&
		check lw/point0 dd if=/dev/sbd0 of="$TMP/k/point0.img" bs=1M iflag=direct status=none || return
	check lw/create dmsetup create --noudevsync lw \
		--table "0 $((8 * 2048)) log-writes /dev/sbd0 /dev/sbd3" || return
	dmsetup mknodes lw
	if check lw/mount mount /dev/mapper/lw "$MNT"; then
		check lw/files sh -c "for i in 1 2 3 4; do head -c 20000 /dev/urandom > '$MNT'/f\$i && sync '$MNT'/f\$i || exit; done; mv '$MNT'/f1 '$MNT'/g; sync"
		check lw/mark dmsetup message lw 0 mark files-synced
		umount "$MNT"
	fi
	check lw/remove dmsetup remove --noudevsync lw || return
	dd if=/dev/sbd3 of="$TMP/k/log-writes" bs=1M iflag=direct status=none
	# shellcheck disable=SC2086
	check_output lw/explore-torn 'all [0-9]+ states passed' $EXPLORE --dev /dev/sbd1 \
		--fs ext4 --from "$TMP/k" --keep --points flush,fua,mark --random 0 --torn 2 \
		--max-points 6 --check none --save "$TMP/ks" -q --json "$TMP/k.json"
	check lw/imported-end-is-the-disk sh -c "[ $(dev_sum /dev/sbd0) = $(dev_sum /dev/sbd1) ]"
	# Each FLUSH state: the log, in its order, replayed to that FLUSH.
	grep -q ' mark files-synced$' "$(dbg sbd1 points)" && pass lw/mark-imported ||
		fail lw/mark-imported "no mark files-synced in: $(grep mark "$(dbg sbd1 points)")"
	_bad="" _k=0
	awk '$2 == "flush" { print $1 }' "$(dbg sbd1 points)" > "$TMP/flushes"
	while read -r _p; do
		_k=$((_k + 1))
		to sbd1 "$_p none" visit &&
			sbd-logreplay replay "$TMP/k/log-writes" 8388608 "$_k" "$TMP/r.img" "$TMP/k/point0.img" &&
			dd if=/dev/sbd1 bs=1M iflag=direct status=none | cmp -s - "$TMP/r.img" ||
			_bad="$_bad flush $_k (point $_p);"
	done < "$TMP/flushes"
	expect lw/flush-states-are-the-replays "" "$_bad"
	echo "@@ | dm-log-writes import: $(grep -c . "$(dbg sbd1 points)") points, $_k FLUSH states replayed"
	to sbd1 end visit
	check lw/drop to sbd1 drop record
}
kernel_log
unload_sbd || fail unload "sbd still loaded"

# --- A recording saved on another boot and kernel (tests/data/import/,
# made by scripts/make-import-fixture.sh; its README says where):
# imported here, the same points, and every state as sbd-model computes
# it from the trace of that run.
F=data/import
check fixture/load load_sbd nsectors=2048 hardsect_size=512 cache_mb=1 || return
gzip -dc "$F/log-writes.gz" > "$TMP/fixture.log"
check fixture/start to sbd0 "start 4" record &&
	check_output fixture/import "recorded as $(grep -c . "$F/points") points" \
		sbd-import "$TMP/fixture.log" /dev/sbd0 "$F/log-writes-points" &&
	check fixture/stop to sbd0 stop record || return
check fixture/same-points cmp "$F/points" "$(dbg sbd0 points)"
check fixture/every-state-matches-the-model \
	sbd-model check /dev/sbd0 "$F/trace" "$F/points" none all random:7:50 torn:5
echo "@@ | fixture: $(head -n 1 "$F/README")"
check fixture/drop to sbd0 drop record
unload_sbd || fail fixture/unload "sbd still loaded"
