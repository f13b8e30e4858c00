# SPDX-License-Identifier: GPL-2.0
# Races of the recording's sysfs files, each run in the one order that
# shows a check made outside the lock that orders it: the sysfs writer
# waits at its pause point (debugfs sbd/sbdN/pause) while the test runs
# the other side of the race, then goes on.
#  - "record stop" while the recording fills: it stays "full" (how it
#    ended), and stop is refused.
#  - "mark" while an aimed cut fires: EINVAL, the recording has ended
#    (not ENOSPC, "out of memory"), and no point is added.
#  - "visit" while a process claims the disk (as a mount does): the
#    claim waits until the disk is in its new state.
#  - unloading sbd while a writer waits lets it go on.

# Requires: cache_mb, debugfs; sbd-claim (tests/tools).
# QUICK=1: in the quick run (QUICK=1 scripts/run-tests.sh).

PAUSE=/sys/kernel/debug/sbd/sbd0/pause

# waiting_at PATH: until a writer of PATH waits at its pause point.
# The bound only keeps a broken hook from hanging the run.
waiting_at() {
	_i=0
	while [ "$(cat "$PAUSE")" != "$1 waiting" ]; do
		_i=$((_i + 1))
		[ $_i -le 1200 ] || { echo "no writer of $1 waits: $(cat "$PAUSE")"; return 1; }
		sleep 0.1
	done
}

# bg_write FILE TEXT OUT: write TEXT into FILE in the background (its
# process: $!), dd's messages and its status into OUT.
bg_write() {
	( printf '%s\n' "$2" | dd of="$1" 2>&1; echo "status $?" ) > "$3" &
}

# --- "record stop" waits while the recording runs out of memory.
check stop-full/load load_sbd nsectors=16384 cache_mb=8
check stop-full/start sh -c "echo 'start 1' > $REC"
expect stop-full/hook-idle none "$(cat "$PAUSE")"
write_refused stop-full/hook-bad-word "$PAUSE" stopp
check stop-full/arm sh -c "echo stop > $PAUSE"
bg_write "$REC" stop "$TMP/stop.out"
stop_pid=$!
check stop-full/waiting waiting_at stop
# 2 MiB of 4 KiB writes, each saving the 4 KiB it overwrites: more
# than the 1 MiB recording holds; the cache takes the rest.
check stop-full/fill dd if=/dev/urandom of=/dev/sbd0 bs=4k count=512 oflag=direct status=none
check stop-full/release sh -c "echo none > $PAUSE"
wait $stop_pid
check stop-full/refused grep -q "Invalid argument" "$TMP/stop.out"
expect stop-full/state full "$(cat "$REC")"
expect stop-full/hook-cleared none "$(cat "$PAUSE")"
unload_sbd

# --- "mark" waits while the aimed cut fires at point 2.
check mark-cut/load load_sbd nsectors=16384 cache_mb=8
random_file "$TMP/A" 65536
check mark-cut/start sh -c "echo 'start 8' > $REC"
check mark-cut/first-write wr "$TMP/A" 0
check mark-cut/aim sh -c "echo 2 > $CUTAT"
check mark-cut/arm sh -c "echo mark > $PAUSE"
bg_write "$MARK" late "$TMP/mark.out"
mark_pid=$!
check mark-cut/waiting waiting_at mark
check mark-cut/cut-write wr "$TMP/A" 65536
expect mark-cut/power-off off "$(cat "$PWR")"
check mark-cut/release sh -c "echo none > $PAUSE"
wait $mark_pid
check mark-cut/einval grep -q "Invalid argument" "$TMP/mark.out"
expect mark-cut/state cut "$(cat "$REC")"
expect mark-cut/points 2 "$(stat_value "$SBD_SYS"/record_stats points)"
expect mark-cut/marks 0 "$(stat_value "$SBD_SYS"/record_stats marks)"
check mark-cut/power-on sh -c "echo on > $PWR"
unload_sbd

# --- "visit" waits between its holder check and the change while
# sbd-claim opens the disk exclusively.  The claim must wait (its
# process sleeps uninterruptibly, on the openers' lock) and get the disk
# only after the visit.
check visit-claim/load load_sbd nsectors=16384 cache_mb=8
check visit-claim/start sh -c "echo 'start 8' > $REC"
check visit-claim/write wr "$TMP/A" 0
check visit-claim/stop sh -c "echo stop > $REC"
check visit-claim/arm sh -c "echo visit > $PAUSE"
bg_write "$VISIT" "0 none" "$TMP/visit.out"
visit_pid=$!
check visit-claim/waiting waiting_at visit
mkfifo "$TMP/claim.in"
sbd-claim /dev/sbd0 < "$TMP/claim.in" > "$TMP/claim.out" 2>&1 &
claim_pid=$!
exec 7> "$TMP/claim.in"
# Until the claim is made or its process sleeps in D (the bound: as
# waiting_at's).
outcome=none i=0
while [ $i -le 1200 ]; do
	if grep -q claimed "$TMP/claim.out"; then
		outcome=claimed-during-visit
		break
	fi
	if [ "$(awk '{ print $3 }' "/proc/$claim_pid/stat" 2> /dev/null)" = D ]; then
		outcome=waited
		break
	fi
	i=$((i + 1))
	sleep 0.1
done
check visit-claim/release sh -c "echo none > $PAUSE"
expect visit-claim/claim-waited waited "$outcome"
wait $visit_pid
check visit-claim/visited grep -q "status 0" "$TMP/visit.out"
i=0
while ! grep -q claimed "$TMP/claim.out" && [ $i -le 1200 ]; do
	i=$((i + 1))
	sleep 0.1
done
check visit-claim/claimed-after grep -q claimed "$TMP/claim.out"
expect visit-claim/state "0 none" "$(cat "$VISIT")"
exec 7>&-
wait $claim_pid
expect visit-claim/claim-ended 0 $?
unload_sbd

# --- Unloading lets a waiting writer go on (it ends "stopped").
check unload-waiting/load load_sbd nsectors=16384 cache_mb=8
check unload-waiting/start sh -c "echo 'start 1' > $REC"
check unload-waiting/arm sh -c "echo stop > $PAUSE"
bg_write "$REC" stop "$TMP/unload.out"
stop_pid=$!
check unload-waiting/waiting waiting_at stop
check unload-waiting/unload unload_sbd
wait $stop_pid
check unload-waiting/stopped grep -q "status 0" "$TMP/unload.out"
