# SPDX-License-Identifier: GPL-2.0
# Concurrency: fio with crc32c verification from several jobs at once,
# mixed random reads and writes of 512 B to 1 MiB, on disjoint and on
# overlapping regions, and with more I/O in flight than sbd has tags;
# then the same while the queue's scheduler and limits change under it.

# Requires: fio.
# QUICK=0: not in the quick run (QUICK=1 scripts/run-tests.sh).

COMMON="--filename=/dev/sbd0 --ioengine=libaio --direct=1 --group_reporting"
MIXED="--rw=randrw --iodepth=32 --verify_fatal=1"

check load load_sbd nsectors=$((96 << 11)) || return

# Four jobs, each its own 16 MiB: write, then read back and verify.
# shellcheck disable=SC2086 # $COMMON: a list of words, split on purpose
fio_ok disjoint-4jobs $COMMON $MIXED --name=disjoint --numjobs=4 \
	--bsrange=512-1m --size=16m --offset_increment=16m --verify=crc32c

# Four jobs on overlapping regions (each shares half of its 32 MiB with
# the next).  Concurrent writes to the same sectors may land in any
# order, so every job writes the same pattern over a different one laid
# down first; a second pass then verifies every block any job wrote.
# shellcheck disable=SC2086 # $COMMON: a list of words, split on purpose
fio_ok overlap-prefill $COMMON --name=prefill --rw=write --bs=1m \
	--size=80m --verify=pattern --verify_pattern=0x11223344 --do_verify=1
OVERLAP="$COMMON $MIXED --name=overlap --numjobs=4 --bsrange=512-1m
	--size=32m --offset_increment=16m --verify=pattern
	--verify_pattern=0x5aa5c33c --randrepeat=1"
# shellcheck disable=SC2086 # $OVERLAP: a list of words, split on purpose
fio_ok overlap-write $OVERLAP --do_verify=0 &&
	fio_ok overlap-verify-second-pass $OVERLAP --verify_only=1

# More in flight than the tag set's depth (128 per hardware queue).
expect queue-depth-is-128 128 "$(cat /sys/block/sbd0/queue/nr_requests)"
# shellcheck disable=SC2086 # $COMMON: a list of words, split on purpose
fio_ok iodepth-256 $COMMON --rw=randrw --verify_fatal=1 --name=deep \
	--numjobs=4 --iodepth=256 --iodepth_batch_submit=64 --bsrange=512-256k \
	--size=16m --offset_increment=16m --verify=crc32c
check unload unload_sbd

# 4096-byte sectors: block sizes from 4 KiB.
check load-4k load_sbd nsectors=$((64 << 8)) hardsect_size=4096 || return
# shellcheck disable=SC2086 # $COMMON: a list of words, split on purpose
fio_ok disjoint-4jobs-4k $COMMON $MIXED --name=disjoint4k --numjobs=4 \
	--bsrange=4k-1m --size=16m --offset_increment=16m --verify=crc32c
check unload-4k unload_sbd

# Change the queue under a running verify job: fio runs over and over
# until the changes are done, and at least twice; each run must finish
# clean.  The changes start once fio's I/O has reached the disk, however
# long fio takes to start.
check load-switch load_sbd nsectors=$((64 << 11)) || return
for m in kyber_iosched bfq; do modprobe $m 2>/dev/null; done
Q=/sys/block/sbd0/queue
scheds=$(sed 's/[][]//g' $Q/scheduler)
# shellcheck disable=SC2086 # $scheds: a list of words, split on purpose
check_output schedulers-offered 'mq-deadline' echo $scheds
rm -f "$TMP/stop" "$TMP/fio-bad"
ios() { awk '{ print $1 + $5 }' /sys/block/sbd0/stat; }
ios0=$(ios)
(
	runs=0
	while [ ! -e "$TMP/stop" ] || [ $runs -lt 2 ]; do
		# shellcheck disable=SC2086 # $COMMON: a list of words, split on purpose
		if ! fio_ok "switch-run-$runs" $COMMON $MIXED --name=bg --numjobs=4 \
			--bsrange=512-1m --size=8m --offset_increment=16m \
			--verify=crc32c >"$TMP/fio-last" 2>&1; then
			cat "$TMP/fio-last"
			touch "$TMP/fio-bad"
			break
		fi
		runs=$((runs + 1))
	done
	echo $runs > "$TMP/fio-runs"
) &
bg=$!
# Wait (up to 300 s) for the first I/O from fio.
i=0
while [ "$(ios)" = "$ios0" ] && kill -0 $bg 2>/dev/null && [ $i -lt 3000 ]; do
	sleep 0.1
	i=$((i + 1))
done
# set NAME FILE VALUE: write a queue attribute, which must take the value.
set_q() {
	if echo "$3" > "$Q/$2" 2>"$TMP/err"; then
		case $2 in
		scheduler) _got=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $Q/scheduler) ;;
		*) _got=$(cat "$Q/$2") ;;
		esac
		expect "$1" "$3" "$_got"
	else
		fail "$1" "echo $3 > $Q/$2 failed: $(cat "$TMP/err")"
	fi
	sleep 1
}
for s in $scheds; do
	set_q "scheduler-$s" scheduler "$s"
	for v in 16 64 128; do set_q "$s/nr_requests-$v" nr_requests $v; done
	for v in 8 64 1024 4096 512; do set_q "$s/max_sectors_kb-$v" max_sectors_kb $v; done
	for v in 1 2 0; do set_q "$s/nomerges-$v" nomerges $v; done
done
touch "$TMP/stop"
# The last run must finish too: wait, but not forever.
i=0
while kill -0 $bg 2>/dev/null && [ $i -lt 300 ]; do sleep 1; i=$((i + 1)); done
if kill -0 $bg 2>/dev/null; then
	fail switch-fio-finished "fio still running 300 s after the last change"
else
	pass switch-fio-finished
fi
wait $bg
runs=$(cat "$TMP/fio-runs" 2>/dev/null)
if [ ! -e "$TMP/fio-bad" ] && [ "${runs:-0}" -ge 2 ]; then
	pass switch-fio-verified
else
	fail switch-fio-verified "clean fio runs: ${runs:-none}" "$(cat "$TMP/fio-last" 2>/dev/null)"
fi
set_q back-to-none scheduler none
check unload-switch unload_sbd
