# SPDX-License-Identifier: GPL-2.0
# Partitions: a table written with sfdisk shows up as sbd0p1, sbd0p2
# with the right start and size, each maps onto the right bytes of the
# disk, a filesystem on one leaves the other alone, and re-reading the
# table works while nothing is mounted (and is refused while mounted).

# part_geometry_ok T N: sbd0pN matches what sfdisk -d says (sysfs in
# 512-byte units, sfdisk in the disk's sectors).
part_geometry_ok() {
	_t=$1 _p=$2
	_line=$(sfdisk -d /dev/sbd0 | grep "^/dev/sbd0p$_p ")
	_start=$(echo "$_line" | sed -n 's/.*start= *\([0-9]*\).*/\1/p')
	_size=$(echo "$_line" | sed -n 's/.*size= *\([0-9]*\).*/\1/p')
	check "$_t/p$_p-node" test -b /dev/sbd0p$_p || return 1
	expect "$_t/p$_p-sys-start" $((_start * ss / 512)) \
		"$(cat /sys/block/sbd0/sbd0p$_p/start)"
	expect "$_t/p$_p-sys-size" $((_size * ss / 512)) \
		"$(cat /sys/block/sbd0/sbd0p$_p/size)"
	expect "$_t/p$_p-getsize64" $((_size * ss)) \
		"$(blockdev --getsize64 /dev/sbd0p$_p)"
	expect "$_t/p$_p-proc-partitions" $((_size * ss / 1024)) \
		"$(awk -v n=sbd0p$_p '$4 == n { print $3 }' /proc/partitions)"
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
	random_file "$TMP/p2" $p2size
	check "$t/p2-fill" put "$TMP/p2" /dev/sbd0p2 0
	dd if=/dev/sbd0 of="$TMP/back" bs=64k skip=$p2start count=$p2size \
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
