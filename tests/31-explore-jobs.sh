# SPDX-License-Identifier: GPL-2.0
# sbd-explore --jobs: one recording explored on several disks at once,
# each holding a copy ("record copy").  Every state is explored exactly
# once, and the verdicts are those of one job on the same recording
# (--again explores a kept recording again); the reproducers name the
# disk that keeps the recording; the copies are gone afterwards, also
# after an interrupt; disks that cannot take a copy are refused before
# anything is touched.  --json lists every state.  A process left in the
# mount stops the run, named, and is left running.  xfs's copies (one
# UUID) are mounted at once; btrfs's (one fsid) are refused.

# Requires: cache_mb, debugfs, ndevices, sizes; ext4, xfs; sbd-explore, sbd-statehash (explore/).
# Suite kernels: 6.1 newest
# QUICK=0

# shellcheck disable=SC2086 # $STATES: the explorer's options, split on purpose
EXPLORE=../explore/sbd-explore
OUT=$TMP/jobs
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
rec() { cat "/sys/block/$1/sbd/record"; }
mkdir -p "$OUT"

# explore NAME WANT-EXIT ARGS...: run sbd-explore, output in $OUT/NAME.out.
explore() {
	_n=$1 _want=$2
	shift 2
	"$EXPLORE" --save "$OUT/$_n" --json "$OUT/$_n.json" "$@" > "$OUT/$_n.out" 2>&1
	_rc=$?
	expect "$_n/exit-$_want" "$_want" "$_rc" || sed 's/^/@@ | /' "$OUT/$_n.out" | tail -n 30
}
# states NAME: "POINT POLICY RESULT" of each state of NAME's JSON, sorted.
states() {
	sed -n 's/.*"point": \([0-9]*\), "kind": "[a-z]*", "policy": "\([^"]*\)", "result": "\([a-z]*\)".*/\1 \2 \3/p' \
		"$OUT/$1.json" | sort
}

check load load_sbd ndevices=4 sizes=32M,32M,32M,16M hardsect_size=4096 cache_mb=16 || return
# Marks, where @db-nodirsync loses the version whose rename no fsync
# has carried yet; ext4 mounted with commit=600, so that no timed
# journal commit carries it either, however slowly the workload runs.
# (Spread over flush, fua and mark points, the 3 chosen were no mark
# at all on a busy machine, where the timer's commits added flushes.)
DEDUPED="--fs ext4 --mount-opts commit=600 --check @db --points mark --max-points 3 --random 1 --torn 1 -q"
STATES="$DEDUPED --no-dedup"

# --- One job records and explores, and keeps the recording.
explore one 1 --dev /dev/sbd0 --workload @db-nodirsync --ops 4 --keep $STATES || return
expect one/kept stopped "$(rec sbd0)"
_total=$(states one | grep -c .)
check one/states-listed test "$_total" -ge 12

# --- The same recording, two jobs: the same states, each once, the
# same verdicts; the copy is gone; the reproducers name sbd0.
explore two 1 --again --dev /dev/sbd0,/dev/sbd1 $STATES
expect two/same-verdicts "$(states one)" "$(states two)"
expect two/each-state-once "" "$(states two | awk '{ print $1, $2, $3, $4 }' | sort | uniq -d)"
expect two/copy-dropped none "$(rec sbd1)"
expect two/recording-kept stopped "$(rec sbd0)"
expect two/reproducers-name-the-kept-disk 0 "$(grep -c 'reproduce: .*--dev /dev/sbd1' "$OUT/two/reproduce")"
_repro=$(sed -n 's/^  reproduce: sbd-explore //p' "$OUT/two/reproduce" | head -n 1)
if [ -n "$_repro" ]; then
	# shellcheck disable=SC2086 # the reproducer's words, as printed
	eval "\"$EXPLORE\" $_repro" > "$OUT/repro.out" 2>&1
	expect two/reproducer-fails-again 1 "$?"
else
	fail two/reproducer-fails-again "no reproducer in $OUT/two/reproduce"
fi

# Three disks, three jobs.
explore three 1 --again --dev /dev/sbd0,/dev/sbd1,/dev/sbd2 $STATES
expect three/same-verdicts "$(states one)" "$(states three)"
expect three/copies-dropped "none none" "$(rec sbd1) $(rec sbd2)"

# --- Identical states, checked once in the whole run: the jobs share
# what was checked, so two check and skip as many as one does.
# counts NAME: "passed failed errors skipped" of NAME's JSON.
counts() {
	sed -n 's/.*"passed": \([0-9]*\), "failed": \([0-9]*\), "errors": \([0-9]*\), "skipped": \([0-9]*\),.*/\1 \2 \3 \4/p' \
		"$OUT/$1.json"
}
explore dedup-one 1 --again --dev /dev/sbd0 $DEDUPED
explore dedup-two 1 --again --dev /dev/sbd0,/dev/sbd1 $DEDUPED
_one=$(counts dedup-one)
check dedup/some-skipped test "${_one##* }" -gt 0
expect dedup/two-check-what-one-checks "$_one" "$(counts dedup-two)"

