# SPDX-License-Identifier: GPL-2.0
# Helpers for sbd's tests, sourced inside the VM by vm-run-areas.sh.
#
# Each check prints one line that the host counts:
#   @@ ok AREA/NAME
#   @@ FAIL AREA/NAME        followed by "@@ | evidence" lines
#   @@ skip AREA/NAME: why
# AREA is set by vm-run-areas.sh from the test file's name.

SBD_KO=/sbd.ko
# shellcheck disable=SC2034 # used by the areas that source this file
MNT=/mnt/sbd
# shellcheck disable=SC2034 # used by the areas that source this file
TMP=/tmp/sbd-test

pass() { echo "@@ ok $AREA/$1"; }

# SBD_STOP_AT_FAIL=1 (from the kernel command line; mutation-test.sh
# sets it) ends the area at its first failure: one is all a mutant needs.
fail() {
	_name=$1
	shift
	echo "@@ FAIL $AREA/$_name"
	printf '%s\n' "$@" | sed 's/^/@@ | /'
	[ -z "${SBD_STOP_AT_FAIL:-}" ] || exit 1
}

skip() { echo "@@ skip $AREA/$1: $2"; }

# Every check returns non-zero when it fails, so an area can skip what
# depends on it: "check load load_sbd ... || return".
#
# check NAME CMD...: CMD must succeed; its output is the evidence if not.
check() {
	_name=$1
	shift
	if _out=$("$@" 2>&1); then
		pass "$_name"
	else
		fail "$_name" "command failed (exit $?): $*" "$_out"
		return 1
	fi
}

# fio_ok NAME FIO-ARGS...: fio succeeds (verify_fatal makes any verify
# error fatal) and reports no errors.
fio_ok() {
	_name=$1
	shift
	_out=$(fio --output-format=normal "$@" 2>&1)
	_rc=$?
	if [ $_rc = 0 ] && ! printf '%s\n' "$_out" | grep -Eq 'err= *[1-9]|verify: bad|fio: .*(error|bad)'; then
		pass "$_name"
	else
		fail "$_name" "fio exited $_rc: fio $*" \
			"$(printf '%s\n' "$_out" | grep -E -i 'err|bad|verify|fail' | head -n 20)" \
			"$(printf '%s\n' "$_out" | tail -n 8)"
		return 1
	fi
}

# check_fails NAME CMD...: CMD must fail.
check_fails() {
	_name=$1
	shift
	if _out=$("$@" 2>&1); then
		fail "$_name" "command succeeded but should have failed: $*" "$_out"
		return 1
	else
		pass "$_name"
	fi
}

# expect NAME EXPECTED GOT
expect() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "expected: $2" "got:      $3"
		return 1
	fi
}

# load_sbd [PARAMS...]: insmod sbd; the caller checks the result.
load_sbd() {
	insmod "$SBD_KO" "$@"
}

unload_sbd() {
	rmmod sbd 2>/dev/null
	! [ -e /sys/module/sbd ]
}

# The size of a file or block device in bytes.
size_of() { blockdev --getsize64 "$1" 2>/dev/null || stat -c %s "$1"; }

# random_file PATH BYTES
random_file() {
	head -c "$2" /dev/urandom > "$1"
}

# same NAME FILE1 FILE2: the two have identical contents.
same() {
	if _out=$(cmp "$2" "$3" 2>&1); then
		pass "$1"
	else
		fail "$1" "$2 and $3 differ" "$_out"
		return 1
	fi
}

# Kernel reports that make any area fail.
DMESG_BAD='WARNING:|BUG:|BUG |Oops|Call Trace|lockdep|possible recursive|possible circular|inconsistent lock state|sleeping function called from invalid context|KASAN|kmemleak|UBSAN|general protection|INFO: task .* blocked'

# The kernel log is never cleared during a run, so no report can be
# lost before it is checked (as blktests does).  Marker lines written to
# /dev/kmsg divide it instead:
#   "sbd-test: area NAME"  vm-run-areas.sh, as each area starts;
#   "sbd-test: mark"       dmesg_mark: sbd_dmesg and dmesg_since mark
#                          show only what follows;
#   "sbd-test: checked"    dmesg_checked: an area has scanned everything
#                          before it itself (faults.sh filters the stack
#                          dumps that its injected faults print).
kmsg() { echo "$*" > /dev/kmsg; }
dmesg_mark() { kmsg "sbd-test: mark"; }
dmesg_checked() { kmsg "sbd-test: checked"; }

