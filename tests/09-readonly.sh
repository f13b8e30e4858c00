# SPDX-License-Identifier: GPL-2.0
# Read-only: blockdev --setro makes every kind of write fail and leaves
# the data alone, reads still work; --setrw makes it writable again.

check load load_sbd nsectors=$((8 << 11)) || return
random_file "$TMP/data" $((8 << 20))
check write put "$TMP/data" /dev/sbd0 0

check setro blockdev --setro /dev/sbd0
expect getro 1 "$(blockdev --getro /dev/sbd0)"
expect sys-ro 1 "$(cat /sys/block/sbd0/ro)"
random_file "$TMP/other" $((1 << 20))
check_fails write-direct-refused put "$TMP/other" /dev/sbd0 0
check_fails write-buffered-refused dd if="$TMP/other" of=/dev/sbd0 bs=1M \
	conv=notrunc,fsync status=none
check_fails discard-refused blkdiscard -o 0 -l 65536 /dev/sbd0
check_fails zeroout-refused blkdiscard -z -o 0 -l 65536 /dev/sbd0
check_fails mkfs-refused mkfs.ext4 -q -F /dev/sbd0
read_dev /dev/sbd0 "$TMP/back"
same reads-work-data-unchanged "$TMP/data" "$TMP/back"
check read-buffered cmp "$TMP/data" /dev/sbd0

check setrw blockdev --setrw /dev/sbd0
expect getro-after 0 "$(blockdev --getro /dev/sbd0)"
expect sys-ro-after 0 "$(cat /sys/block/sbd0/ro)"
check write-after-setrw put "$TMP/other" /dev/sbd0 $((3 << 20))
dd if="$TMP/other" of="$TMP/data" bs=1M seek=3 conv=notrunc status=none
check discard-after-setrw blkdiscard -o $((6 << 20)) -l $((1 << 20)) /dev/sbd0
zero_image "$TMP/data" $((6 << 20)) $((1 << 20))
read_dev /dev/sbd0 "$TMP/back"
same readback-after-setrw "$TMP/data" "$TMP/back"
check unload unload_sbd
rm -f "$TMP/data" "$TMP/back" "$TMP/other"
