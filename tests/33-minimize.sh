# SPDX-License-Identifier: GPL-2.0
# Failures cut down to their cause.  A visit's "only" list lets the
# policy decide the fates of the listed writes alone, every other write
# kept: every such state matches the independent model (sbd-model), and
# debugfs "fates" lists what each visit lost or tore, as the model
# computes it.  Lists sbd cannot honour are refused with EINVAL, the
# visit unchanged.  sbd-explore --minimize turns failing states into the
# one write they need lost; the reproducer of that minimal state fails
# again, and keeping the write makes it pass; a failure no lost write
# causes (@db-nodirsync's) is said to be one.  And --bisect finds, from
# a sparse run, a point that fails while the one before it passes.

# Requires: cache_mb, debugfs; ext4 (mkfs.ext4); sbd-model (tests/tools).
# Suite kernels: newest

EXPLORE=../explore/sbd-explore
SYS=/sys/block/sbd0/sbd
DBG=/sys/kernel/debug/sbd/sbd0
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug

check load load_sbd nsectors=4096 hardsect_size=4096 cache_mb=4 || return

# --- The model's states, with and without "only" lists, and the fates.
check model/start sh -c "echo 'start 16' > $SYS/record" || return
check_output model/play '^ok played' env SBD_MODEL_BLOCKS=24 sbd-model play /dev/sbd0 29 60 "$TMP/trace"
check model/stop sh -c "echo stop > $SYS/record" || return
cp "$DBG/points" "$TMP/listing"
check model/only-lists-and-fates-match-the-model \
	sbd-model check /dev/sbd0 "$TMP/trace" "$TMP/listing" torn:5@odd random:7:50@even none@odd torn:5

# --- Lists sbd cannot honour.  Point P: the last write without FUA of
# the recording, after a FLUSH F; W: a write without FUA between them.
P=$(awk '$2 == "write" && $NF != "fua" { p = $1 } END { print p }' "$TMP/listing")
F=$(awk -v p="$P" '$1 < p && $2 == "flush" { f = $1 } END { print f + 0 }' "$TMP/listing")
W=$(awk -v p="$P" -v f="$F" '$1 > f && $1 < p && ($2 == "write" || $2 == "discard" || $2 == "zeroes") && $NF != "fua" { print $1; exit }' "$TMP/listing")
FUA=$(awk -v p="$P" -v f="$F" '$1 > f && $1 < p && $NF == "fua" { print $1; exit }' "$TMP/listing")
MARK=$(awk -v p="$P" -v f="$F" '$1 > f && $1 < p && $2 == "mark" { print $1; exit }' "$TMP/listing")
echo "@@ | point $P, its FLUSH $F, a write $W, a FUA write ${FUA:-none}, a mark ${MARK:-none}"
if [ -n "$W" ]; then
	check only/visit sh -c "echo '$P torn 5 only $W $P' > $SYS/visit"
	expect only/shown "$P torn 5 only $W $P" "$(cat "$SYS/visit")"
	_fates=$(cat "$DBG/fates")
	for _bad in "$P torn 5 only" "$P torn 5 only $P $W" "$P torn 5 only $W $W" \
		"$P torn 5 onl $W" "$P torn 5 only $W x" "$P torn 5 only $((P + 1))" \
		"$W torn 5 only $P" ${F:+"$P torn 5 only $F"} ${FUA:+"$P torn 5 only $FUA"} \
		${MARK:+"$P torn 5 only $MARK"}; do
		write_refused "only/refuses-$(echo "$_bad" | tr ' ' '-')" "$SYS/visit" "$_bad"
	done
	expect only/refused-visit-unchanged "$P torn 5 only $W $P" "$(cat "$SYS/visit")"
	expect only/refused-fates-unchanged "$_fates" "$(cat "$DBG/fates")"
	# 129 points, more than a list holds.
	write_refused only/refuses-129 "$SYS/visit" "$P torn 5 only $(seq -s ' ' 1 129)"
else
	fail only/setup "no write without FUA between a FLUSH and point $P in: $(cat "$TMP/listing")"
fi
check fates/end sh -c "echo end > $SYS/visit"
check_fails fates/unreadable-at-the-end cat "$DBG/fates"
check model/drop sh -c "echo drop > $SYS/record"

# --- sbd-explore --minimize.  A file's eight blocks overwritten in
# place with O_DIRECT, then marked "written" without an fsync (the bug):
# a state that loses any of those writes fails.  --minimize cuts each
# failing state down to one write, whose reproducer fails again, and
# that passes when it is kept.  ext4 mounted with commit=600: no
# journal commit (and its FLUSH) between the writes and the mark, so
# all eight are pending there and the state "none" loses them all.
# shellcheck disable=SC2016 # expanded by the sh -c that runs them
WL='dd if=/dev/zero of=f bs=4096 count=8 status=none && sync f && sync . &&
for i in 0 1 2 3 4 5 6 7; do printf "block %d\n" $i |
dd of=f bs=4096 seek=$i count=1 conv=sync,notrunc oflag=direct status=none || exit; done &&
echo written > "$SBD_MARK"'
# shellcheck disable=SC2016
# One line: the reproducers quote it, and the test reads them by line.
CK='[ "$SBD_MARK_NAME" != written ] || for i in 0 1 2 3 4 5 6 7; do dd if=f bs=4096 skip=$i count=1 status=none | head -c 8 | grep -q "block $i" || { echo "block $i lost"; exit 1; }; done'
$EXPLORE --dev /dev/sbd0 --fs ext4 --mount-opts commit=600 --workload "$WL" --check "$CK" \
	--points mark --random 1 --torn 2 --minimize 2 --save "$TMP/s" \
	-q > "$TMP/min.out" 2>&1
