# SPDX-License-Identifier: GPL-2.0
# sbd-explore (explore/sbd-explore, the user command scripts/sbd-explore):
# it finds its built-in workloads beside itself, through a link too, or
# in SBD_EXPLORE_LIB, and refuses a built-in without them;
# bad arguments and disks that are not sbd's with a cache are refused
# before anything is touched; a short exploration of ext4 and xfs with
# the durable-files workload passes, and of ext4 with the metadata-heavy
# one; an interrupted run cleans up; ext4 mounted with barrier=0 (no
# flushes) is reported failing, and a printed reproducer reproduces the
# state by hash, on the kept recording and from the saved image; the
# application example's variant without the directory's fsync fails
# on ext4 and xfs where the correct one passes.
# --points write explores discards (and write-zeroes) too.
# --profile adds where the time went; without it, the summary has one
# time line.  busybox's sh runs it as dash does.
# An --mnt where something is mounted already is refused and left alone.
# A state whose hash cannot be taken is an error: failed, never passed
# or skipped.
# Interrupted once a state failed, or with --keep, it keeps what it
# found: the recording, the reproducers and their files.

# Requires: cache_mb, debugfs; ext4, xfs, btrfs, brd; sbd-explore, sbd-statehash (explore/).
# Suite kernels: newest
# QUICK=0

EXPLORE=../explore/sbd-explore
SBD_SYS=/sys/block/sbd0/sbd
OUT=$TMP/explore
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
dev_sum() { dd if=/dev/sbd0 bs=64k iflag=direct status=none | sha256sum | cut -c1-64; }

# explore NAME WANT-EXIT ARGS...: run sbd-explore, its output in
# $OUT.NAME; the exit status must be WANT-EXIT.
explore() {
	_n=$1 _want=$2
	shift 2
	"$EXPLORE" --save "$OUT/$_n" "$@" > "$OUT.$_n" 2>&1
	_rc=$?
	sed -n '/^point /,$p' "$OUT.$_n" | sed 's/^/@@ | /'
	if [ $_rc = "$_want" ]; then
		pass "$_n/exit-$_want"
	else
		fail "$_n/exit-$_want" "sbd-explore $* exited $_rc" "$(tail -n 30 "$OUT.$_n")"
		# What it kept for its reproducers would stop the next run.
		echo drop > $SBD_SYS/record 2>/dev/null
		return 1
	fi
}

mkdir -p "$OUT"
# mounted DIR: something is mounted at DIR (/proc/mounts writes a blank
# as \040; the VM has no mountpoint command).
mounted() { grep -qF " $(printf '%s' "$1" | sed 's/ /\\040/g') " /proc/mounts; }
check help sh -c "$EXPLORE --help | grep -q '^Usage: sbd-explore'"

# --- Where the built-in workloads are: beside sbd-explore, also when it
# is reached through a link (scripts/sbd-explore is one); in
# SBD_EXPLORE_LIB if that is set.  A copy with neither (and none
# installed) refuses a built-in, and only a built-in.
tree_explore=$(cd "$(dirname "$EXPLORE")" && pwd -P)
mkdir -p "$TMP/link" "$TMP/alone"
ln -sf "$tree_explore/sbd-explore" "$TMP/link/sbd-explore"
cp "$EXPLORE" "$TMP/alone/sbd-explore"
explore_in_tree=$EXPLORE
EXPLORE=$TMP/link/sbd-explore
refused builtins-through-a-link 'built-ins are .*@files' --fs ext4 --workload @no-such
EXPLORE=$TMP/alone/sbd-explore
refused builtins-missing 'no built-in workloads: no workloads/ directory beside' \
	--fs ext4 --workload @files
refused builtins-missing-check 'no built-in workloads' --fs ext4 --workload true --check @files
refused builtins-not-needed 'is not a block device' --dev /tmp --fs ext4 --workload true
SBD_EXPLORE_LIB=$tree_explore
export SBD_EXPLORE_LIB
refused builtins-from-SBD_EXPLORE_LIB 'built-ins are .*@files' --fs ext4 --workload @no-such
SBD_EXPLORE_LIB=$TMP
refused builtins-not-in-SBD_EXPLORE_LIB "SBD_EXPLORE_LIB=$TMP has no workloads/" \
	--fs ext4 --workload @files
