# SPDX-License-Identifier: GPL-2.0
# Whose failure a verdict rests on.  sbd-corpus judges an application
# by its check alone: a state whose mount or fsck failed is the file
# system's failure, and one whose check could not run was not checked;
# neither may pass or catch a case.  Small cases made here, each on
# ext4: fsck fails every state (fsck-only: expected pass, then caught),
# the check cannot run (unchecked), and the check fails the last step while
# fsck fails the rest (check-and-fs: caught, by the check's reproducer).
# Then Ctrl-C, which must stop the corpus, not only its case.

# Requires: sbd.ko, cache_mb; the root's mkfs.ext4 and setsid;
# sbd-corpus, sbd-explore.
# QUICK=1: in the quick run (QUICK=1 scripts/run-apps.sh).

check load load_sbd ndevices=2 nsectors=262144 cache_mb=32 || return
_corpus=$TMP/verdicts/cases
rm -rf "$TMP/verdicts" && mkdir -p "$_corpus" || return
# new_case NAME EXPECT OPTIONS CHECK: a case whose workload writes three
# files, each synced and marked (n:1 to n:3).
new_case() {
	mkdir "$_corpus/$1" && cat > "$_corpus/$1/case" <<-EOF &&
	APP=sh
	CONFIG="echo, then sync"
	LEVEL=durable
	EXPECT=$2
	OPTIONS="--max-points 3 --random 0 --torn 0 $3"
	EOF
	cat > "$_corpus/$1/workload" <<-'EOF' &&
	echo init > "$SBD_MARK" || exit 1
	for i in 1 2 3; do
		echo "$i" > "f$i" && sync && echo "n:$i" > "$SBD_MARK" || exit 1
	done
	EOF
	printf '%s\n' "$4" > "$_corpus/$1/check"
}
# Its check fails the states after the last step's mark (the last point
# is always explored), fsck the others (a third of the way in, the
# first explored, is before it).
# shellcheck disable=SC2016 # the check's own $SBD_MARK_NAME
_loses_step3='[ "$SBD_MARK_NAME" != n:3 ] || { echo "step 3 is judged lost"; exit 1; }'
new_case fsck-only pass "--fsck false" "exit 0" &&
	new_case fsck-only-caught caught "--fsck false" "exit 0" &&
	new_case unchecked caught "" "exit 126" &&
	new_case check-and-fs caught "--fsck false" "$_loses_step3" || {
	fail cases "cannot write the cases under $_corpus"
	return
}
sbd-corpus --cases "$_corpus" --fs ext4 --dev /dev/sbd0,/dev/sbd1 \
	--save "$TMP/verdicts/out" > "$TMP/verdicts.out" 2>&1
_rc=$?
sed 's/^/@@ | /' "$TMP/verdicts.out"
# line ID: sbd-corpus's result line for ID, to its second colon, its
# counts of states (which the recording's timing may change) as N.
line() {
	grep "^[a-zA-Z]* $1[: ]" "$TMP/verdicts.out" | cut -d: -f1-2 |
		sed -E 's/[0-9]+ (states|checked)/N \1/g; s/, in [0-9.]+ s.*//'
}
_nv="no verdict on the application"
expect fsck-only "FAIL fsck-only/ext4: $_nv (expected pass)" "$(line fsck-only/ext4)"
expect fsck-only-caught "FAIL fsck-only-caught/ext4: $_nv (expected caught)" \
	"$(line fsck-only-caught/ext4)"
expect unchecked "FAIL unchecked/ext4: N states could not be checked" "$(line unchecked/ext4)"
expect check-and-fs "ok check-and-fs/ext4 caught, and its reproducer fails again (N states, N checked" \
	"$(line check-and-fs/ext4)"
# The reproducer it ran is the check's failure, not the file system's.
check check-and-fs/reproducer grep -q '^FAIL (.*: check failed: step 3 is judged lost' \
	"$TMP/verdicts/out/check-and-fs-ext4/reproduce.log"
check check-and-fs/counts grep -q '^ok check-and-fs/ext4 caught.*(and [0-9]* states the file system failed: ' \
	"$TMP/verdicts.out"
expect exit-status 1 "$_rc"

# --- Ctrl-C: the terminal's SIGINT goes to sbd-corpus, sbd-explore and
# the check alike (one process group); here the check of the second
# state sends it (no timing).  The corpus stops once sbd-explore has
# cleaned up: exit 130, the case a FAIL, the next case never run,
# nothing mounted, no recording left on either disk, no process left.
_int=$TMP/verdicts/int
_corpus=$_int/cases
mkdir -p "$_corpus" || return
new_case first pass "" "[ -e $_int.checked ] && kill -INT -\$(cat $_int.pgid); : > $_int.checked" &&
	new_case second pass "" "exit 0" || {
	fail int/cases "cannot write the cases under $_corpus"
	return
}
# shellcheck disable=SC2016 # $$ and $1: the inner shell's
setsid -w sh -c 'echo $$ > "$1"; shift; exec "$@"' sh "$_int.pgid" \
	sbd-corpus --cases "$_corpus" --fs ext4 --dev /dev/sbd0,/dev/sbd1 \
	--save "$_int/out" > "$_int.out" 2>&1
_rc=$?
sed 's/^/@@ | /' "$_int.out"
expect int/exit-130 130 "$_rc"
check int/case-failed grep -q '^FAIL first/ext4: interrupted' "$_int.out"
expect int/one-line-counted "0 passed, 1 failed, 0 skipped" "$(tail -n 1 "$_int.out")"
check_fails int/next-case-not-run grep -q 'second/' "$_int.out"
check_fails int/nothing-mounted grep -q "^/dev/sbd[01] " /proc/mounts
expect int/recordings-dropped "none none" \
	"$(cat /sys/block/sbd0/sbd/record) $(cat /sys/block/sbd1/sbd/record)"
check_fails int/no-process-left kill -0 -- "-$(cat "$_int.pgid")"
unload_sbd || fail unload "sbd still loaded"