_rc=$?
expect minimize/the-run-fails 1 "$_rc"
grep '^minimize\|^minimized\|^  reproduce:.*only' "$TMP/min.out" | sed 's/^/@@ | /'
# "none" fails; the seeded states fail too unless they keep all eight.
_n=$(grep -c '^minimized (' "$TMP/min.out")
[ "$_n" -ge 1 ] && grep -q '^minimized ([0-9]* none)' "$TMP/min.out" &&
	pass minimize/none-minimized ||
	fail minimize/none-minimized "$_n states minimized, none of them (P none): $(grep '^minimiz' "$TMP/min.out")"
_bad=""
grep -A1 '^minimized (' "$TMP/min.out" | grep '^  reproduce:' | sed 's/^  reproduce: //' > "$TMP/repros"
while read -r _cmd; do
	_vis=$(echo "$_cmd" | sed "s/.*--visit '\([^']*\)'.*/\1/")
	_list=${_vis#* only }
	[ "$(echo "$_list" | wc -w)" = 1 ] || _bad="$_bad ($_vis): not one write;"
	# It fails again, as the same image.
	sh -c "cd / && $(echo "$_cmd" | sed "s|^sbd-explore|$PWD/$EXPLORE|")" > "$TMP/again.out" 2>&1
	[ $? = 1 ] || _bad="$_bad ($_vis) did not fail again: $(tail -n 2 "$TMP/again.out" | tr '\n' ' ');"
	# Keeping any one of its writes makes it pass.
	for _w in $_list; do
		_rest=$(echo "$_list" | tr ' ' '\n' | grep -vx "$_w" | tr '\n' ' ')
		_state=${_vis%% only *}
		if [ -n "${_rest% }" ]; then _state="$_state only ${_rest% }"; else _state="${_state%% *} all"; fi
		$EXPLORE --dev /dev/sbd0 --fs ext4 --mount-opts commit=600 --check "$CK" \
			--visit "$_state" > "$TMP/keep.out" 2>&1 ||
			_bad="$_bad ($_state), write $_w kept, failed: $(grep FAIL "$TMP/keep.out" | head -n 1);"
	done
done < "$TMP/repros"
expect minimize/minimal-fails-again-and-each-write-matters "" "$_bad"
check minimize/drop sh -c "echo drop > $SYS/record"

# @db-nodirsync's failures are not lost writes: its marks come before
# the rename is written at all.  --minimize says so, and that is true:
# the state fails with every write kept.
$EXPLORE --dev /dev/sbd0 --fs ext4 --workload @db-nodirsync --ops 3 \
	--points mark --random 0 --torn 1 --minimize 1 --save "$TMP/n" \
	-q > "$TMP/nodir.out" 2>&1
expect minimize/nodirsync-fails 1 "$?"
_line=$(grep '^minimize' "$TMP/nodir.out")
echo "@@ | $_line"
_st=$(echo "$_line" | sed -n 's/^minimize (\([0-9]*\) .*/\1/p')
case $_line in
*"no lost write is its cause"* | *"it loses no write"*)
	$EXPLORE --dev /dev/sbd0 --fs ext4 --check @db --visit "$_st all" > "$TMP/all.out" 2>&1
	expect minimize/nodirsync-fails-with-every-write-kept 1 "$?" ;;
*) fail minimize/nodirsync-fails-with-every-write-kept "said: $_line" ;;
esac
check minimize/nodirsync-drop sh -c "echo drop > $SYS/record"

# --- --bisect: from a sparse run (4 points) to the first failing point;
# what it says, checked: that point fails, the one before it passes.
$EXPLORE --dev /dev/sbd0 --fs ext4 --workload @db-nodirsync --ops 6 \
	--points mark --max-points 3 --random 0 --torn 0 --bisect \
	--save "$TMP/b" -q > "$TMP/bisect.out" 2>&1
expect bisect/the-run-fails 1 "$?"
_line=$(grep '^first failure' "$TMP/bisect.out")
echo "@@ | $_line"
_first=$(echo "$_line" | sed -n 's/.* tries: point \([0-9]*\) .*/\1/p')
_pol=$(echo "$_line" | sed -n 's/^first failure (\([^)]*\)).*/\1/p')
_before=$(echo "$_line" | sed -n 's/.*; point \([0-9]*\), the one before it.*/\1/p')
_sampled=$(grep '^FAIL (' "$TMP/bisect.out" | head -n 1 | sed 's/^FAIL (\([0-9]*\) .*/\1/')
if [ -n "$_first" ] && [ -n "$_pol" ]; then
	[ "$_first" -le "$_sampled" ] && pass bisect/at-or-before-the-sampled-failure ||
		fail bisect/at-or-before-the-sampled-failure "first $_first, the run's first failure $_sampled"
	$EXPLORE --dev /dev/sbd0 --fs ext4 --check @db --visit "$_first $_pol" > "$TMP/first.out" 2>&1
	expect bisect/first-fails 1 "$?"
	if [ -n "$_before" ]; then
		check bisect/the-one-before-passes $EXPLORE --dev /dev/sbd0 --fs ext4 --check @db --visit "$_before $_pol"
	fi
else
	fail bisect/found "no first failure in: $(tail -n 5 "$TMP/bisect.out")"
fi
check bisect/drop sh -c "echo drop > $SYS/record"
unload_sbd || fail unload "sbd still loaded"
