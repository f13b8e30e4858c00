# SPDX-License-Identifier: GPL-2.0
# Geometry: for each sector size, every place that reports the size
# and the block sizes agrees with what was asked for.  The sector
# counts are odd so that nothing is a round number by accident.

# Requires: sbd.ko only.
# QUICK=1: in the quick run (QUICK=1 scripts/run-tests.sh).

ncpu=$(nproc)
for ss in 512 1024 2048 4096; do
	n=$((20479 + ss / 512 * 2))
	bytes=$((n * ss))
	t=$ss
	dmesg_mark
	check "$t/load" load_sbd nsectors=$n hardsect_size=$ss || continue
	expect "$t/sys-size" $((bytes / 512)) "$(cat /sys/block/sbd0/size)"
	expect "$t/logical_block_size" $ss "$(cat /sys/block/sbd0/queue/logical_block_size)"
	expect "$t/physical_block_size" $ss "$(cat /sys/block/sbd0/queue/physical_block_size)"
	expect "$t/hw_sector_size" $ss "$(cat /sys/block/sbd0/queue/hw_sector_size)"
	expect "$t/getsize64" $bytes "$(blockdev --getsize64 /dev/sbd0)"
	expect "$t/getsz" $((bytes / 512)) "$(blockdev --getsz /dev/sbd0)"
	expect "$t/getss" $ss "$(blockdev --getss /dev/sbd0)"
	expect "$t/getpbsz" $ss "$(blockdev --getpbsz /dev/sbd0)"
	major=$(awk '$2 == "sbd" { print $1 }' /proc/devices)
	expect "$t/proc-partitions" "$major 0 $((bytes / 1024)) sbd0" \
		"$(awk '$4 == "sbd0" { print $1, $2, $3, $4 }' /proc/partitions)"
	expect "$t/dev-node" "$major:0" "$(cat /sys/block/sbd0/dev)"
	expect "$t/hw-queues" "$ncpu" "$(ls -d /sys/block/sbd0/mq/[0-9]* | wc -l)"
	expect "$t/load-message" \
		"sbd: sbd0: $bytes bytes ($((bytes >> 20)) MiB), $ss-byte sectors, $ncpu hardware queues" \
		"$(sbd_dmesg)"
	check "$t/unload" unload_sbd
done