# dmesg_since area|mark|run: the kernel log, without timestamps, since
# the current area started, since the last mark, or since the first
# area (the whole run but the boot), leaving out checked parts.
dmesg_since() {
	# Lines are kept in an array, not appended to a string: the debug
	# tier's log holds thousands of stack-dump lines, and string
	# appends made the whole-run scan quadratic.
	dmesg | sed 's/^\[[^]]*\] *//' | awk -v mode="$1" '
		function flush(i) { for (i = 0; i < n; i++) print line[i]; n = 0 }
		/^sbd-test: area / {
			if (mode == "run") flush(); else n = 0
			started = 1; next
		}
		/^sbd-test: checked/ { n = 0; next }
		/^sbd-test: mark/ { if (mode == "mark") n = 0; next }
		started { line[n++] = $0 }
		END { flush() }'
}

# dmesg_clean NAME [area|run]: no warning, bug, oops, sanitizer or lock
# report in the area (default) or the whole run; each report is shown
# with the lines that follow it (its trace).
dmesg_clean() {
	_log=$(dmesg_since "${2:-area}")
	if ! printf '%s\n' "$_log" | grep -Eq "$DMESG_BAD"; then
		pass "$1"
	else
		fail "$1" "kernel reports in dmesg:" \
			"$(printf '%s\n' "$_log" | grep -E -A20 "$DMESG_BAD" | head -80)"
	fi
}

# ------------------------------------------------------------------
# Helpers for the areas (01-params.sh ... 10-ioctl-sysfs.sh).

# sbd's own lines in dmesg since the area started or the last
# dmesg_mark, without the kernel's one-time notices that an out-of-tree,
# unsigned module taints it.
sbd_dmesg() {
	dmesg_since mark | grep '^sbd: ' |
		grep -v -e 'taints kernel' -e 'tainting kernel'
}

# sbd_leftovers: print whatever a failed load or an unload left behind.
sbd_leftovers() {
	[ -e /dev/sbd0 ] && echo "/dev/sbd0 exists"
	[ -e /sys/block/sbd0 ] && echo "/sys/block/sbd0 exists"
	grep -w sbd /proc/devices | sed 's/^/\/proc\/devices: /'
	grep '^sbd ' /proc/modules | sed 's/^/\/proc\/modules: /'
	[ -e /sys/module/sbd ] && echo "/sys/module/sbd exists"
	true
}

# meminfo_kb FIELD: a /proc/meminfo value in kB (e.g. VmallocUsed).
meminfo_kb() { awk -v f="$1:" '$1 == f { print $2 }' /proc/meminfo; }

drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches; }

# read_dev DEV OUT [dd options...]: the whole of DEV into OUT, O_DIRECT.
read_dev() {
	_dev=$1 _to=$2
	shift 2
	dd if="$_dev" of="$_to" bs=1M iflag=direct status=none "$@"
}

# same_as_image NAME: the whole of /dev/sbd0 equals the mirror file
# $TMP/image (kept with put_image and zero_image).
same_as_image() {
	read_dev /dev/sbd0 "$TMP/back"
	same "$1" "$TMP/image" "$TMP/back"
}

# put FILE DEV OFFSET [dd options...]: write FILE into DEV at byte
# OFFSET with O_DIRECT (OFFSET and FILE's size: multiples of the
# logical block size), in 64 KiB blocks, or in one block of FILE's size
# if that is not a multiple of 64 KiB: GNU dd writes a short last block
# without O_DIRECT and then fsyncs, which sends a FLUSH.
put() {
	_f=$1 _dev=$2 _off=$3 _bs=65536
	shift 3
	[ $(($(stat -c %s "$_f") % 65536)) = 0 ] || _bs=$(stat -c %s "$_f")
	dd if="$_f" of="$_dev" bs="$_bs" seek="$_off" iflag=fullblock oflag=direct,seek_bytes \
		conv=notrunc status=none "$@"
}

# put_one FILE DEV OFFSET [dd options...]: the same in one write of
# FILE's size: one request, as large as the file (up to max_sectors_kb).
put_one() {
	_f=$1 _dev=$2 _off=$3
	shift 3
	dd if="$_f" of="$_dev" bs="$(stat -c %s "$_f")" seek="$_off" \
		oflag=direct,seek_bytes conv=notrunc status=none "$@"
}

# dev_sum [DEV]: sha256 of what DEV (default /dev/sbd0) holds, read with
# O_DIRECT, past the page cache.
dev_sum() {
	dd if="${1:-/dev/sbd0}" bs=64k iflag=direct status=none | sha256sum | cut -c1-64
}

