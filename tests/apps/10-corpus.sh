# SPDX-License-Identifier: GPL-2.0
# The application corpus (explore/cases), its quick subset: each case
# recorded on ext4 and explored by sbd-explore through sbd-corpus, its
# verdict judged against what the application's documentation promises
# (a "caught" case's reproducer must fail again).  SBD_CORPUS_ALL=1 (the
# corpus soak) runs every case on ext4 and xfs instead; SBD_CORPUS_CASES
# names the cases to run (the suite's share, run-tests.sh; a soak's).

# Requires: sbd.ko, cache_mb, debugfs; the root's applications (each
# case's NEEDS, else it is skipped); sbd-corpus, sbd-explore.
# QUICK=1: in the quick run (QUICK=1 scripts/run-apps.sh).

# Two disks: sbd-explore explores each case on both at once
# (SBD_CORPUS_JOBS=1: on one, for the pace of -j 1).
check load load_sbd ndevices=2 nsectors=1048576 cache_mb=64 || return
_devs=/dev/sbd0,/dev/sbd1
[ "${SBD_CORPUS_JOBS:-2}" != 1 ] || _devs=/dev/sbd0
# SBD_CORPUS_CASES=A,B: only those cases, with the quick run's states
# or, with SBD_CORPUS_ALL=1 too, the soak's.
_cases=$(echo "${SBD_CORPUS_CASES:-}" | tr , ' ')
if [ "${SBD_CORPUS_ALL:-0}" = 1 ]; then
	_which="--fs ext4,xfs"
else
	_which="--quick --fs ext4"
fi
# Where a long case is: every 5 minutes, the newest progress line of
# the run going on (its log is the newest), as evidence, not a verdict.
# The sleep holds no output open: killing the loop ends the output.
mkdir -p "$TMP/corpus"
while sleep 300 > /dev/null 2>&1; do
	_log=$(ls -t "$TMP"/corpus/*/explore.log 2> /dev/null | head -n 1)
	[ -z "$_log" ] ||
		echo "@@ | $(basename "$(dirname "$_log")"): $(grep -E '^(progress|sbd-explore):' "$_log" | tail -n 1)"
done &
_heartbeat=$!
# save_case DIR: a case run (sbd-corpus's DIR) that failed states, for a
# bug report: its reproducers, log, recording and the first failure's
# image, to the host's share (run-apps.sh's $SBD_OUT/apps/TIER/saved/corpus/).
save_case() {
	[ -d /var/sbd-saved ] && [ -s "$1/reproduce" ] || return 0
	_to=/var/sbd-saved/corpus/${1##*/}
	_img=$(sed -n 's/^ *image before recovery: //p' "$1/reproduce" | head -n 1)
	mkdir -p "$_to" && cp -r "$1/reproduce" "$1/explore.log" "$1/recording" "$_to/" &&
		{ [ -z "$_img" ] || cp "$_img" "$_to/"; } ||
		echo "@@ | ${1##*/}: could not save its failures to the host"
}
# sbd-corpus's own lines, counted as each case ends, so that a soak cut
# short keeps the verdicts it reached; its status passes the pipe in a
# file.
# shellcheck disable=SC2086 # options and case names, split on purpose
{
	sbd-corpus $_which --dev "$_devs" --save "$TMP/corpus" \
		--junit "$TMP/corpus.xml" $_cases 2>&1
	echo $? > "$TMP/corpus.rc"
} | tee "$TMP/corpus.out" | while read -r _kind _id _rest; do
	# CASE/FS's run is in CASE-FS.
	_id=${_id%:}
	_dir=$TMP/corpus/$(echo "$_id" | tr / -)
	case $_kind in
	ok) pass "$_id"; echo "@@ | $_rest" ;;
	FAIL) fail "$_id" "$_rest" \
		"$(grep -v '^ *$' "$_dir/explore.log" 2> /dev/null | tail -n 12)" ;;
	skip) skip "$_id" "$_rest" ;;
	esac
	[ "$_kind" = skip ] || save_case "$_dir"
done
kill "$_heartbeat"
_rc=$(cat "$TMP/corpus.rc" 2> /dev/null)
expect exit-status "$([ "$(grep -c '^FAIL ' "$TMP/corpus.out")" = 0 ] && echo 0 || echo 1)" "$_rc"
check junit grep -q '<testsuite name="sbd-corpus"' "$TMP/corpus.xml"
unload_sbd || fail unload "sbd still loaded"
