# SPDX-License-Identifier: GPL-2.0
# Large blocks: logical blocks above the page size, which the block
# layer takes since 6.15 (up to BLK_MAX_BLOCK_SIZE, 64 KiB with
# transparent hugepages).  sbd must load up to exactly the limit the
# kernel's version implies and refuse anything larger with its one
# line.  Where the limit is the page size, that refusal is all there is
# to test.  Where it is larger, for each block size from 8 KiB up:
# geometry and limits; O_DIRECT I/O at the block size and multiples
# (and EINVAL below it); buffered I/O through the page cache; fio
# verify with several jobs; discard and zero-out; a bad 512-byte sector
# failing its whole block.  Then a GPT table, XFS and ext4 on such
# disks.

# Requires: fio, sfdisk, ext4, xfs; blocks over 4 KiB need 6.15 or later (skipped before).
# QUICK=0: not in the quick run (QUICK=1 scripts/run-tests.sh).

page=$(awk '/^KernelPageSize:/ { print $2 * 1024; exit }' /proc/self/smaps)
[ -n "$page" ] || page=4096
ncpu=$(nproc)

# The limit the kernel should have: 6.15 raised it from the page size
# to 64 KiB where transparent hugepages are built in (Debian's are).
want=$(uname -r | awk -F. -v page="$page" '{
	new = $1 > 6 || ($1 == 6 && $2 + 0 >= 15)
	print new ? 65536 : page }')
[ -d /sys/kernel/mm/transparent_hugepage ] || want=$page
maxbs=$(sbd_max_block)
expect limit-is-the-kernels "$want" "$maxbs"

# refused_above BS: hardsect_size=BS fails with EINVAL and one sbd line
# naming this kernel's limit, and leaves nothing behind.
refused_above() {
	dmesg_mark
	check_fails_with "refuse-$1/insmod-EINVAL" 'Invalid parameters' \
		insmod "$SBD_KO" hardsect_size="$1"
	expect "refuse-$1/one-dmesg-line" \
		"sbd: hardsect_size=$1 is invalid: use a power of two from 512 to $maxbs (this kernel's largest logical block)" \
		"$(sbd_dmesg)"
	expect "refuse-$1/nothing-left" "" "$(sbd_leftovers)"
	unload_sbd 2>/dev/null
}

refused_above $((maxbs * 2))
if [ "$maxbs" -le "$page" ]; then
	refused_above 65536
	check_output modinfo-range 'hardsect_size:.*from 512 to the page size' \
		modinfo -p "$SBD_KO"
	check load-page-size-after load_sbd nsectors=16 hardsect_size="$page" &&
		check unload-page-size-after unload_sbd
	for what in geometry direct-io buffered-io fio-verify discard \
		    badblocks gpt xfs ext4; do
		skip "$what" "$(uname -r) takes logical blocks up to the page size only (6.15 lifted that)"
	done
	return
fi
check_output modinfo-range 'hardsect_size:.*from 512 to 65536' \
	modinfo -p "$SBD_KO"

sizes=""
bs=$((page * 2))
while [ $bs -le "$maxbs" ]; do
	sizes="$sizes $bs"
	bs=$((bs * 2))
done

# direct_rw T BLOCK COUNT: write COUNT random blocks at block BLOCK in
# one O_DIRECT request and read them back the same way.
direct_rw() {
	_len=$(($3 * bs))
	random_file "$TMP/chunk" $_len
	check "$1/direct-write-$3@$2" dd if="$TMP/chunk" of=/dev/sbd0 bs=$_len \
		seek=$(($2 * bs)) count=1 oflag=direct,seek_bytes conv=notrunc \
		status=none || return
	put_image "$TMP/chunk" "$TMP/image" $(($2 * bs))
	dd if=/dev/sbd0 of="$TMP/back" bs=$_len skip=$(($2 * bs)) count=1 \
		iflag=direct,skip_bytes status=none
	same "$1/direct-read-$3@$2" "$TMP/chunk" "$TMP/back"
}

