# SPDX-License-Identifier: GPL-2.0
# Read-only: disks loaded with readonly=1 refuse every write and stay
# read-only; blockdev --setro makes every kind of write fail and leaves
# the data alone, reads still work; --setrw makes it writable again.

# Requires: sfdisk, blkdiscard, ext4.
# QUICK=1: in the quick run (QUICK=1 scripts/run-tests.sh).

# --- readonly=1: read-only from load time
random_file "$TMP/pattern" 65536
check load-ro load_sbd readonly=1 ndevices=2 nsectors=8192
expect ro-flag 1 "$(cat /sys/block/sbd0/ro)"
expect ro-flag-sbd1 1 "$(cat /sys/block/sbd1/ro)"
check_fails_with ro-dd-write 'Operation not permitted|Permission denied' dd if="$TMP/pattern" of=/dev/sbd0 bs=4k oflag=direct
check_fails_with ro-buffered-write 'Operation not permitted|Permission denied' dd if="$TMP/pattern" of=/dev/sbd1 bs=4k conv=fsync
check_fails_with ro-discard 'Operation not permitted|Permission denied' blkdiscard /dev/sbd0
check ro-read-zeros cmp -n 65536 /dev/sbd0 /dev/zero
check_fails_with ro-mkfs 'Operation not permitted|Permission denied' mkfs.ext4 -q -F /dev/sbd0
# A read-only disk stays read-only: --setrw changes only the bdev flag.
blockdev --setrw /dev/sbd0 2>/dev/null
check_fails_with ro-still-after-setrw 'Operation not permitted|Permission denied' dd if="$TMP/pattern" of=/dev/sbd0 bs=4k oflag=direct
check ro-unload unload_sbd

# --- blockdev --setro and --setrw
check load load_sbd nsectors=$((8 << 11)) || return
random_file "$TMP/data" $((8 << 20))
check write put "$TMP/data" /dev/sbd0 0

check setro blockdev --setro /dev/sbd0
expect getro 1 "$(blockdev --getro /dev/sbd0)"
expect sys-ro 1 "$(cat /sys/block/sbd0/ro)"
random_file "$TMP/other" $((1 << 20))
check_fails_with write-direct-refused 'Operation not permitted|Permission denied' put "$TMP/other" /dev/sbd0 0
check_fails_with write-buffered-refused 'Operation not permitted|Permission denied' dd if="$TMP/other" of=/dev/sbd0 bs=1M \
	conv=notrunc,fsync status=none
check_fails_with discard-refused 'Operation not permitted|Permission denied' blkdiscard -o 0 -l 65536 /dev/sbd0
check_fails_with zeroout-refused 'Operation not permitted|Permission denied' blkdiscard -z -o 0 -l 65536 /dev/sbd0
check_fails_with mkfs-refused 'Operation not permitted|Permission denied' mkfs.ext4 -q -F /dev/sbd0
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

# The driver's own refusal.  A mounted filesystem keeps writing after
# --setro: the block layer only warns ("Trying to write to read-only
# block-device") and passes its writes on, so sbd_do_rq's check is what
# keeps the store unchanged.
check fs/load load_sbd nsectors=$((32 << 11)) || return
check fs/mkfs mkfs.ext4 -q -F /dev/sbd0
check fs/mount mount -t ext4 /dev/sbd0 "$MNT"
random_file "$MNT/old" $((1 << 20))
sync
raw_sum() { dd if=/dev/sbd0 bs=1M iflag=direct status=none | sha256sum; }
before=$(raw_sum)
check fs/setro blockdev --setro /dev/sbd0
random_file "$TMP/new" $((4 << 20))
# The write lands in the page cache; writeback (sync) meets sbd's EIO.
cp "$TMP/new" "$MNT/new" 2>/dev/null
check_fails_with fs/sync-fails 'Input/output error|Read-only file system' \
	sync -f "$MNT/new"
umount "$MNT" 2>/dev/null || umount -l "$MNT"
# The first read after failed writeback may return the mapping's stored
# EIO once: read again.
raw_sum > /dev/null 2>&1
expect fs/store-unchanged "$before" "$(raw_sum)"
check fs/setrw blockdev --setrw /dev/sbd0
check fs/fsck-clean e2fsck -fn /dev/sbd0
check fs/unload unload_sbd

# A read-only partition.  sbd's check covers the whole disk: a disk set
# read-only refuses writes through its partitions too.  A partition set
# read-only on its own is the block layer's flag, which it only warns
# about: like any disk driver, sbd cannot see which partition a request
# came through, and the write is done (docs/usage.md, "Read-only disks").
check part/load load_sbd nsectors=$((16 << 11)) || return
check part/sfdisk sh -c 'printf "1MiB,4MiB\n,\n" | sfdisk -q /dev/sbd0'
random_file "$TMP/p" $((1 << 20))
check part/setro-disk blockdev --setro /dev/sbd0
check_fails_with part/disk-ro-write-p1-refused 'Operation not permitted|Permission denied' \
	dd if="$TMP/p" of=/dev/sbd0p1 bs=64k oflag=direct status=none
expect part/disk-ro-p1-still-zeros 0 \
	"$(dd if=/dev/sbd0p1 bs=1M count=1 iflag=direct status=none | tr -d '\0' | wc -c)"
check part/setrw-disk blockdev --setrw /dev/sbd0
check part/setro-p1 blockdev --setro /dev/sbd0p1
expect part/p1-ro 1 "$(cat /sys/block/sbd0/sbd0p1/ro)"
expect part/disk-rw 0 "$(cat /sys/block/sbd0/ro)"
check_fails_with part/p1-ro-user-write-refused 'Operation not permitted|Permission denied' \
	dd if="$TMP/p" of=/dev/sbd0p1 bs=64k oflag=direct status=none
check part/p2-writable dd if="$TMP/p" of=/dev/sbd0p2 bs=64k oflag=direct status=none
# A filesystem mounted on p2 before p2 is set read-only keeps writing:
# the kernel warns, and the write reaches the disk.
check part/mkfs-p2 mkfs.ext4 -q -F /dev/sbd0p2
check part/mount-p2 mount -t ext4 /dev/sbd0p2 "$MNT"
# The warning is pr_warn_ratelimited (10 per 5 s since 6.3, and in 6.1
# stable) and, in newer kernels, printed only once per device.  Neither
# may hide p2's first write after --setro, so the order is fixed:
#  - wait 6 s while nothing is read-only but p1, which nothing writes:
#    the 5 s window that the fs/ section's warnings opened is over, and
#    no new one opens;
#  - then the mark, and only then --setro: p2's first warning, be it
#    for our file or for ext4's own background writes (its inode tables
#    are still being zeroed), is after the mark.  (Marking after a wait
#    with p2 already read-only let those background writes take the
#    once-per-device warning before the mark: the check flaked.)
sleep 6
dmesg_mark
check part/setro-p2 blockdev --setro /dev/sbd0p2
random_file "$TMP/new" $((1 << 20))
cp "$TMP/new" "$MNT/new"
check part/p2-fs-write-passes sync -f "$MNT/new"
check_output part/p2-kernel-warns 'Trying to write to read-only block-device' dmesg_since mark
umount "$MNT"
check part/setrw-p2 blockdev --setrw /dev/sbd0p2
check part/mount-p2-again mount -t ext4 -o ro /dev/sbd0p2 "$MNT"
check part/p2-write-landed cmp "$TMP/new" "$MNT/new"
umount "$MNT"
check part/unload unload_sbd
rm -f "$TMP/new" "$TMP/p"
