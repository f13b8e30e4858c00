#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-run-areas.sh [AREA-FILE...]: run test areas inside the VM.
# Without arguments, every tests/NN-*.sh runs, in order.  Each area runs
# in its own shell with a time limit, starts with a marker in the kernel
# log and ends with a check of everything logged after it; sbd is
# unloaded between areas.  The log is never cleared: a last check scans
# the whole run.
. ./vm-lib.sh
AREA_TIMEOUT=${AREA_TIMEOUT:-1200}

echo "@@ kernel $(uname -r)"
# The boot's log, for whoever needs it (the debug tier checks it).
dmesg > /boot.dmesg
[ $# -gt 0 ] || set -- [0-9][0-9]-*.sh
for f in "$@"; do
	AREA=$(basename "$f" .sh | sed 's/^[0-9]*-//; s/^vm-//')
	export AREA
	echo "@@ area $AREA"
	kmsg "sbd-test: area $AREA"
	mkdir -p "$TMP" "$MNT"
	_start=$(date +%s)
	# "exit 0": an area that stops at a failed check ("|| return") has
	# reported it already; "finished" fails only on a timeout or a crash.
	if ! timeout "$AREA_TIMEOUT" /bin/sh -c ". ./vm-lib.sh; . ./$f; exit 0"; then
		fail finished "area $AREA did not finish (exit status $? or timeout after ${AREA_TIMEOUT}s)"
	fi
	# Leave nothing behind for the next area.
	# shellcheck disable=SC2013 # mount points: sbd's own, without blanks
	for m in $(grep -o " ${MNT}[^ ]*" /proc/mounts | sort -r); do umount "$m"; done
	unload_sbd || fail cleanup "sbd still loaded after the area: $(cat /sys/module/sbd/refcnt 2>/dev/null)"
	rm -rf "$TMP"
	dmesg_clean dmesg
	# For the console log only (run-tests.sh counts ok/FAIL/skip lines).
	echo "@@ time $AREA $(($(date +%s) - _start))s"
done
# Anything logged between or after the areas' own checks.
AREA=run dmesg_clean dmesg-whole-run run
