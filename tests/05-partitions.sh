# SPDX-License-Identifier: GPL-2.0
# Partitions: a table written with sfdisk shows up as sbd0p1, sbd0p2
# with the right start and size, each maps onto the right bytes of the
# disk, a filesystem on one leaves the other alone, and re-reading the
# table works while nothing is mounted (and is refused while mounted).

# Requires: sfdisk, ext4 (mkfs.ext4, e2fsck).
# QUICK=0: not in the quick run (QUICK=1 scripts/run-tests.sh).

# part_geometry_ok T N: sbd0pN matches what sfdisk -d says (sysfs in
# 512-byte units, sfdisk in the disk's sectors).
part_geometry_ok() {
	_t=$1 _p=$2
	_line=$(sfdisk -d /dev/sbd0 | grep "^/dev/sbd0p$_p ")
	_start=$(echo "$_line" | sed -n 's/.*start= *\([0-9]*\).*/\1/p')
	_size=$(echo "$_line" | sed -n 's/.*size= *\([0-9]*\).*/\1/p')
	check "$_t/p$_p-node" test -b /dev/sbd0p"$_p" || return 1
	expect "$_t/p$_p-sys-start" $((_start * ss / 512)) \
		"$(cat /sys/block/sbd0/sbd0p"$_p"/start)"
	expect "$_t/p$_p-sys-size" $((_size * ss / 512)) \
		"$(cat /sys/block/sbd0/sbd0p"$_p"/size)"
	expect "$_t/p$_p-getsize64" $((_size * ss)) \
		"$(blockdev --getsize64 /dev/sbd0p"$_p")"
	expect "$_t/p$_p-proc-partitions" $((_size * ss / 1024)) \
		"$(awk -v n=sbd0p"$_p" '$4 == n { print $3 }' /proc/partitions)"
}

for ss in 512 4096; do
	t=$ss
	check "$t/load" load_sbd nsectors=$(((48 << 20) / ss)) hardsect_size=$ss ||
		continue
	check "$t/sfdisk" sh -c "printf 'label: dos\nsize=20MiB\nsize=16MiB\n' |
		sfdisk -q /dev/sbd0" || { unload_sbd; continue; }
	part_geometry_ok "$t" 1
	part_geometry_ok "$t" 2
	expect "$t/no-p3" "" "$(ls /dev/sbd0p3 2>/dev/null)"

	# Each partition maps onto its own bytes of the disk.
	p2start=$(($(cat /sys/block/sbd0/sbd0p2/start) * 512))
	p2size=$(blockdev --getsize64 /dev/sbd0p2)
	random_file "$TMP/p2" "$p2size"
	check "$t/p2-fill" put "$TMP/p2" /dev/sbd0p2 0
	dd if=/dev/sbd0 of="$TMP/back" bs=64k skip=$p2start count="$p2size" \
		iflag=direct,skip_bytes,count_bytes status=none
	same "$t/p2-is-at-its-start-on-disk" "$TMP/p2" "$TMP/back"

	# A filesystem on p1 does not touch p2.
	check "$t/mkfs-p1" mkfs.ext4 -q -F /dev/sbd0p1
	check "$t/mount-p1" mount -t ext4 /dev/sbd0p1 "$MNT"
	for i in 1 2 3 4; do random_file "$MNT/f$i" $((i * 1500000)); done
	sums=$(cd "$MNT" && sha256sum f*)
	check_fails_with "$t/rereadpt-refused-while-mounted" 'busy' \
		blockdev --rereadpt /dev/sbd0
	check "$t/umount-p1" umount "$MNT"
	check "$t/fsck-p1" e2fsck -fn /dev/sbd0p1
	read_dev /dev/sbd0p2 "$TMP/back"
	same "$t/p2-intact-after-fs-on-p1" "$TMP/p2" "$TMP/back"

	# Re-read: a table written without telling the kernel appears only
	# after blockdev --rereadpt; data in the kept partitions survives.
	check "$t/sfdisk-no-reread" sh -c "printf 'label: dos\nsize=20MiB\nsize=16MiB\nsize=4MiB\n' |
		sfdisk -q --no-reread --no-tell-kernel /dev/sbd0"
	expect "$t/p3-not-yet" "" "$(ls /dev/sbd0p3 2>/dev/null)"
	check "$t/rereadpt" blockdev --rereadpt /dev/sbd0
	part_geometry_ok "$t/reread" 3
	part_geometry_ok "$t/reread" 2
	read_dev /dev/sbd0p2 "$TMP/back"
	same "$t/p2-intact-after-rereadpt" "$TMP/p2" "$TMP/back"
	check "$t/remount-p1" mount -t ext4 /dev/sbd0p1 "$MNT" &&
		expect "$t/p1-files-intact" "$sums" "$(cd "$MNT" && sha256sum f*)" &&
		check "$t/umount-p1-again" umount "$MNT"
	check "$t/unload" unload_sbd
	expect "$t/partitions-gone" "" "$(ls /dev/sbd0* 2>/dev/null)"
	rm -f "$TMP/p2" "$TMP/back"
done

# BLKPG: add and delete a partition without a table (addpart/delpart,
# in 512-byte units); I/O past a partition's end; BLKBSZSET, then
# buffered I/O through the new block size.
check blkpg/load load_sbd nsectors=$((16 << 11)) || return
random_file "$TMP/disk" $((16 << 20))
check blkpg/fill put "$TMP/disk" /dev/sbd0 0
check blkpg/addpart addpart /dev/sbd0 1 2048 4096
expect blkpg/p1-size $((4096 * 512)) "$(blockdev --getsize64 /dev/sbd0p1)"
# p1 reads the disk's bytes from 1 MiB.
dd if="$TMP/disk" of="$TMP/want" bs=1M skip=1 count=2 status=none
read_dev /dev/sbd0p1 "$TMP/back"
same blkpg/p1-maps-onto-its-bytes "$TMP/want" "$TMP/back"
random_file "$TMP/blk" 4096
check_fails_with blkpg/write-past-p1-end 'No space left on device' \
	dd if="$TMP/blk" of=/dev/sbd0p1 bs=4096 seek=512 oflag=direct status=none
expect blkpg/read-past-p1-end-empty 0 \
	"$(dd if=/dev/sbd0p1 bs=4096 skip=512 count=1 iflag=direct status=none | wc -c)"
read_dev /dev/sbd0 "$TMP/back"
same blkpg/disk-unchanged-by-refused-write "$TMP/disk" "$TMP/back"
check_fails_with blkpg/overlapping-add-refused 'busy|Device or resource busy' \
	addpart /dev/sbd0 2 4000 100
check blkpg/delpart delpart /dev/sbd0 1
expect blkpg/p1-gone "" "$(ls /dev/sbd0p1 2>/dev/null)"

# BLKBSZSET: the block size buffered I/O uses; data goes through whole.
check bsz/setbsz blockdev --setbsz 4096 /dev/sbd0
expect bsz/getbsz 4096 "$(blockdev --getbsz /dev/sbd0)"
random_file "$TMP/buf" $((1 << 20))
check bsz/buffered-write dd if="$TMP/buf" of=/dev/sbd0 bs=512 seek=3 conv=notrunc,fsync status=none
drop_caches
dd if=/dev/sbd0 of="$TMP/back" bs=512 skip=3 count=2048 status=none
same bsz/buffered-read-back "$TMP/buf" "$TMP/back"
check blkpg/unload unload_sbd
rm -f "$TMP/disk" "$TMP/want" "$TMP/back" "$TMP/blk" "$TMP/buf"