for bs in $sizes; do
	t=$bs
	# 16 MiB and 3 blocks: an odd number of blocks, nothing round.
	n=$(((16 << 20) / bs + 3))
	bytes=$((n * bs))
	q=/sys/block/sbd0/queue
	dmesg_mark
	check "$t/load" load_sbd nsectors=$n hardsect_size="$bs" || continue

	# --- geometry and limits: all whole blocks
	expect "$t/getss" "$bs" "$(blockdev --getss /dev/sbd0)"
	expect "$t/getpbsz" "$bs" "$(blockdev --getpbsz /dev/sbd0)"
	expect "$t/logical_block_size" "$bs" "$(cat $q/logical_block_size)"
	expect "$t/physical_block_size" "$bs" "$(cat $q/physical_block_size)"
	expect "$t/minimum_io_size" "$bs" "$(cat $q/minimum_io_size)"
	expect "$t/discard_granularity" "$bs" "$(cat $q/discard_granularity)"
	expect "$t/discard_max_hw_bytes" $((64 << 20)) "$(cat $q/discard_max_hw_bytes)"
	expect "$t/write_zeroes_max_bytes" $((64 << 20)) \
		"$(cat $q/write_zeroes_max_bytes)"
	expect "$t/max_hw_sectors_kb" 4096 "$(cat $q/max_hw_sectors_kb)"
	expect "$t/sys-size" $((bytes / 512)) "$(cat /sys/block/sbd0/size)"
	expect "$t/getsize64" $bytes "$(blockdev --getsize64 /dev/sbd0)"
	expect "$t/sbd-hardsect_size" "$bs" "$(cat /sys/block/sbd0/sbd/hardsect_size)"
	expect "$t/load-message" \
		"sbd: sbd0: $bytes bytes ($((bytes >> 20)) MiB), $bs-byte sectors, $ncpu hardware queues" \
		"$(sbd_dmesg)"

	# --- O_DIRECT: whole blocks work, anything smaller is EINVAL.  The
	# disk is mirrored in $TMP/image and compared whole after each step.
	random_file "$TMP/image" $bytes
	check "$t/fill" put "$TMP/image" /dev/sbd0 0 || { unload_sbd; continue; }
	same_as_image "$t/fill-reads-back"
	direct_rw "$t" 1 1
	direct_rw "$t" 4 2
	direct_rw "$t" 9 3
	direct_rw "$t" $((n - 1)) 1
	direct_rw "$t" 16 $(((1 << 20) / bs))
	check_fails_with "$t/direct-read-4k-EINVAL" 'Invalid argument' \
		dd if=/dev/sbd0 of=/dev/null bs=4096 count=1 iflag=direct
	check_fails_with "$t/direct-write-4k-EINVAL" 'Invalid argument' \
		dd if="$TMP/chunk" of=/dev/sbd0 bs=4096 count=1 oflag=direct
	check_fails_with "$t/direct-read-half-block-EINVAL" 'Invalid argument' \
		dd if=/dev/sbd0 of=/dev/null bs=$((bs / 2)) count=1 iflag=direct
	check_fails_with "$t/direct-write-off-block-EINVAL" 'Invalid argument' \
		dd if="$TMP/chunk" of=/dev/sbd0 bs="$bs" seek=4096 count=1 \
		oflag=direct,seek_bytes conv=notrunc
	same_as_image "$t/direct-rest-unchanged"

	# --- buffered: 4 KiB writes inside blocks make the page cache read,
	# modify and write back whole blocks; then whole blocks; both must
	# reach the disk and read back through the cache after a drop.
	random_file "$TMP/chunk" 12288
	check "$t/buffered-write-4k" dd if="$TMP/chunk" of=/dev/sbd0 bs=4096 \
		seek=$((3 * bs + 4096)) oflag=seek_bytes conv=notrunc,fsync status=none
	put_image "$TMP/chunk" "$TMP/image" $((3 * bs + 4096))
	random_file "$TMP/chunk" $((4 * bs))
	check "$t/buffered-write-blocks" dd if="$TMP/chunk" of=/dev/sbd0 bs="$bs" \
		seek=$((12 * bs)) oflag=seek_bytes conv=notrunc,fsync status=none
	put_image "$TMP/chunk" "$TMP/image" $((12 * bs))
	drop_caches
	same_as_image "$t/buffered-writes-on-disk"
	dd if=/dev/sbd0 of="$TMP/back" bs=4096 status=none
	same "$t/buffered-read" "$TMP/image" "$TMP/back"
	drop_caches

	# --- discard and zero-out: zeros in the range, neighbours intact;
	# a range off the block grid is refused.
	for ol in $bs:$((2 * bs)) $((7 * bs)):$bs $((1 << 20)):$(((1 << 20) + bs)) \
		  $((bytes - bs)):$bs; do
		o=${ol%:*} l=${ol#*:}
		for z in "" -z; do
			what=discard${z:+-zeroout}-$o+$l
			lo=$((o - bs)) hi=$((o + l + bs < bytes ? o + l + bs : bytes))
			discard_check "$t/$what" "$o" "$l" $lo $hi $z
		done
	done
	check_fails "$t/discard-off-block-refused" \
		blkdiscard -o 4096 -l "$bs" /dev/sbd0
	check_fails "$t/zeroout-off-block-refused" \
		blkdiscard -z -o 0 -l $((bs + 4096)) /dev/sbd0
	same_as_image "$t/refused-discards-changed-nothing"

	# --- a bad 512-byte sector in the middle of block 6 fails every
	# I/O touching block 6 and nothing else.
	BB=/sys/block/sbd0/sbd/badblocks
	s=$((6 * bs / 512 + bs / 1024))
	random_file "$TMP/chunk" "$bs"
	check "$t/bb-mark" sh -c "echo '+$s 1' > $BB"
	check_fails_with "$t/bb-read-block-EIO" 'Input/output error' \
		dd if=/dev/sbd0 of=/dev/null bs="$bs" skip=6 count=1 iflag=direct
	check_fails_with "$t/bb-write-block-EIO" 'Input/output error' \
		dd if="$TMP/chunk" of=/dev/sbd0 bs="$bs" seek=6 count=1 oflag=direct \
		conv=notrunc
	drop_caches
	check_fails_with "$t/bb-buffered-read-first-4k-EIO" 'Input/output error' \
		dd if=/dev/sbd0 of=/dev/null bs=4096 skip=$((6 * bs / 4096)) count=1
	check "$t/bb-block-before-reads" \
		dd if=/dev/sbd0 of=/dev/null bs="$bs" skip=5 count=1 iflag=direct
	check "$t/bb-block-after-reads" \
		dd if=/dev/sbd0 of=/dev/null bs="$bs" skip=7 count=1 iflag=direct
	check "$t/bb-clear" sh -c "echo '-$s 1' > $BB"
	check "$t/bb-block-reads-after-clear" \
		dd if=/dev/sbd0 of=/dev/null bs="$bs" skip=6 count=1 iflag=direct
	same_as_image "$t/bb-failed-write-changed-nothing"

	# --- fio: random writes at the block size and twice it, 2 and 4
	# jobs on their own 4 MiB each, every block verified (crc32c).
	for m in 1 2; do
		check "$t/fio-verify-bs$((m * bs))-jobs$((m * 2))" fio --name=v \
			--filename=/dev/sbd0 --rw=randwrite --bs=$((m * bs)) \
			--direct=1 --ioengine=libaio --iodepth=8 \
			--numjobs=$((m * 2)) --size=4M --offset_increment=4M \
			--verify=crc32c --verify_fatal=1 --group_reporting
	done
	check "$t/unload" unload_sbd
	rm -f "$TMP/image" "$TMP/back" "$TMP/chunk"
done

# --- GPT on the largest block: sfdisk takes the sector size from the
# device, partitions start on 1 MiB, each maps onto its own bytes.
bs=$maxbs t=gpt@$maxbs
n=$(((40 << 20) / bs))
if check "$t/load" load_sbd nsectors=$n hardsect_size="$bs"; then
	check "$t/sfdisk" sh -c "printf 'label: gpt\nsize=8MiB\nsize=8MiB\n' |
		sfdisk -q /dev/sbd0"
	check_output "$t/sector-size" \
		"Sector size \(logical/physical\): $bs bytes / $bs bytes" \
		sfdisk -l /dev/sbd0
	expect "$t/header-at-lba-1" "EFI PART" \
		"$(dd if=/dev/sbd0 bs="$bs" skip=1 count=1 iflag=direct status=none | head -c 8)"
	expect "$t/backup-header-at-last-lba" "EFI PART" \
		"$(dd if=/dev/sbd0 bs="$bs" skip=$((n - 1)) count=1 iflag=direct status=none | head -c 8)"
	for p in 1 2; do
		start=$(sfdisk -d /dev/sbd0 | sed -n "s|^/dev/sbd0p$p .*start= *\([0-9]*\).*|\1|p")
		check "$t/p$p-node" test -b /dev/sbd0p$p || continue
		expect "$t/p$p-sys-start" $((start * bs / 512)) \
			"$(cat /sys/block/sbd0/sbd0p$p/start)"
		expect "$t/p$p-on-1MiB" 0 $((start * bs % (1 << 20)))
		expect "$t/p$p-size" $((8 << 20)) "$(blockdev --getsize64 /dev/sbd0p$p)"
		expect "$t/p$p-getss" "$bs" "$(blockdev --getss /dev/sbd0p$p)"
		expect "$t/p$p-alignment_offset" 0 \
			"$(cat /sys/block/sbd0/sbd0p$p/alignment_offset)"
		random_file "$TMP/p$p" $((8 << 20))
		check "$t/p$p-write" put "$TMP/p$p" /dev/sbd0p$p 0
	done
	for p in 1 2; do
		[ -f "$TMP/p$p" ] || continue
		read_dev /dev/sbd0p$p "$TMP/back"
		same "$t/p$p-reads-back" "$TMP/p$p" "$TMP/back"
		dd if=/dev/sbd0 of="$TMP/back" bs="$bs" \
			skip=$(($(cat /sys/block/sbd0/sbd0p$p/start) * 512)) \
			count=$((8 << 20)) iflag=direct,skip_bytes,count_bytes status=none
		same "$t/p$p-is-at-its-start-on-disk" "$TMP/p$p" "$TMP/back"
	done
	check "$t/rereadpt" blockdev --rereadpt /dev/sbd0
	check "$t/p2-after-rereadpt" test -b /dev/sbd0p2
	check "$t/unload" unload_sbd
	rm -f "$TMP/p1" "$TMP/p2" "$TMP/back"
fi

# --- filesystems.  fs_check T TYPE FSCK...: mount, write files around
# the block size, unmount, fsck, mount again and compare checksums.
fs_check() {
	_t=$1 _type=$2
	shift 2
	check "$_t/mount" mount -t "$_type" /dev/sbd0 "$MNT" || return
	expect "$_t/fs-block-size" "$bs" "$(stat -f -c %S "$MNT")"
	for s in 1 4097 $((bs - 1)) $((bs + 1)) $((3 * bs)) 1048577; do
		random_file "$MNT/f$s" $s
	done
	_sums=$(cd "$MNT" && sha256sum f*)
	check "$_t/umount" umount "$MNT" || return
	drop_caches
	check "$_t/fsck-clean" "$@" /dev/sbd0
	check "$_t/remount" mount -t "$_type" /dev/sbd0 "$MNT" || return
	expect "$_t/checksums" "$_sums" "$(cd "$MNT" && sha256sum f*)"
	check "$_t/umount-2" umount "$MNT"
}

# XFS: block and sector size both the disk's; mkfs.xfs wants 300 MB.
# XFS sectors top out at 32 KiB, so a 64 KiB-sector disk cannot hold it.
for bs in $sizes; do
	t=xfs@$bs
	check "$t/load" load_sbd nsectors=$(((320 << 20) / bs)) hardsect_size="$bs" ||
		continue
	if [ "$bs" -le 32768 ]; then
		check "$t/mkfs" mkfs.xfs -q -f -b size="$bs" -s size="$bs" /dev/sbd0 &&
			fs_check "$t" xfs xfs_repair -n
	else
		check_fails "$t/mkfs-refused-sector-over-32k" mkfs.xfs -q -f /dev/sbd0
	fi
	check "$t/unload" unload_sbd
done

# ext4 with blocks as large as the disk's sectors.
for bs in $sizes; do
	t=ext4@$bs
	check "$t/load" load_sbd nsectors=$(((256 << 20) / bs)) hardsect_size="$bs" ||
		continue
	check "$t/mkfs" mkfs.ext4 -q -F -b "$bs" /dev/sbd0 &&
		fs_check "$t" ext4 e2fsck -fn
	check "$t/unload" unload_sbd
done
