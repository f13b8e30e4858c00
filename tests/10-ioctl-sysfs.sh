# SPDX-License-Identifier: GPL-2.0
# ioctls and sysfs: the size and block-size ioctls (through blockdev),
# BLKFLSBUF writing dirty pages out, and the queue attributes sbd sets.

# Requires: blkdiscard.
# QUICK=1: in the quick run (QUICK=1 scripts/run-tests.sh).

ncpu=$(nproc)
for ss in 512 4096; do
	t=$ss
	n=$(((16 << 20) / ss + 5))
	check "$t/load" load_sbd nsectors=$n hardsect_size=$ss || continue
	expect "$t/BLKGETSIZE64" $((n * ss)) "$(blockdev --getsize64 /dev/sbd0)"
	expect "$t/BLKGETSIZE" $((n * ss / 512)) "$(blockdev --getsize /dev/sbd0)"
	expect "$t/BLKSSZGET" $ss "$(blockdev --getss /dev/sbd0)"
	expect "$t/BLKPBSZGET" $ss "$(blockdev --getpbsz /dev/sbd0)"
	expect "$t/BLKIOMIN" $ss "$(blockdev --getiomin /dev/sbd0)"
	expect "$t/BLKROGET" 0 "$(blockdev --getro /dev/sbd0)"
	# BLKDISCARDZEROES is hard-wired to 0 by the kernel; what sbd
	# promises is that a discarded range reads back as zeros.
	head -c 65536 /dev/urandom | dd of=/dev/sbd0 bs=64k oflag=direct status=none
	check "$t/BLKDISCARD" blkdiscard -o 0 -l 65536 /dev/sbd0
	expect "$t/discarded-reads-zeros" 0 \
		"$(dd if=/dev/sbd0 bs=64k count=1 iflag=direct status=none | tr -d '\0' | wc -c)"
	expect "$t/rotational" 0 "$(cat /sys/block/sbd0/queue/rotational)"
	expect "$t/discard_max_bytes" 67108864 "$(cat /sys/block/sbd0/queue/discard_max_bytes)"
	expect "$t/discard_max_hw_bytes" 67108864 "$(cat /sys/block/sbd0/queue/discard_max_hw_bytes)"
	expect "$t/discard_granularity" $ss "$(cat /sys/block/sbd0/queue/discard_granularity)"
	expect "$t/write_zeroes_max_bytes" 67108864 "$(cat /sys/block/sbd0/queue/write_zeroes_max_bytes)"
	expect "$t/max_hw_sectors_kb" 4096 "$(cat /sys/block/sbd0/queue/max_hw_sectors_kb)"
	expect "$t/max_segments" 1024 "$(cat /sys/block/sbd0/queue/max_segments)"
	expect "$t/nr_requests" 128 "$(cat /sys/block/sbd0/queue/nr_requests)"
	expect "$t/scheduler-none" none "$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/block/sbd0/queue/scheduler)"
	expect "$t/hw-queues" "$ncpu" "$(ls -d /sys/block/sbd0/mq/[0-9]* | wc -l)"
	expect "$t/write_cache" "write through" "$(cat /sys/block/sbd0/queue/write_cache)"
	expect "$t/removable" 0 "$(cat /sys/block/sbd0/removable)"
	check "$t/unload" unload_sbd
done

# BLKFLSBUF: when it returns, the dirty pages of a buffered write are on
# the disk.  The shell holds the disk open (fd 3, open before dd starts,
# where a background holder might not be yet), so that no last close
# flushes them for us, and periodic writeback is off meanwhile.
check flsbuf/load load_sbd nsectors=$((16 << 11)) || return
wb=$(cat /proc/sys/vm/dirty_writeback_centisecs)
echo 0 > /proc/sys/vm/dirty_writeback_centisecs
exec 3< /dev/sbd0
written() { awk '{ print $7 }' /sys/block/sbd0/stat; }
random_file "$TMP/data" $((4 << 20))
w0=$(written)
check flsbuf/buffered-write dd if="$TMP/data" of=/dev/sbd0 bs=1M seek=2 \
	conv=notrunc status=none
w1=$(written)
check flsbuf/BLKFLSBUF blockdev --flushbufs /dev/sbd0
w2=$(written)
# Some pages may be written back before we ask: BLKFLSBUF must write
# the rest.  If none were left dirty, there is nothing to show.
if [ $((w1 - w0)) -ge 8192 ]; then
	skip flsbuf/dirty-pages-written "all written back before BLKFLSBUF"
elif [ $((w2 - w0)) -ge 8192 ]; then
	pass flsbuf/dirty-pages-written
else
	fail flsbuf/dirty-pages-written "512-byte sectors written: before the write $w0," \
		"after it $w1, after BLKFLSBUF $w2 (want $((w0 + 8192)) or more)"
fi
dd if=/dev/sbd0 of="$TMP/back" bs=1M skip=2 count=4 iflag=direct status=none
same flsbuf/data-on-disk "$TMP/data" "$TMP/back"
echo "$wb" > /proc/sys/vm/dirty_writeback_centisecs
exec 3<&-
check flsbuf/unload unload_sbd
rm -f "$TMP/data" "$TMP/back"
