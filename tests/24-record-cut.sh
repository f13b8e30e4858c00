# SPDX-License-Identifier: GPL-2.0
# Cuts while recording: cut_at aims a cut at a point of the recording
# (the power goes off as that point completes, and the writes after it
# fail), and at power-on the disk shows the crash state (POINT,
# powercut_policy), as a visit of it does; power-on is refused while a
# filesystem holds the disk.  A cut by hand while recording ends the
# recording at its last point the same way.  At several points of a
# longer run, what power-on shows is, by hash, the visit of that point
# on the whole run's recording.

# Requires: cache_mb; ext4, sbd-model (tests/tools).
# QUICK=1: in the quick run (QUICK=1 scripts/run-tests.sh).

random_file "$TMP/A" 65536
random_file "$TMP/B" 65536
head -c 65536 /dev/zero > "$TMP/Z"

# --- The aimed live cut: the power goes off as point 3 completes; the
# 4th write fails; at power on the disk is the state (3, none).
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
# After those cuts, a disk loads again.
unload_sbd
check cut/reload load_sbd nsectors=16384 cache_mb=4
