# SPDX-License-Identifier: GPL-2.0
# Writes a FLUSH need not cover: hold_writes_ms.  A FLUSH sent while a
# write is still in flight need not make it durable; with writes held,
# sbd lets such a FLUSH go first.  Checked against that contract with a
# program that fdatasyncs a write still in flight (sbd-inflight, from
# tests/tools), on the raw disk:
#  - held: the points list the FLUSH before the write, the crash state
#    at the end has lost it under "none" and holds it under "all", and
#    cache_stats counts it held and overtaken;
#  - not held (0): the write comes first and that state holds it;
#  - a held write that no FLUSH follows completes all the same;
#  - a cut with a write held: the disk waits for it, and "none" loses it;
# then sbd-explore --hold-writes on ext4: the same mistake made through
# a file is caught at its mark, its reproducer fails again, and without
# --hold-writes it passes.  And the file's contract: bad input changes
# nothing.
# A write can beat its FLUSH only if the hold (1000 ms) ends first,
# which cache_stats shows: then the run is tried again, up to 5 times.

# Requires: cache_mb, debugfs; ext4; sbd-inflight (tests/tools), sbd-explore, sbd-statehash (explore/).
# QUICK=0

EXPLORE=../explore/sbd-explore
HOLD=$SBD_SYS/hold_writes_ms
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug

check load load_sbd nsectors=4096 hardsect_size=4096 cache_mb=4 || return

# --- The file's contract.
expect file/default-0 0 "$(cat "$HOLD")"
for bad in 1001 -1 abc "" "5 5" 18446744073709551616; do
	write_refused "file/refuses-'$bad'" "$HOLD" "$bad"
done
expect file/unchanged 0 "$(cat "$HOLD")"
check file/takes-1000 sh -c "echo 1000 > $HOLD"
expect file/reads-1000 1000 "$(cat "$HOLD")"

# first_byte: the first byte of sbd0, in hex.
first_byte() { dd if=/dev/sbd0 bs=4096 count=1 iflag=direct status=none | od -An -tx1 -N1 | tr -d ' '; }

# inflight_run MS: a new recording, with hold_writes_ms MS, of block 0
# written with 0xab and fdatasynced while in flight, then mark "done";
# sets $overtaken to what cache_stats counted overtaken meanwhile.
inflight_run() {
	echo drop > "$REC" 2> /dev/null
	_o=$(stat_value "$SBD_SYS/cache_stats" overtaken_writes)
	echo "$1" > "$HOLD" && echo 'start 4' > "$REC" && sbd-inflight /dev/sbd0 0 0xab &&
		echo "done" > "$MARK" && echo stop > "$REC" || return 1
	overtaken=$(($(stat_value "$SBD_SYS/cache_stats" overtaken_writes) - _o))
}

# --- Held: the FLUSH goes first.
try=1
while inflight_run 1000 && [ "$overtaken" = 0 ] && [ $try -lt 5 ]; do
	try=$((try + 1))
done
expect held/recorded stopped "$(cat "$REC")"
expect held/overtaken-once 1 "$overtaken"
expect held/flush-listed-first "1 flush|2 write 0 4096|3 mark done" "$(paste -s -d '|' "$POINTS")"
check held/visit-end-none sh -c "echo '3 none' > $VISIT"
expect held/lost-under-none 00 "$(first_byte)"
check held/visit-end-all sh -c "echo '3 all' > $VISIT"
expect held/kept-under-all ab "$(first_byte)"
check held/visit-return sh -c "echo end > $VISIT"
expect held/end-holds-it ab "$(first_byte)"

# --- Not held: the write completes before its FLUSH is sent, and is covered.
overtaken=""
inflight_run 0
expect not-held/recorded stopped "$(cat "$REC")"
expect not-held/none-overtaken 0 "$overtaken"
expect not-held/write-listed-first "1 write 0 4096|2 flush|3 mark done" "$(paste -s -d '|' "$POINTS")"
check not-held/visit-end-none sh -c "echo '3 none' > $VISIT"
expect not-held/kept-under-none ab "$(first_byte)"
echo end > "$VISIT"
echo drop > "$REC"

# --- A held write that no FLUSH follows still completes when its hold ends.
head -c 8192 /dev/urandom > "$TMP/two"
held0=$(stat_value "$SBD_SYS/cache_stats" held_writes)
echo 1000 > "$HOLD"
check alone/completes dd if="$TMP/two" of=/dev/sbd0 bs=4096 seek=8 oflag=direct conv=notrunc status=none
expect alone/held-two $((held0 + 2)) "$(stat_value "$SBD_SYS/cache_stats" held_writes)"
dd if=/dev/sbd0 of="$TMP/back" bs=4096 skip=8 count=2 iflag=direct status=none
same alone/reads-back "$TMP/two" "$TMP/back"