unset SBD_EXPLORE_LIB
EXPLORE=$explore_in_tree

# --- Refusals, before any disk is touched: the disk keeps its data and
# no recording is started.
check refuse/load load_sbd nsectors=8192 cache_mb=4 || return
random_file "$TMP/data" 4194304
dd if="$TMP/data" of=/dev/sbd0 bs=1M oflag=direct status=none
sync /dev/sbd0
before=$(dev_sum)
refused no-args 'fs is required'
refused no-fs 'fs is required' --workload @files
refused bad-fs 'use ext4, xfs or btrfs' --fs ext3 --workload @files
refused no-workload 'workload is required' --fs ext4
refused bad-builtin 'built-ins are' --fs ext4 --workload @nothing
refused bad-number 'not a number' --fs ext4 --workload @files --random x
refused bad-points 'kinds are' --fs ext4 --workload @files --points flush,bogus
refused unknown-option 'unknown argument' --fs ext4 --workload @files --frobnicate
refused missing-value 'needs a value' --fs ext4 --workload @files --seed
refused expect-without-visit 'goes with --visit' --fs ext4 --workload @files --expect 00
refused visit-without-recording 'no finished recording' --fs ext4 --visit '1 none'
refused not-a-block-device 'not a block device' --dev /tmp --fs ext4 --workload @files
if modprobe brd rd_nr=1 rd_size=4096 2>/dev/null; then
	refused not-sbd 'not an sbd disk' --dev /dev/ram0 --fs ext4 --workload @files
	rmmod brd
fi
mkfs.ext4 -q -F /dev/sbd0 && mount /dev/sbd0 "$MNT" &&
	refused mounted 'is mounted' --fs ext4 --workload @files
umount "$MNT" 2>/dev/null
dd if="$TMP/data" of=/dev/sbd0 bs=1M oflag=direct status=none
sync /dev/sbd0
echo off > $SBD_SYS/power
refused power-off 'power is off' --fs ext4 --workload @files
echo on > $SBD_SYS/power
echo 'start 4' > $SBD_SYS/record
refused has-recording 'already holds a recording' --fs ext4 --workload @files
echo stop > $SBD_SYS/record
echo drop > $SBD_SYS/record
refused fsck-missing 'not found' --fs ext4 --workload @files --fsck "$TMP/no-such-fsck"
# An --mnt where something is mounted already: refused, and that mount
# is left alone, its files intact (also with a blank in the path, which
# /proc/mounts writes as \040).  Were it not refused, a short run.
for mp in "$TMP/mp" "$TMP/a mp"; do
	case $mp in *' '*) n=mnt-with-a-blank ;; *) n=mnt ;; esac
	mkdir -p "$mp" && mount -t tmpfs -o size=1m tmpfs "$mp" && echo keep > "$mp/keep" || {
		fail "$n/tmpfs" "cannot mount a tmpfs at $mp"
		continue
	}
	refused "$n-is-a-mount-point" 'is a mount point already' --fs ext4 --workload @files --ops 1 \
		--points mark --max-points 1 --random 0 --torn 0 --mnt "$mp" --save "$OUT/$n"
	echo drop > $SBD_SYS/record 2>/dev/null
	check "$n/tmpfs-still-mounted" mounted "$mp"
	expect "$n/tmpfs-file-intact" keep "$(cat "$mp/keep" 2>&1)"
	while mounted "$mp"; do umount "$mp" || break; done
done
expect refuse/disk-untouched "$before" "$(dev_sum)"
expect refuse/no-recording-left none "$(cat $SBD_SYS/record)"
unload_sbd
check refuse/load-without-cache load_sbd nsectors=8192 || return
refused no-cache 'no write cache' --fs ext4 --workload @files
unload_sbd

# --- ext4 with its defaults: every state passes.  On 4 KiB blocks: at
# write points a torn state on 512-byte ones can tear a 4 KiB block of
# ext4's, which it is not built to survive (one such state did not
# mount, once on 6.12, at a write point under "torn 1").
check ext4/load load_sbd nsectors=8192 hardsect_size=4096 cache_mb=16 || return
explore ext4 0 --keep --profile --fs ext4 --workload @files --ops 5 --points write,mark \
	--max-points 8 --random 1 --torn 1
