# SPDX-License-Identifier: GPL-2.0
# Smoke: the path every user takes.  Load with explicit sizes, raw I/O,
# a filesystem, fio with verification, unload.

# Requires: sbd.ko; mkfs.ext4, e2fsck, fio.
# QUICK=1: in the quick run (QUICK=1 scripts/run-tests.sh).

check load load_sbd nsectors=16384 hardsect_size=4096
expect size-sectors 131072 "$(cat /sys/block/sbd0/size)"
expect logical-block-size 4096 "$(cat /sys/block/sbd0/queue/logical_block_size)"

random_file "$TMP/pattern" $((64 << 20))
check dd-write dd if="$TMP/pattern" of=/dev/sbd0 bs=1M oflag=direct
check dd-read dd if=/dev/sbd0 of="$TMP/readback" bs=1M iflag=direct
same dd-readback-identical "$TMP/pattern" "$TMP/readback"
rm -f "$TMP/pattern" "$TMP/readback"

check mkfs mkfs.ext4 -q -F /dev/sbd0
check mount mount -t ext4 /dev/sbd0 "$MNT"
for i in 1 2 3; do random_file "$MNT/file$i" $(((1 << 20) * i)); done
sums=$(cd "$MNT" && sha256sum file*)
check umount umount "$MNT"
check fsck e2fsck -fn /dev/sbd0
check remount mount -t ext4 /dev/sbd0 "$MNT"
expect files-intact "$sums" "$(cd "$MNT" && sha256sum file*)"
check umount-again umount "$MNT"

check fio-verify fio --name=smoke --filename=/dev/sbd0 --rw=randwrite \
	--bs=4k --size=16m --ioengine=libaio --iodepth=16 --direct=1 \
	--verify=crc32c --verify_fatal=1 --do_verify=1

check unload unload_sbd