# --- A cut while a write is held: the power switch waits for it (the
# queue freezes), and under "none" the cut loses it as any write not
# covered by a FLUSH, whether its hold had ended or not.
sync /dev/sbd0
echo none > "$POL"
held0=$(stat_value "$SBD_SYS/cache_stats" held_writes)
dd if="$TMP/two" of=/dev/sbd0 bs=8192 seek=8 oflag=direct conv=notrunc status=none &
writer=$!
while [ "$(stat_value "$SBD_SYS/cache_stats" held_writes)" = "$held0" ] && kill -0 $writer 2> /dev/null; do
	sleep 0.01
done
check cut/power-off power off
wait $writer
expect cut/writer-acknowledged 0 $?
check cut/power-on power on
dd if=/dev/sbd0 of="$TMP/back" bs=8192 skip=8 count=1 iflag=direct status=none
head -c 8192 /dev/zero > "$TMP/zero"
same cut/lost-under-none "$TMP/zero" "$TMP/back"
echo 0 > "$HOLD"
unload_sbd

# --- sbd-explore --hold-writes: a file's block written through O_DIRECT
# and fdatasynced while in flight, marked as fdatasync returns.  The
# check wants it at the mark.  Nothing else may send a FLUSH before the
# mark (one would cover the write once it completed): no journal commit
# on a timer, no inode tables zeroed in the background.
check explore/load load_sbd nsectors=16384 hardsect_size=4096 cache_mb=16 || return
# shellcheck disable=SC2016 # expanded by the workload's shell
WL='head -c 65536 /dev/zero > f && sync && sbd-inflight f 0 0xab "$SBD_MARK" wrote'
# shellcheck disable=SC2016 # expanded by the check's shell
CK='[ "$SBD_MARK_NAME" != wrote ] || [ "$(od -An -tx1 -N1 f | tr -d " ")" = ab ]'
explore() {
	_n=$1
	shift
	"$EXPLORE" --save "$TMP/ovt-$_n" --fs ext4 --mkfs-opts '-E lazy_itable_init=0' \
		--mount-opts commit=600 --points mark --random 0 --torn 0 \
		--workload "$WL" --check "$CK" "$@" > "$TMP/ovt-$_n.out" 2>&1
	rc=$?
}
try=1
while explore held --hold-writes 1000 &&
	grep -q 'writes held, 0 of them overtaken' "$TMP/ovt-held.out" && [ $try -lt 5 ]; do
	try=$((try + 1))
done
expect explore/held-exit-1 1 "$rc" || sed 's/^/@@ | /' "$TMP/ovt-held.out"
check_output explore/held-reported '^--hold-writes 1000: [0-9]+ writes held, [1-9][0-9]* of them overtaken by a FLUSH$' \
	cat "$TMP/ovt-held.out"
check_output explore/caught-at-mark-none '^FAIL \([0-9]+ none\)' cat "$TMP/ovt-held.out"
expect explore/hold-set-back 0 "$(cat "$HOLD")"
repro=$(grep -m1 '^  reproduce: ' "$TMP/ovt-held.out" | sed 's/^  reproduce: sbd-explore //')
check explore/reproducer-printed test -n "$repro"
repro_out=$(eval "$EXPLORE $repro" 2>&1)
expect explore/reproducer-fails-again 1 "$?" || printf '%s\n' "$repro_out" | sed 's/^/@@ | /'
echo end > "$VISIT" 2> /dev/null
echo drop > "$REC"
explore plain
expect explore/plain-passes 0 "$rc" || tail -n 20 "$TMP/ovt-plain.out" | sed 's/^/@@ | /'
# Interrupted while the workload runs (the workload sends the SIGINT:
# no timing): the disk gets back the value it had before, not 0.
echo 7 > "$HOLD"
explore_with_pid "$TMP/ovt-int.pid" --save "$TMP/ovt-int" \
	--fs ext4 --points mark --random 0 --torn 0 --hold-writes 1000 --check true \
	--workload "head -c 4096 /dev/zero > f && kill -INT \$(cat $TMP/ovt-int.pid)" > "$TMP/ovt-int.out" 2>&1
expect explore/interrupted-exit-130 130 "$?" || tail -n 20 "$TMP/ovt-int.out" | sed 's/^/@@ | /'
expect explore/interrupted-hold-set-back 7 "$(cat "$HOLD")"
echo 0 > "$HOLD"
refused hold-with-from 'not with --from' --fs ext4 --from "$TMP" --hold-writes 5
refused hold-too-long 'at most 1000' --fs ext4 --workload true --hold-writes 1001
unload_sbd