check_output ext4/some-skipped-as-identical 'checked, [1-9][0-9]* skipped' cat "$OUT.ext4"
check_output ext4/profile 'time per part: visit .* fsck .*; return ' cat "$OUT.ext4"
check_fails ext4/nothing-mounted grep -q " $MNT" /proc/mounts
expect ext4/recording-kept-with-keep stopped "$(cat $SBD_SYS/record)"
expect ext4/returned-to-the-end end "$(cat $SBD_SYS/visit)"
echo drop > $SBD_SYS/record

# --- --points write is every data point without FUA: writes, discards
# (here from fstrim) and write-zeroes (those with FUA are --points fua).
# The check notes each point it is run at.
POINTS=/sys/kernel/debug/sbd/sbd0/points
rm -f "$TMP/visited"
explore discard 0 --keep --no-dedup --fs ext4 --workload 'fstrim .' --points write \
	--random 0 --torn 0 --check "echo \"\$SBD_POINT\" >> $TMP/visited"
check discard/recorded grep -q ' discard ' $POINTS
awk '($2 == "write" || $2 == "discard" || $2 == "zeroes") && $NF != "fua" { print $1 }' $POINTS \
	> "$TMP/data-points"
sort -n -u "$TMP/visited" > "$TMP/visited.u" 2>/dev/null
check discard/every-data-point-explored sh -c "test -s $TMP/data-points &&
	cmp $TMP/data-points $TMP/visited.u"
echo drop > $SBD_SYS/record 2>/dev/null

# --- A state whose hash cannot be taken (here sbd-statehash fails) is
# an error: a failure, never passed nor skipped as identical.
mkdir -p "$TMP/shim"
cat > "$TMP/shim/sbd-statehash" <<'EOF'
#!/bin/sh
echo "sbd-statehash: cannot read $1" >&2
exit 2
EOF
chmod +x "$TMP/shim/sbd-statehash"
path=$PATH
PATH=$TMP/shim:$PATH
explore hash-fails 1 --fs ext4 --workload @files --ops 2 --points mark --max-points 2 \
	--random 1 --torn 0
PATH=$path
check_output hash-fails/says-why 'error: cannot hash the state' cat "$OUT.hash-fails"
# shellcheck disable=SC2016 # awk's fields
check hash-fails/none-passed-or-skipped awk '$1 == "total" && $2 == "total" {
	ok = $3 > 0 && $4 == 0 && $5 == 0 && $6 == $3 } END { exit !ok }' "$OUT.hash-fails"
check_fails hash-fails/not-all-passed grep -q 'states passed' "$OUT.hash-fails"
echo drop > $SBD_SYS/record 2>/dev/null

# --- Interrupted (SIGINT) with a failure known, or with --keep: what
# was found is kept.  sbd-explore runs in the foreground (a background
# job ignores SIGINT); its check sends the SIGINT itself, from the
# second state it checks: the first fails (int-failed) or passes
# (int-keep).  No timing is involved.
cat > "$TMP/int-check" <<'EOF'
# int-check BASE pass|fail
if [ -e "$1.checked" ]; then
	kill -INT "$(cat "$1.pid")"
	exit 0
fi
: > "$1.checked"
[ "$2" = pass ] || { echo "failed on purpose"; exit 1; }
EOF
# interrupted NAME pass|fail ARGS...: exit status in $rc, output in $OUT.NAME.
interrupted() {
	_n=$1 _pf=$2
	shift 2
	rm -f "$TMP/$_n.checked"
	explore_with_pid "$TMP/$_n.pid" --save "$OUT/$_n" \
		--check "sh $TMP/int-check $TMP/$_n $_pf" --fs ext4 --workload @files --ops 2 \
		--points mark --max-points 3 --random 0 --torn 0 --no-dedup "$@" > "$OUT.$_n" 2>&1
	rc=$?
	grep -v '^progress' "$OUT.$_n" | sed 's/^/@@ | /'
}
interrupted int-failed fail
expect int-failed/exit-1 1 "$rc"
check_output int-failed/says-interrupted 'interrupted' cat "$OUT.int-failed"
check_fails int-failed/nothing-mounted grep -q " /dev/sbd0 " /proc/mounts
expect int-failed/recording-kept stopped "$(cat $SBD_SYS/record)"
expect int-failed/returned-to-the-end end "$(cat $SBD_SYS/visit)"
check_output int-failed/reproducer-printed '^  reproduce: .*--visit' cat "$OUT.int-failed"
img=$(sed -n 's/^    image before recovery: //p' "$OUT.int-failed" | head -n 1)
check int-failed/image-saved test -n "$img" -a -s "$img"
check int-failed/recording-saved test -s "$OUT/int-failed/recording/log-writes.gz" \
	-a -s "$OUT/int-failed/recording/point0.img.gz" -a -s "$OUT/int-failed/recording/points"
