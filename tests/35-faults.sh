# SPDX-License-Identifier: GPL-2.0
# sbd-explore --fault: the faults of a real drive beyond the power cut,
# each in every explored state, named at the end of its policy.  Each is
# checked against what the test computes itself from plain visits:
#  - bitrot OFFSET BIT: the saved image of a failing state is the plain
#    state's but for that one bit;
#  - misdirect K OFFSET: it is the state with K lost ("lose K", which
#    34-lose.sh checks against the model) with K's bytes at OFFSET;
#  - unreadable SECTOR N: while the check runs those sectors fail a read
#    and the next ones do not; none stays bad after the run;
#  - lose K: the reproducer's visit reads back as printed.
# And Ctrl-C while an "unreadable" state is checked, and the refusals.

# Requires: cache_mb, debugfs; ext4; sbd-explore, sbd-statehash (explore/).
# Suite kernels: newest
# QUICK=0

EXPLORE=../explore/sbd-explore
SBD_SYS=/sys/block/sbd0/sbd
POINTS=/sys/kernel/debug/sbd/sbd0/points
OUT=$TMP/faults
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
mkdir -p "$OUT"

# fault_run NAME KIND [ARGS...]: sbd-explore on ext4 with --fault KIND;
# every state fails (the check exits 1) unless ARGS give a check, so
# that images are saved.  Its exit status in $rc, its output in
# $OUT/NAME.out.
fault_run() {
	_n=$1 _k=$2
	shift 2
	"$EXPLORE" --save "$OUT/$_n" --fs ext4 --workload @files --ops 4 --points flush,fua \
		--max-points 3 --random 0 --torn 1 --fault "$_k" "$@" > "$OUT/$_n.out" 2>&1
	rc=$?
}

# failed_state KIND: sbd-explore --fault KIND with a check that fails
# every state (exit 1); $state becomes "P POLICY" of the first failing
# state whose image was saved, unpacked into $TMP/faulted.img.  Its
# policy must name the fault.
failed_state() {
	fault_run "$1" "$1" --check 'exit 1'
	expect "$1/exit-1" 1 "$rc"
	_img=$(ls "$OUT/$1"/state-*.img.gz 2> /dev/null | head -n 1)
	state=""
	[ -z "$_img" ] || ! gunzip -c "$_img" > "$TMP/faulted.img" ||
		state=$(grep -m1 "image before recovery: $_img" -B 2 "$OUT/$1/reproduce" |
			sed -n 's/^FAIL (\([^)]*\)).*/\1/p')
	case $state in
	*" $1 "*) pass "$1/image-saved" ;;
	*)
		fail "$1/image-saved" "no saved image of a $1 state: $(tail -n 5 "$OUT/$1.out")"
		return 1
		;;
	esac
}
plain_image() { echo "$1" > "$VISIT" && dd if=/dev/sbd0 of="$2" bs=1M iflag=direct status=none; }

check load load_sbd nsectors=16384 hardsect_size=4096 cache_mb=16 || return

