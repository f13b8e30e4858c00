# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2034 # OPS, SCRATCH: for the scripts that source this
# common.sh: what every case's workload and check share.  Sourced by the
# case's own scripts, which run with sh in the mounted directory.
#
# The mark protocol: after the application returned from the step that
# its documentation says makes step I durable (or, for a consistency
# case, after step I returned), the workload writes the mark "n:I".  At
# each crash state the check reads SBD_MARK_NAME, the last mark at or
# before the state's point: "init" (the set-up is durable) or "n:I".
# A durable check then requires steps 1..I; a consistent check requires
# only that what is there is whole: a prefix of the steps, unharmed.

OPS=${SBD_OPS:-12}

# mark NAME: a mark in the recording.  Once the recording is full the
# write fails (ENOSPC); the points after it are not explored anyway.
mark() {
	echo "$1" 2> /dev/null > "$SBD_MARK" ||
		[ "$(cat "/sys/block/$(basename "$(readlink -f "$SBD_DEV")")/sbd/record")" = full ]
}

# committed: the step the last mark says is durable (0: none), or
# "none" before the set-up's mark.
committed() {
	case ${SBD_MARK_NAME:-} in
	n:*) echo "${SBD_MARK_NAME#n:}" ;;
	init) echo 0 ;;
	*) echo none ;;
	esac
}

# mark_steps PROGRAM: mark the steps a program prints, one number a line,
# each once it returned from it: 0, the set-up, is marked "init" (the
# program synced it, sync -f, before it printed 0: it does not wait for
# the marks, so a sync here would also cover the steps it ran
# meanwhile); "exit N" (the program failed, as the pipe's writer says)
# ends the workload with PROGRAM's name.
mark_steps() {
	while read -r i; do
		case $i in
		0) mark init ;;
		exit*) echo "$1: $i"; exit 1 ;;
		*) mark "n:$i" ;;
		esac || exit 1
	done
}

# each_step STEP [BETWEEN]: for I from 1 to OPS, run "STEP I" and mark
# "n:I" once it returned, then run BETWEEN (what else the machine does
# before the next step); a step that fails ends the workload.
each_step() {
	i=1
	while [ "$i" -le "$OPS" ]; do
		"$1" "$i" || exit 1
		mark "n:$i" || exit 1
		[ -z "${2:-}" ] || "$2" || exit 1
		i=$((i + 1))
	done
}

# other_fsync: another program on the same file system syncs a file of
# its own (a log, a database).  Its commit carries everything the file
# system has noted so far, renames included, but not other files' data
# still in the page cache: at once what ext4's own commit (every 5 s)
# or xfs's log work (every 30 s) does later, before the data's
# writeback (after 30 s).
other_fsync() {
	dd if=/dev/zero of=other-program bs=512 count=1 conv=fsync status=none
}

# await_server NAME PID PROBE...: wait until the command PROBE succeeds,
# that is until the server NAME (process PID) serves: loading its files
# is part of its start.  Says why and fails if the process ended first
# or no probe succeeded in SBD_SERVER_LIMIT seconds of the clock
# (default 600): a limit on a hang, not a measurement.  The caller then
# adds what the server's log says.
await_server() {
	_name=$1 _pid=$2
	shift 2
	_limit=${SBD_SERVER_LIMIT:-600}
	_until=$(($(date +%s) + _limit))
	until "$@" > /dev/null 2>&1; do
		if ! kill -0 "$_pid" 2> /dev/null; then
			echo "$_name exited before it served"
			return 1
		fi
		if [ "$(date +%s)" -ge "$_until" ]; then
			echo "$_name: no answer in $_limit s"
			return 1
		fi
		sleep 0.1
	done
}

# answered_ok WHAT CMD...: run a client's CMD, whose answer must be "OK";
# else say what WHAT was answered.
answered_ok() {
	_what=$1
	shift
	_r=$("$@") || return
	[ "$_r" = OK ] || { echo "$_what: $_r"; return 1; }
}

# check_begin LEVEL PATH: a check's start.  LEVEL goes to "level" and
# the step the marks promise to "want"; before the set-up's mark nothing
# is promised (the check passes), after it PATH, made by the set-up, must
# be there.
check_begin() {
	level=$1 want=$(committed)
	[ "$want" != none ] || exit 0
	[ -e "$2" ] || { echo "$2: missing (the set-up was durable)"; exit 1; }
}

# judge LEVEL GOT WANT: the verdict on GOT steps found whole (a prefix)
# when the marks say WANT.  LEVEL durable: GOT >= WANT; consistent: any.
judge() {
	[ "$1" = consistent ] || [ "$2" -ge "$3" ] || {
		echo "lost committed work: step $3 was durable (mark n:$3), the state holds steps 1..$2"
		return 1
	}
}

# A scratch directory off the disk under test, for sockets, logs and
# build trees, removed at exit.
scratch() {
	SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/sbd-case.XXXXXX") || exit 2
}