check_output int-failed/reproducers-saved '^  reproduce: ' cat "$OUT/int-failed/reproduce"
echo drop > $SBD_SYS/record 2>/dev/null
interrupted int-keep pass --keep
expect int-keep/exit-130 130 "$rc"
check_fails int-keep/nothing-mounted grep -q " /dev/sbd0 " /proc/mounts
expect int-keep/recording-kept stopped "$(cat $SBD_SYS/record)"
expect int-keep/returned-to-the-end end "$(cat $SBD_SYS/visit)"
echo drop > $SBD_SYS/record 2>/dev/null

# The metadata-heavy workload, fsck as the oracle, at FLUSH points and
# at writes between them, on a disk of 4 KiB blocks: a torn write keeps
# whole logical blocks, so on 512-byte ones it can tear a 4 KiB block of
# the filesystem, which ext4 may not survive (on 7.2 one such state of
# this workload did not mount).
unload_sbd
check meta/load load_sbd nsectors=8192 hardsect_size=4096 cache_mb=16 || return
explore meta 0 --fs ext4 --workload @meta --ops 200 --seed 7 --points flush,write \
	--max-points 8 --random 1 --torn 1
# Without --profile: the summary's one time line, no time per part.
check_output meta/time '^time: .* states/min' cat "$OUT.meta"
check_fails meta/no-profile grep -q -e '^time per part' -e '^per checked state' "$OUT.meta"

# A recording that runs out of memory: the points before are explored.
# Mounted at a directory with a blank in its name (given by the user:
# it stays, unmounted).  noinit_itable: ext4's thread that zeroes inode
# tables after mount may write over 1 MiB at once at any time, before
# the workload's first write too, and leave no point to explore.
mkdir -p "$TMP/explore mnt"
# Every explored state passes, but not the whole run: exit 3, not 0.
explore full 3 --fs ext4 --mount-opts noinit_itable --workload @files --ops 16 --record-mb 1 \
	--points flush,mark --max-points 3 --random 0 --torn 0 --mnt "$TMP/explore mnt"
check_output full/says-so 'ran out of memory' cat "$OUT.full"
check_output full/not-the-whole-run 'passed, but not the whole run' cat "$OUT.full"
check_fails full/mnt-with-a-blank-unmounted mounted "$TMP/explore mnt"
check full/mnt-with-a-blank-left test -d "$TMP/explore mnt"
# A workload whose writes fail once the recording and then the cache
# are full (2 MiB of cache): the recorded points are explored all the
# same, and the summary says where the recording ended and that the
# workload failed.
unload_sbd
check full-fails/load load_sbd nsectors=16384 hardsect_size=4096 cache_mb=2 || return
explore full-fails 3 --fs ext4 --mount-opts noinit_itable --record-mb 1 --check none \
	--workload 'dd if=/dev/zero of=big bs=4k count=2048 oflag=direct' \
	--points write --max-points 3 --random 0 --torn 0
check_output full-fails/says-the-workload-failed 'ran out of memory .*and it failed \(exit' \
	cat "$OUT.full-fails"
check_output full-fails/explored 'all [1-9][0-9]* states passed' cat "$OUT.full-fails"

# --- Interrupted (TERM; a background job ignores INT) while exploring:
# exit 130, nothing mounted, the power on, the recording dropped.
"$EXPLORE" --fs ext4 --workload @files --ops 2 --points all --save "$OUT/term" \
	> "$OUT.term" 2>&1 &
pid=$!
i=0
while [ "$(cat $SBD_SYS/visit)" = none ] && [ $i -lt 600 ] && kill -0 $pid 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
sleep 1
kill -TERM $pid
wait $pid
expect term/exit-130 130 "$?"
check_fails term/nothing-mounted grep -q " /dev/sbd0 " /proc/mounts
expect term/recording-dropped none "$(cat $SBD_SYS/record)"
expect term/power-on on "$(cat $SBD_SYS/power)"