# --- bitrot
if failed_state bitrot; then
	spec=${state##* bitrot } off=${spec% *} bit=${spec#* }
	check bitrot/plain-visit plain_image "${state% bitrot *}" "$TMP/plain.img"
	# cmp -l: "BYTE OLD NEW", BYTE from 1, the values in octal.
	cmp -l "$TMP/plain.img" "$TMP/faulted.img" > "$TMP/diff"
	expect bitrot/one-byte-differs 1 "$(grep -c . "$TMP/diff")"
	read -r byte old new < "$TMP/diff"
	expect bitrot/at-the-offset $((off + 1)) "$byte"
	expect bitrot/that-bit $((1 << bit)) $(( 0$old ^ 0$new ))
fi
echo drop > "$REC"

# --- misdirect
if failed_state misdirect; then
	spec=${state##* misdirect } k=${spec% *} off=${spec#* }
	pol=${state% misdirect *}
	# shellcheck disable=SC2046 # "POS LEN": two words
	set -- $(awk -v k="$k" '$1 == k { print $3, $4 }' "$POINTS")
	check misdirect/plain-visit plain_image "$pol" "$TMP/plain.img"
	check misdirect/lost-visit plain_image "$pol lose $k" "$TMP/want.img"
	dd if="$TMP/plain.img" of="$TMP/want.img" bs=4096 skip=$(($1 / 4096)) seek=$((off / 4096)) \
		count=$(($2 / 4096)) conv=notrunc status=none
	same misdirect/k-at-offset-and-lost-at-home "$TMP/want.img" "$TMP/faulted.img"
fi
echo drop > "$REC"

# --- unreadable: the check reads the sectors (4 KiB blocks, O_DIRECT).
cat > "$TMP/lse-check" <<'CHECK'
s=${SBD_POLICY##* unreadable } n=${s#* } s=${s% *}
if dd if="$SBD_DEV" of=/dev/null bs=4096 skip=$((s / 8)) count=$((n / 8)) iflag=direct status=none 2> /dev/null; then
	echo "readable $SBD_POINT $SBD_POLICY"
else
	echo "unreadable $SBD_POINT $SBD_POLICY"
fi >> LSE_LOG
if [ $((s / 8 + n / 8)) -lt "$(($(blockdev --getsize64 "$SBD_DEV") / 4096))" ] &&
	! dd if="$SBD_DEV" of=/dev/null bs=4096 skip=$((s / 8 + n / 8)) count=1 iflag=direct status=none; then
	echo "next-unreadable $SBD_POINT $SBD_POLICY" >> LSE_LOG
fi
exit 0
CHECK
: > "$TMP/lse.log"
sed -i "s|LSE_LOG|$TMP/lse.log|" "$TMP/lse-check"
fault_run unreadable unreadable --check "sh $TMP/lse-check" --no-dedup
case $rc in
0 | 1) pass unreadable/ran ;;
*) fail unreadable/ran "exit $rc" "$(tail -n 10 "$OUT/unreadable.out")" ;;
esac
check unreadable/checked grep -q '^unreadable ' "$TMP/lse.log"
check_fails unreadable/never-readable grep -q '^readable\|^next-unreadable' "$TMP/lse.log"
expect unreadable/none-left-bad "" "$(cat "$SBD_SYS/badblocks")"
echo drop > "$REC" 2> /dev/null

# --- Ctrl-C while a state's sectors are bad: a watcher sends the SIGINT
# once it sees them marked (before the mount, which they may fail, so
# the check may never run).  sbd-explore runs in the foreground, as a
# user's would (a background job ignores SIGINT).  None stays bad,
# nothing stays mounted, the run says it was interrupted.  Had the
# state failed before the SIGINT was handled (its mount, say), the exit
# status is 1 and the recording is kept for the reproducer, else 130
# and it is dropped.
rm -f "$TMP/lse-int.pid" "$TMP/lse-int.bad"
(
	until [ -s "$TMP/lse-int.pid" ]; do sleep 0.01; done
	pid=$(cat "$TMP/lse-int.pid")
	while kill -0 "$pid" 2> /dev/null; do
		# (test -s is no use: a sysfs file's size is always a page.)
		bad=$(cat "$SBD_SYS/badblocks")
		if [ -n "$bad" ]; then
			echo "$bad" > "$TMP/lse-int.bad"
			kill -INT "$pid"
			exit
		fi
		sleep 0.01
	done
) &
watcher=$!
explore_with_pid "$TMP/lse-int.pid" --save "$OUT/lse-int" \
	--fs ext4 --workload @files --ops 4 --points flush,fua --max-points 3 --random 0 --torn 1 \
	--fault unreadable --check true > "$OUT/lse-int.out" 2>&1
rc=$? want_rc=130 want_rec=none
wait $watcher
! grep -q '^FAIL (' "$OUT/lse-int.out" || want_rc=1 want_rec=stopped
expect unreadable-int/exit-status $want_rc "$rc" || sed 's/^/@@ | /' "$OUT/lse-int.out"
check_output unreadable-int/says-interrupted interrupted cat "$OUT/lse-int.out"
check unreadable-int/armed-when-interrupted test -s "$TMP/lse-int.bad"
expect unreadable-int/none-left-bad "" "$(cat "$SBD_SYS/badblocks")"
check_fails unreadable-int/nothing-mounted grep -q " /dev/sbd0 " /proc/mounts
expect unreadable-int/recording-kept-if-failed $want_rec "$(cat "$REC")"
echo drop > "$REC" 2> /dev/null

# --- lose: what the reproducer visits reads back as printed.
fault_run lose lose --check 'exit 1'
expect lose/exit-1 1 "$rc"
repro=$(grep -m1 '^  reproduce: ' "$OUT/lose.out")
vis=$(printf '%s\n' "$repro" | sed -n "s/.* --visit '\([^']*\)'.*/\1/p")
case $vis in
*" lose "*)
	pass lose/in-the-reproducer
	check lose/visit sh -c "echo '$vis' > $VISIT"
	expect lose/reads-back "$vis" "$(cat "$VISIT")"
	;;
*) fail lose/in-the-reproducer "$repro" ;;
esac
echo end > "$VISIT"
echo drop > "$REC"

# --- Refusals.
refused kind 'kinds are lose' --fs ext4 --workload @files --fault flood
refused with-minimize 'power cut.s states alone' --fs ext4 --workload @files --fault lose --minimize 1
echo "+64 8" > "$SBD_SYS/badblocks"
refused bad-sectors-already 'bad sectors already' --fs ext4 --workload @files --fault unreadable
expect refuse/bad-sectors-kept "64 8" "$(cat "$SBD_SYS/badblocks")"
echo "-64 8" > "$SBD_SYS/badblocks"
unload_sbd
