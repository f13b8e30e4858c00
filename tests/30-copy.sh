# SPDX-License-Identifier: GPL-2.0
# A recording copied to another disk ("record copy DISK"): the copy's
# every state matches the independent model (sbd-model) as the
# original's does, and hashes as the original's; the two disks visit
# independently; the copy outlives the original's drop; and every copy
# sbd cannot make whole is refused with EINVAL, changing nothing.

# Requires: cache_mb, debugfs, ndevices, sizes; ext4 (mkfs.ext4); sbd-model, sbd-statehash (tests/tools and explore/).
# QUICK=1: in the quick run (QUICK=1 scripts/run-tests.sh).

POLICIES="none all random:7:50 torn:5"
sys() { echo "/sys/block/$1/sbd/$2"; }
dbg() { echo "/sys/kernel/debug/sbd/$1/$2"; }
to() { printf '%s\n' "$2" > "$(sys "$1" "$3")"; }

# Four 4 MiB disks and an 8 MiB one, each with a cache.
check load load_sbd ndevices=5 sizes=4M,4M,4M,4M,8M hardsect_size=4096 cache_mb=4 || return

# --- Refused before there is anything to copy.
write_refused refuse/no-recording "$(sys sbd1 record)" "copy sbd0"
write_refused refuse/no-such-disk "$(sys sbd1 record)" "copy sbd9"
write_refused refuse/no-name "$(sys sbd1 record)" "copy"
write_refused refuse/trailing-word "$(sys sbd1 record)" "copy sbd0 sbd2"

check start to sbd0 "start 16" record || return
check_output play '^ok played' env SBD_MODEL_BLOCKS=24 sbd-model play /dev/sbd0 29 60 "$TMP/trace"
write_refused refuse/while-recording "$(sys sbd1 record)" "copy sbd0"
check stop to sbd0 stop record || return
cp "$(dbg sbd0 points)" "$TMP/listing0"

# --- Refused: itself, a disk of another size, a disk with a recording,
# a disk that is powered off or mounted, a source away from its end.
write_refused refuse/itself "$(sys sbd0 record)" "copy sbd0"
write_refused refuse/other-size "$(sys sbd4 record)" "copy sbd0"
check refuse/start-on-2 to sbd2 "start 1" record
write_refused refuse/has-a-recording "$(sys sbd2 record)" "copy sbd0"
check refuse/drop-on-2 to sbd2 drop record
check refuse/power-off-3 to sbd3 off power
write_refused refuse/powered-off "$(sys sbd3 record)" "copy sbd0"
check refuse/power-on-3 to sbd3 on power
expect refuse/powered-off-nothing-copied none "$(cat "$(sys sbd3 record)")"
# Read-only: a read-write ext4 writes on its own (its lazy init, the
# journal), and the check compares the disk before and after.
if mkfs.ext4 -q -F /dev/sbd3 > /dev/null 2>&1 && mount -o ro /dev/sbd3 "$MNT"; then
	_before=$(dev_sum /dev/sbd3)
	write_refused refuse/mounted "$(sys sbd3 record)" "copy sbd0"
	_after=$(dev_sum /dev/sbd3)
	umount "$MNT"
	expect refuse/mounted-unchanged "$_before" "$_after"
else
	fail refuse/mounted "could not mkfs and mount /dev/sbd3"
fi
check refuse/visit-0 to sbd0 "3 none" visit
write_refused refuse/source-visiting "$(sys sbd1 record)" "copy sbd0"
check refuse/back-to-end to sbd0 end visit
# A write since the end: the store is no longer the recording's end.
check refuse/write-after-end dd if=/dev/urandom of=/dev/sbd0 bs=4096 count=1 seek=100 oflag=direct status=none
write_refused refuse/source-written "$(sys sbd1 record)" "copy sbd0"
# A visit and the return undo that write.
check refuse/undo-it to sbd0 "1 none" visit && check refuse/undo-it-end to sbd0 end visit

# --- The copy.
_end0=$(dev_sum /dev/sbd0)
check copy to sbd1 "copy sbd0" record || return
expect copy/state stopped "$(cat "$(sys sbd1 record)")"
expect copy/same-end "$_end0" "$(dev_sum /dev/sbd1)"
cp "$(dbg sbd1 points)" "$TMP/listing1"
check copy/same-points cmp "$TMP/listing0" "$TMP/listing1"
for _k in points writes flushes fua_writes marks saved_bytes memory_bytes memory_used; do
	expect "copy/stats-$_k" "$(stat_value "$(sys sbd0 record_stats)" "$_k")" \
		"$(stat_value "$(sys sbd1 record_stats)" "$_k")"
done
# shellcheck disable=SC2086 # $POLICIES: a list of words, on purpose
check copy/every-state-matches-the-model sbd-model check /dev/sbd1 "$TMP/trace" "$TMP/listing1" $POLICIES

# The same states on both disks, visited at once: they hash the same.
_n=$(grep -c . "$TMP/listing0")
_bad=""
for _p in 0 1 $((_n / 3)) $((_n / 2)) $((_n - 1)) "$_n"; do
	for _pol in none all "random 3 50" "torn 4"; do
		to sbd0 "$_p $_pol" visit && to sbd1 "$_p $_pol" visit || { _bad="$_bad ($_p $_pol): visit failed"; continue; }
		_h0=$(sbd-statehash /dev/sbd0 "$TMP/listing0") && _h1=$(sbd-statehash /dev/sbd1 "$TMP/listing1") &&
			[ "$_h0" = "$_h1" ] || _bad="$_bad ($_p $_pol): $_h0 / $_h1"
	done
done
expect copy/states-hash-the-same "" "$_bad"
# Each disk visits on its own: a write during sbd1's visit is not on sbd0.
to sbd0 end visit
check copy/write-on-copy dd if=/dev/urandom of=/dev/sbd1 bs=4096 count=4 oflag=direct status=none
expect copy/original-untouched "$_end0" "$(dev_sum /dev/sbd0)"

# --- The copy outlives the original's recording, and is copied on.
check drop-original to sbd0 drop record
check copy/back-to-end to sbd1 end visit
check copy-of-copy to sbd2 "copy sbd1" record
# (Two policies: the copy's data is what the first check covered.)
check copy-of-copy/every-state-matches-the-model sbd-model check /dev/sbd2 "$TMP/trace" "$TMP/listing1" none torn:5
check copy/after-drop-every-state-matches-the-model sbd-model check /dev/sbd1 "$TMP/trace" "$TMP/listing1" none torn:5
check drop-1 to sbd1 drop record
check drop-2 to sbd2 drop record
unload_sbd || fail unload "sbd still loaded"