# stat_value FILE NAME: the value of the "NAME value" line of FILE
# (cache_stats, record_stats).
# bench_jobs_line JOBS JSON: the console line of one sbd-explore run
# with JOBS jobs (bench-jobs.sh), from its --json: states, its own
# seconds (the exploration alone) and their rate.
bench_jobs_line() {
	_st=$(sed -n 's/.*"states": \([0-9]*\),.*/\1/p' "$2")
	_s=$(sed -n 's/.*"seconds": \([0-9.]*\),.*/\1/p' "$2")
	echo "@@ bench jobs $1 states $_st seconds $_s states/min $(echo "$_st $_s" | awk '{ printf "%.1f", $1 * 60 / $2 }')"
}

stat_value() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }

# write_refused NAME FILE TEXT: writing TEXT to the sysfs FILE fails
# with EINVAL.  dd, not the shell's echo: it reports the write's errno.
write_refused() {
	if _out=$(printf '%s\n' "$3" | dd of="$2" 2>&1); then
		fail "$1" "'$3' > $(basename "$2") was accepted"
		return 1
	fi
	case $_out in
	*"Invalid argument"*) pass "$1" ;;
	*) fail "$1" "'$3' > $(basename "$2"): expected Invalid argument, got: $_out"; return 1 ;;
	esac
}

# discard_check NAME OFF LEN LO HI [-z]: fresh random data on bytes
# [LO, HI) of /dev/sbd0 and of $TMP/image, its mirror; then a discard
# (with -z, a zeroout) of [OFF, OFF + LEN) must succeed, zero that range
# and leave the rest of the disk as it was.
discard_check() {
	random_file "$TMP/chunk" $(($5 - $4))
	put_image "$TMP/chunk" "$TMP/image" "$4"
	put "$TMP/chunk" /dev/sbd0 "$4"
	# shellcheck disable=SC2086 # ${6:-}: no word, or -z
	check "$1" blkdiscard ${6:-} -o "$2" -l "$3" /dev/sbd0 || return
	zero_image "$TMP/image" "$2" "$3"
	same_as_image "$1-zeros-rest-unchanged"
}

# put_image FILE IMAGE OFFSET: the same write into a regular file that
# mirrors what the device should hold.
put_image() {
	dd if="$1" of="$2" bs=64k seek="$3" iflag=fullblock oflag=seek_bytes conv=notrunc \
		status=none
}

# zero_image IMAGE OFFSET LENGTH: zero a range of the mirror file.
zero_image() {
	dd if=/dev/zero of="$1" bs=64k seek="$2" count="$3" oflag=seek_bytes \
		iflag=count_bytes conv=notrunc status=none
}

# check_output NAME REGEX CMD...: CMD succeeds and its output matches
# the extended regular expression REGEX.
check_output() {
	_name=$1 _re=$2
	shift 2
	if _out=$("$@" 2>&1) && printf '%s\n' "$_out" | grep -Eq -- "$_re"; then
		pass "$_name"
	else
		fail "$_name" "command: $*" "expected output matching: $_re" "got: $_out"
		return 1
	fi
}

# check_fails_with NAME REGEX CMD...: CMD fails and its output (the
# error message) matches REGEX.
check_fails_with() {
	_name=$1 _re=$2
	shift 2
	if _out=$("$@" 2>&1); then
		fail "$_name" "command succeeded but should have failed: $*" "$_out"
		return 1
	elif printf '%s\n' "$_out" | grep -Eq -- "$_re"; then
		pass "$_name"
	else
		fail "$_name" "command failed, but not with: $_re" "$*" "$_out"
		return 1
	fi
}

# sbd_max_block: the largest hardsect_size sbd loads with on this kernel
# (the page size before 6.15, 64 KiB from 6.15 with transparent
# hugepages), found by loading tiny disks of 1024, 2048, ... bytes per
# sector until one is refused.  Leaves sbd unloaded and its refusal line
# in dmesg: callers that count dmesg lines clear it first.
sbd_max_block() {
	_max=512 _bs=1024
	while [ $_bs -le 1048576 ] &&
	      insmod "$SBD_KO" nsectors=16 hardsect_size=$_bs 2>/dev/null; do
		rmmod sbd
		_max=$_bs _bs=$((_bs * 2))
	done
	echo $_max
}

# ------------------------------------------------------------------
# Helpers for the areas of the cache (cache_mb=) and of recordings.

# sbd0's files: the cache's, a recording's and (under debugfs, which
# the areas that read them mount) its points and its export.
# shellcheck disable=SC2034 # used by the areas that source this file
{
	SBD_SYS=/sys/block/sbd0/sbd
	PWR=$SBD_SYS/power
	POL=$SBD_SYS/powercut_policy
	REC=$SBD_SYS/record
	VISIT=$SBD_SYS/visit
	MARK=$SBD_SYS/mark
	CUTAT=$SBD_SYS/cut_at
	POINTS=/sys/kernel/debug/sbd/sbd0/points
	EXPORT=/sys/kernel/debug/sbd/sbd0/log-writes
}