# --- ext4 with barrier=0: the filesystem sends no FLUSH and no FUA, so
# at each mark, with nothing kept (none), the files marked durable are
# not there: reported failing, with reproducers.
explore nobarrier 1 --fs ext4 --mount-opts barrier=0 --workload @files --ops 3 \
	--points mark --max-points 3 --random 0 --torn 0 --save-max 1
check_output nobarrier/says-missing 'FAIL \([0-9]+ none\).*missing' cat "$OUT.nobarrier"
check_output nobarrier/saving-not-exploring '^time: .*; saving the recording took [0-9]+\.[0-9]+ s more$' \
	cat "$OUT.nobarrier"
expect nobarrier/recording-kept stopped "$(cat $SBD_SYS/record)"
expect nobarrier/returned end "$(cat $SBD_SYS/visit)"
repro=$(grep -m1 '^  reproduce: ' "$OUT.nobarrier" | sed 's/^  reproduce: sbd-explore //')
hash=${repro##*--expect }
check nobarrier/reproducer-printed test -n "$repro" -a -n "$hash"
# The reproducer, run again on the kept recording: the same image (by
# hash: else it exits 2) and the same failure (exit 1).
repro_out=$(eval "$EXPLORE $repro" 2>&1)
expect nobarrier/reproducer-fails-again "1" "$?"
printf '%s\n' "$repro_out" | sed 's/^/@@ | /'
# The same failure as the exploration printed for that state (the
# first to fail may be the append file's, or a missing file).
state=$(printf '%s\n' "$repro" | sed -n "s/.*--visit '\([^']*\)'.*/\1/p")
# (The first thing the check found missing or wrong, each side.)
first_failure() { grep -m1 -F "FAIL ($state)" | sed 's/.*): check failed: //; s/;.*//'; }
want=$(first_failure < "$OUT.nobarrier")
check nobarrier/reproducer-state-found test -n "$state" -a -n "$want"
expect nobarrier/reproducer-same-failure "$want" "$(printf '%s\n' "$repro_out" | first_failure)"
# The saved image of the state before recovery hashes the same, and a
# mount of it shows the failure.
img=$(sed -n 's/^    image before recovery: //p' "$OUT.nobarrier" | head -n 1)
check nobarrier/image-saved test -s "$img"
check nobarrier/recording-saved test -s "$OUT/nobarrier/recording/log-writes.gz" \
	-a -s "$OUT/nobarrier/recording/point0.img.gz" -a -s "$OUT/nobarrier/recording/points"
gzip -dc "$img" > "$TMP/state.img"
expect nobarrier/image-is-the-state "$hash" \
	"$(sbd-statehash "$TMP/state.img" "$OUT/nobarrier/recording/points")"
rm -f "$TMP/state.img"
check nobarrier/drop sh -c "echo drop > $SBD_SYS/record"
unload_sbd

# --- The application example: a "database" replaced by rename.  The
# variant that leaves out the directory's fsync loses a committed
# version when nothing unflushed survives; the correct one never does.
check db/load load_sbd nsectors=65536 cache_mb=16 || return
explore db 0 --fs ext4 --workload @db --ops 4 --points mark --random 1 --torn 1
expect db/recording-dropped none "$(cat $SBD_SYS/record)"
# A workload's server that drops root (PostgreSQL runs as "postgres")
# reaches the mount point sbd-explore made in its work directory, by its
# absolute path.
# shellcheck disable=SC2016 # $SBD_MNT and $SBD_MARK: the workload's
explore other-user 0 --fs ext4 --check none --points mark --random 0 --torn 0 \
	--workload 'mkdir -m 777 u && sbd-asuser 65534 sh -c "echo x > \"\$SBD_MNT/u/f\"" && echo u > "$SBD_MARK"'
# Every write of one version, the first: the states before db:0 have
# no committed version, whatever they hold of the file.
explore db-every-write 0 --fs ext4 --workload @db --ops 1 --points write --random 0 --torn 0
explore db-nodirsync 1 --fs ext4 --workload @db-nodirsync --ops 4 --points mark \
	--random 1 --torn 1 --save-max 0
check_output db-nodirsync/lost-a-version 'FAIL \([0-9]+ none\).*but version [0-9]+ was committed' \
	cat "$OUT.db-nodirsync"
# The time to the first failure, within the run's own time; none where
# nothing failed.
_first=$(sed -n 's/^time: \([0-9.]*\) s .*; the first failure after \([0-9.]*\) s.*/\1 \2/p' "$OUT.db-nodirsync")
expect db-nodirsync/first-failure-timed yes \
	"$(echo "$_first" | awk 'NF == 2 && $2 <= $1 { print "yes" }')"
expect db/no-first-failure 0 "$(grep -c 'first failure' "$OUT.db")"
echo drop > $SBD_SYS/record
# Shorter runs of the same two under busybox's sh (dash runs the rest),
# one with --profile: sbd-explore is for any POSIX sh.
printf '#!/bin/sh\nexec busybox sh %s "$@"\n' "$tree_explore/sbd-explore" > "$TMP/busybox-explore"
chmod +x "$TMP/busybox-explore"
EXPLORE=$TMP/busybox-explore
explore busybox-db 0 --profile --fs ext4 --workload @db --ops 2 --points mark --random 1 --torn 1
check_output busybox-db/profile '^time per part: ' cat "$OUT.busybox-db"
explore busybox-db-nodirsync 1 --fs ext4 --workload @db-nodirsync --ops 2 --points mark \
	--random 0 --torn 0 --save-max 1
check_output busybox-db-nodirsync/lost-a-version \
	'FAIL \([0-9]+ none\).*but version [0-9]+ was committed' cat "$OUT.busybox-db-nodirsync"
echo drop > $SBD_SYS/record
EXPLORE=$explore_in_tree

# --- --after-mark: a set-up synced before its mark "ready", and a check
# that fails every state before any mark.  Without --after-mark the
# set-up's states are explored (and fail here); with it, none of them.
# shellcheck disable=SC2016 # expanded by the workload's shell
SETUP='echo a > a && sync && echo b > b && sync && echo ready > "$SBD_MARK" && echo c > c && sync && echo end > "$SBD_MARK"'
# shellcheck disable=SC2016 # expanded by the check's shell
MARKED='[ -n "$SBD_MARK_NAME" ]'
explore after-mark 0 --fs ext4 --workload "$SETUP" --check "$MARKED" \
	--after-mark ready --random 0 --torn 0 --keep --json "$OUT/after-mark.json"
_ready=$(awk '$2 == "mark" && $3 == "ready" { print $1 }' /sys/kernel/debug/sbd/sbd0/points)
expect after-mark/none-before-it "" \
	"$(sed -n 's/.*"point": \([0-9]*\),.*/\1/p' "$OUT/after-mark.json" | awk -v r="${_ready:-0}" '$1 < r')"
check after-mark/states-from-it grep -q "\"point\": $_ready," "$OUT/after-mark.json"
explore after-mark-not-given 1 --again --fs ext4 --check "$MARKED" --random 0 --torn 0 --keep
explore after-mark-missing 2 --again --fs ext4 --check true --after-mark nosuch --keep
check_output after-mark/missing-said '^sbd-explore: --after-mark nosuch: the workload made no mark nosuch \(its marks: ready end\)' \
	cat "$OUT.after-mark-missing"
echo drop > $SBD_SYS/record
refused after-mark-visit 'names one' --fs ext4 --visit '1 none' --after-mark ready
unload_sbd

# --- xfs with its defaults (bookworm's mkfs.xfs wants 300 MiB).
check xfs/load load_sbd nsectors=655360 cache_mb=32 || return
explore xfs 0 --fs xfs --workload @files --ops 4 --points mark,fua \
	--max-points 6 --random 1 --torn 1
# xfs, too, loses the version whose rename was never made durable.
explore xfs-db-nodirsync 1 --fs xfs --workload @db-nodirsync --ops 4 --points mark \
	--random 1 --torn 1 --save-max 0
check_output xfs-db-nodirsync/lost-a-version \
	'FAIL \([0-9]+ none\).*but version [0-9]+ was committed' cat "$OUT.xfs-db-nodirsync"
echo drop > $SBD_SYS/record
unload_sbd