# --- Refused, with nothing touched.
_sum3=$(dev_sum /dev/sbd3)
refused other-size "not of /dev/sbd0's size" --again --dev /dev/sbd0,/dev/sbd3 $STATES
expect refuse/other-size-untouched "none $_sum3" "$(rec sbd3) $(dev_sum /dev/sbd3)"
refused twice "twice" --again --dev /dev/sbd0,/dev/sbd0 $STATES
refused too-many-jobs "needs 3 disks" --again --dev /dev/sbd0,/dev/sbd1 --jobs 3 $STATES
refused profile "profile" --again --dev /dev/sbd0,/dev/sbd1 --profile $STATES
refused again-and-workload "give no --workload" --again --workload @db $STATES
echo 'start 1' > /sys/block/sbd1/sbd/record
refused holds-a-recording "already holds a recording" --again --dev /dev/sbd0,/dev/sbd1 $STATES
expect refuse/holds-a-recording-untouched recording "$(rec sbd1)"
echo stop > /sys/block/sbd1/sbd/record
echo drop > /sys/block/sbd1/sbd/record

# --- Interrupted: the check of the second state sends the SIGINT (no
# timing); the jobs stop, nothing stays mounted, the copy goes, the
# kept recording stays, at its end.
cat > "$OUT/int-check" <<'INT'
if [ -e "$1.checked" ]; then
	kill -INT "$(cat "$1.pid")"
	exit 0
fi
: > "$1.checked"
INT
rm -f "$OUT/int.checked"
explore_with_pid "$OUT/int.pid" --again \
	--dev /dev/sbd0,/dev/sbd1 --fs ext4 --check "sh $OUT/int-check $OUT/int" --points mark \
	--max-points 4 --random 0 --torn 0 --no-dedup --save "$OUT/int" > "$OUT/int.out" 2>&1
expect int/exit-130 130 "$?" || sed 's/^/@@ | /' "$OUT/int.out"
check_fails int/nothing-mounted grep -q "^/dev/sbd[01] " /proc/mounts
expect int/copy-dropped none "$(rec sbd1)"
expect int/recording-kept "stopped end" "$(rec sbd0) $(cat /sys/block/sbd0/sbd/visit)"

# --- A check that leaves a process in the mount: the run stops and says
# which process holds it, and leaves it running (it did not start it as
# a server it knows); the test then stops it and cleans up.
"$EXPLORE" --again --dev /dev/sbd0 --fs ext4 --check 'sleep 600 > /dev/null 2>&1 &' --points mark \
	--max-points 1 --random 0 --torn 0 --save "$OUT/held" > "$OUT/held.out" 2>&1
expect held/exit-2 2 "$?" || sed 's/^/@@ | /' "$OUT/held.out"
check_output held/names-the-holder 'held by: [0-9]* sleep 600' cat "$OUT/held.out"
_pid=$(sed -n 's/.*held by: \([0-9]*\) sleep 600.*/\1/p' "$OUT/held.out" | head -n 1)
check held/holder-left-running kill -0 "${_pid:-0}"
[ -z "$_pid" ] || kill "$_pid"
while [ -n "$_pid" ] && kill -0 "$_pid" 2> /dev/null; do sleep 0.1; done
grep -q "^/dev/sbd0 " /proc/mounts && umount "$(awk '$1 == "/dev/sbd0" { print $2; exit }' /proc/mounts)"
echo end > /sys/block/sbd0/sbd/visit
expect held/recording-kept stopped "$(rec sbd0)"

echo drop > /sys/block/sbd0/sbd/record
# btrfs: copies of one file system on several disks share its fsid, and
# a mount of one may give another's: refused.
refused btrfs-jobs "explores on one disk" --dev /dev/sbd0,/dev/sbd1 --workload @db $STATES --fs btrfs
unload_sbd || fail unload "sbd still loaded"

# --- xfs on two disks: both hold one file system (one UUID), and the
# jobs' states, one each (a mark under none and under all), are mounted
# at once: each state's check waits until the other disk is mounted too,
# or until the other check saw this one mounted (it may have unmounted
# since), at most 300 s, which only a broken explorer makes it wait;
# both must pass.
check xfs/load load_sbd ndevices=2 nsectors=655360 cache_mb=32 || return
rm -f "$OUT"/saw-sbd*
cat > "$OUT/both-mounted" <<BOTH
case \$SBD_DEV in */sbd0) _me=sbd0 _other=sbd1 ;; *) _me=sbd1 _other=sbd0 ;; esac
_n=0
until grep -q "^/dev/\$_other " /proc/mounts || [ -e "$OUT/saw-\$_other" ] || [ \$_n -ge 3000 ]; do
	sleep 0.1
	_n=\$((_n + 1))
done
! grep -q "^/dev/\$_other " /proc/mounts || : > "$OUT/saw-\$_me"
BOTH
explore xfs-jobs 0 --dev /dev/sbd0,/dev/sbd1 --fs xfs --workload @db --ops 2 \
	--check "sh $OUT/both-mounted" --points mark --max-points 1 --random 0 --torn 0 --no-dedup
expect xfs-jobs/states "2 2" "$(states xfs-jobs | awk '$3 == "pass" { n++ } END { print NR, n + 0 }')"
check xfs-jobs/mounted-at-once test -e "$OUT/saw-sbd0" -o -e "$OUT/saw-sbd1"
expect xfs-jobs/copy-dropped none "$(rec sbd1)"
unload_sbd || fail unload "sbd still loaded"
