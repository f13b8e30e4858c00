# SPDX-License-Identifier: GPL-2.0
# Plugged batches: when a submitter hands over several I/Os in one call
# (io_submit() or io_uring_enter() with more than two), blk-mq passes
# the whole plugged list to sbd's .queue_rqs, which completes it as one
# batch.  fio reaps 16 completions before it submits the next 16, so
# every call carries 16 I/Os.  The function tracer shows the batch path
# ran; data written through it verifies; a bad sector read inside a
# batch still fails with EIO (a failed request is never completed as
# part of the successful batch).

# Requires: fio; the function tracer for one check (skipped without).
# QUICK=1: in the quick run (QUICK=1 scripts/run-tests.sh).

BATCH="--filename=/dev/sbd0 --direct=1 --iodepth=32 --iodepth_batch_submit=16 --iodepth_batch_complete_min=16"
TR=/sys/kernel/tracing
[ -d $TR/events ] || mount -t tracefs nodev $TR 2>/dev/null

check load load_sbd nsectors=$((64 << 11)) || return

# Count calls of sbd_queue_rqs() while the batched writes run.  Where
# the kernel has the function tracer, sbd's handler must be traceable:
# a handler the compiler dropped is a failure, not a skip.
traced=no
if grep -qw function $TR/available_tracers 2>/dev/null; then
	check handler-traceable grep -q '^sbd_queue_rqs ' $TR/available_filter_functions &&
		echo sbd_queue_rqs > $TR/set_ftrace_filter &&
		echo function > $TR/current_tracer && echo > $TR/trace && traced=yes
fi
# shellcheck disable=SC2086 # $BATCH: a list of words, split on purpose
fio_ok uring-write-verify $BATCH --name=uring --ioengine=io_uring \
	--rw=randwrite --bs=4k --size=16m --verify=crc32c --verify_fatal=1
# shellcheck disable=SC2086
fio_ok libaio-write-verify $BATCH --name=aio --ioengine=libaio \
	--rw=randwrite --bsrange=512-64k --size=16m --offset=16m \
	--verify=crc32c --verify_fatal=1
if [ $traced = yes ]; then
	calls=$(grep -c 'sbd_queue_rqs' $TR/trace)
	echo nop > $TR/current_tracer
	echo > $TR/set_ftrace_filter
	check queue_rqs-called test "$calls" -gt 0
else
	skip queue_rqs-called "not traced (no function tracer, or the handler is not traceable)"
fi

# The same data read back by a plain QD1 reader, outside any batch.
# shellcheck disable=SC2086
fio_ok verify-unbatched --filename=/dev/sbd0 --direct=1 --name=uring \
	--ioengine=io_uring --rw=randwrite --bs=4k --size=16m \
	--verify=crc32c --verify_fatal=1 --verify_only

# A bad sector at 1 MiB: the batched read that covers it fails with EIO.
check badblock-mark sh -c 'echo "+2048 1" > /sys/block/sbd0/sbd/badblocks'
# shellcheck disable=SC2086
check_fails_with badblock-read-eio 'Input/output error|err= *5' \
	fio $BATCH --name=bad --ioengine=libaio --rw=read --bs=4k --size=4m
check badblock-clear sh -c 'echo "-2048 1" > /sys/block/sbd0/sbd/badblocks'
check unload unload_sbd