# power on|off: switch sbd0's power.
power() { echo "$1" > "$PWR"; }

# reload [PARAMS...]: sbd unloaded, then loaded again as one 8 MiB disk.
reload() { unload_sbd; load_sbd nsectors=16384 "$@"; }

# wr FILE OFFSET: the 64 KiB of FILE onto /dev/sbd0 at byte OFFSET, and
# at OFFSET: the 64 KiB of /dev/sbd0 there, both with O_DIRECT.
wr() { dd if="$1" of=/dev/sbd0 bs=64k seek="$2" oflag=direct,seek_bytes conv=notrunc status=none; }
at() { dd if=/dev/sbd0 bs=64k skip="$1" count=1 iflag=direct,skip_bytes status=none; }

# record_play SEED NOPS BLOCKS [PARAMS...]: sbd loaded afresh with a
# 4 MiB cache (and PARAMS, e.g. nsectors=2048), recording while
# sbd-model (tests/tools/sbd-model.c) plays NOPS operations from SEED,
# on its first BLOCKS blocks (0: all); then the recording stopped.
# model_run (below) checks each of these steps.
record_play() {
	_seed=$1 _nops=$2 _blocks=$3
	shift 3
	unload_sbd
	load_sbd cache_mb=4 "$@" && echo 'start 16' > "$REC" &&
		SBD_MODEL_BLOCKS=$_blocks sbd-model play /dev/sbd0 "$_seed" "$_nops" \
			"$TMP/trace" > /dev/null &&
		echo stop > "$REC"
}

# refused NAME REGEX ARGS...: $EXPLORE (the sbd-explore under test)
# exits 2 with a message matching the extended REGEX.
refused() {
	_n=$1 _re=$2
	shift 2
	_out=$("$EXPLORE" "$@" 2>&1)
	_rc=$?
	if [ $_rc = 2 ] && printf '%s\n' "$_out" | grep -Eq -- "$_re"; then
		pass "refuse/$_n"
	else
		fail "refuse/$_n" "sbd-explore $* exited $_rc, expected 2 and /$_re/:" "$_out"
	fi
}

# explore_with_pid FILE ARGS...: sbd-explore ARGS, its pid in FILE, for
# a workload or check that interrupts it (kill -INT) at a chosen step
# rather than after a delay.
explore_with_pid() {
	_pidfile=$1
	shift
	# shellcheck disable=SC2016 # $1 and $@: the inner shell's
	sh -c 'echo $$ > "$1"; shift; exec "$@"' sh "$_pidfile" "$EXPLORE" "$@"
}

# model_run NAME BS NOPS SEED [BLOCKS]: a 1 MiB disk of BS-byte blocks,
# recorded while sbd-model plays NOPS operations (on its first BLOCKS
# blocks only, if given: overlapping writes), then every state checked
# under each of $POLICIES (sbd-model's policies).
model_run() {
	_n=$1
	check "$_n/load" load_sbd nsectors=$((1048576 / $2)) hardsect_size="$2" cache_mb=4 ||
		return
	check "$_n/start" sh -c "echo 'start 16' > $REC" || { unload_sbd; return; }
	check_output "$_n/play" '^ok played' env SBD_MODEL_BLOCKS="${5:-0}" \
		sbd-model play /dev/sbd0 "$4" "$3" "$TMP/trace"
	check "$_n/stop" sh -c "echo stop > $REC"
	expect "$_n/state-stopped" stopped "$(cat "$REC")"
	cp "$POINTS" "$TMP/listing"
	expect "$_n/points-counted" "$(grep -c . "$TMP/listing")" "$(stat_value "$SBD_SYS"/record_stats points)"
	# shellcheck disable=SC2086 # $POLICIES: a list of words, on purpose
	_out=$(sbd-model check /dev/sbd0 "$TMP/trace" "$TMP/listing" $POLICIES 2>&1)
	_rc=$?
	if [ $_rc = 0 ]; then
		pass "$_n/every-state-matches-the-model"
	else
		fail "$_n/every-state-matches-the-model" "$_out"
	fi
	printf '%s\n' "$_out" | grep '^ok states' | sed 's/^/@@ | /'
	echo "@@ | $(grep -E '^(points|saved_bytes|memory_used|visits|moved_bytes|last_move_usec) ' \
		"$SBD_SYS"/record_stats | tr '\n' ' ')"
	check "$_n/drop" sh -c "echo drop > $REC"
	check "$_n/unload" unload_sbd
}
