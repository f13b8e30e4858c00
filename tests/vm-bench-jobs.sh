#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-bench-jobs.sh JOBS ROUNDS OPS: sbd-explore's states per minute with
# one job and with JOBS jobs on the same kept recording
# (scripts/bench-jobs.sh).  @db-nodirsync on ext4, every state checked
# (--no-dedup), so that both ways check the same states; the times are
# sbd-explore's own (its --json "seconds": the exploration alone).
. ./vm-lib.sh
JOBS=${1:-2} ROUNDS=${2:-2} OPS=${3:-12}
EXPLORE=../explore/sbd-explore
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
devs=/dev/sbd0 i=1
while [ $i -lt "$JOBS" ]; do devs=$devs,/dev/sbd$i; i=$((i + 1)); done
load_sbd ndevices="$JOBS" nsectors=16384 hardsect_size=4096 cache_mb=16 || exit 1
OPTS="--fs ext4 --check @db --points flush,fua,mark --random 1 --torn 1 --no-dedup -q"
# shellcheck disable=SC2086 # $OPTS: options, split on purpose
$EXPLORE --dev /dev/sbd0 --workload @db-nodirsync --ops "$OPS" --keep $OPTS \
	--json /tmp/rec.json > /tmp/rec.out 2>&1
[ "$(cat /sys/block/sbd0/sbd/record)" = stopped ] || { cat /tmp/rec.out; exit 1; }
# one WAY N: explore the kept recording again with N jobs; prints a line.
one() {
	# shellcheck disable=SC2086 # $OPTS: options, split on purpose
	$EXPLORE --again --dev "$2" --jobs "$3" $OPTS --json /tmp/j.json > /tmp/j.out 2>&1
	bench_jobs_line "$3" /tmp/j.json
}
r=0
while [ $r -lt "$ROUNDS" ]; do
	one a /dev/sbd0 1
	one b "$devs" "$JOBS"
	r=$((r + 1))
done
echo drop > /sys/block/sbd0/sbd/record
unload_sbd
