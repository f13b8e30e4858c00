# SPDX-License-Identifier: GPL-2.0
# Data: what is written is what is read, at every offset and length
# the block layer allows, through O_DIRECT and through the page cache;
# nothing beyond the end is reachable; neighbours are never touched.
#
# $TMP/image mirrors what the device must hold; after every write the
# whole device is read back (O_DIRECT, so from sbd, not the page
# cache) and compared with it.

# Requires: sbd.ko only.
# QUICK=0: not in the quick run (QUICK=1 scripts/run-tests.sh).

# pread_bytes [-d] OFFSET LENGTH: how many bytes a pread() returns.
pread_bytes() {
	_d=
	[ "$1" = -d ] && { _d=-d; shift; }
	xfs_io $_d -r -c "pread $1 $2" /dev/sbd0 2>&1 |
		sed -n 's|^read \([0-9]*\)/.*|\1|p' | head -n 1
}

for ss in 512 4096; do
	# 4 MiB and three sectors: the end is not on a MiB boundary.
	n=$(((4 << 20) / ss + 3))
	size=$((n * ss))
	t=$ss
	check "$t/load" load_sbd nsectors=$n hardsect_size=$ss || continue

	# A fresh device reads zeros, through sbd and through the cache.
	expect "$t/fresh-zeros-direct" 0 \
		"$(dd if=/dev/sbd0 bs=1M iflag=direct status=none | tr -d '\0' | wc -c)"
	check "$t/fresh-zeros-buffered" cmp -n $size /dev/sbd0 /dev/zero

	# The whole device, O_DIRECT in, O_DIRECT out.
	random_file "$TMP/image" $size
	check "$t/whole-write-direct" put "$TMP/image" /dev/sbd0 0
	same_as_image "$t/whole-readback-direct"
	# ... and through the page cache, read back after dropping it.
	random_file "$TMP/image" $size
	check "$t/whole-write-buffered" dd if="$TMP/image" of=/dev/sbd0 bs=1M \
		conv=fsync status=none
	drop_caches
	check "$t/whole-readback-buffered" cmp "$TMP/image" /dev/sbd0
	same_as_image "$t/whole-readback-direct-after-buffered"

	# Odd offsets and lengths (in sectors): single sectors, runs that
	# cross page boundaries, the first and the very last sector.
	for ol in 0:1 1:1 7:3 9:17 $((4096 / ss * 3 - 1)):2 \
		  $((4096 / ss * 5 + 1)):$((4096 / ss * 9 + 1)) \
		  101:57 $((n / 2 - 1)):$((n / 3)) $((n - 1)):1 \
		  $((n - 4097 / ss - 2)):$((4097 / ss + 2)); do
		o=$((${ol%:*} * ss)) l=$((${ol#*:} * ss))
		random_file "$TMP/chunk" $l
		put_image "$TMP/chunk" "$TMP/image" $o
		check "$t/write-direct-$o+$l" put "$TMP/chunk" /dev/sbd0 $o &&
			same_as_image "$t/readback-direct-$o+$l"
	done
	# The same through the page cache (read-modify-write of pages when
	# sectors are smaller than a page), then sync and drop the cache.
	for ol in 3:1 5:13 $((4096 / ss * 7 - 1)):3 $((n - 1)):1; do
		o=$((${ol%:*} * ss)) l=$((${ol#*:} * ss))
		random_file "$TMP/chunk" $l
		put_image "$TMP/chunk" "$TMP/image" $o
		check "$t/write-buffered-$o+$l" dd if="$TMP/chunk" of=/dev/sbd0 \
			bs=$l seek=$o oflag=seek_bytes conv=notrunc status=none
		check "$t/sync-$o+$l" sync
		echo 3 > /proc/sys/vm/drop_caches
		same_as_image "$t/readback-buffered-$o+$l"
		dd if=/dev/sbd0 of="$TMP/back" bs=$l skip=$o iflag=skip_bytes \
			count=1 status=none
		same "$t/cached-read-buffered-$o+$l" "$TMP/chunk" "$TMP/back"
	done

	# The end: reads at or past it return 0 bytes; the last sector is
	# readable; writes at or past it fail and change nothing.
	expect "$t/read-last-sector" $ss "$(pread_bytes $((size - ss)) $ss)"
	expect "$t/read-last-sector-direct" $ss "$(pread_bytes -d $((size - ss)) $ss)"
	expect "$t/read-across-end-short" $ss "$(pread_bytes $((size - ss)) $((2 * ss)))"
	expect "$t/read-at-end" 0 "$(pread_bytes $size $ss)"
	expect "$t/read-at-end-direct" 0 "$(pread_bytes -d $size $ss)"
	expect "$t/read-past-end" 0 "$(pread_bytes $((size + 8 * ss)) $ss)"
	expect "$t/read-past-end-direct" 0 "$(pread_bytes -d $((size + 8 * ss)) $ss)"
	check_fails_with "$t/write-at-end-direct" 'No space left' \
		dd if="$TMP/chunk" of=/dev/sbd0 bs=$ss count=1 seek=$n \
		oflag=direct conv=notrunc status=none
	check_fails_with "$t/write-at-end-buffered" 'No space left' \
		dd if="$TMP/chunk" of=/dev/sbd0 bs=$ss count=1 seek=$n \
		conv=notrunc,fsync status=none
	check_fails_with "$t/write-past-end" 'No space left' \
		xfs_io -d -c "pwrite -q $((size + 8 * ss)) $ss" /dev/sbd0
	same_as_image "$t/end-writes-changed-nothing"

	# Misaligned O_DIRECT: offset or length not a multiple of the
	# logical block size is refused (EINVAL) and changes nothing.  (-b:
	# one system call, not xfs_io's default 4 KiB pieces.)
	half=$((ss / 2))
	check_fails_with "$t/direct-read-misaligned-offset" 'Invalid argument' \
		xfs_io -d -r -c "pread -q $half $ss" /dev/sbd0
	check_fails_with "$t/direct-read-misaligned-length" 'Invalid argument' \
		xfs_io -d -r -c "pread -q -b $((ss + half)) 0 $((ss + half))" /dev/sbd0
	check_fails_with "$t/direct-write-misaligned-offset" 'Invalid argument' \
		xfs_io -d -c "pwrite -q $half $ss" /dev/sbd0
	check_fails_with "$t/direct-write-misaligned-length" 'Invalid argument' \
		xfs_io -d -c "pwrite -q -b $((ss + half)) 0 $((ss + half))" /dev/sbd0
	check_fails_with "$t/dd-direct-misaligned" 'Invalid argument' \
		dd if="$TMP/chunk" of=/dev/sbd0 bs=$half count=1 oflag=direct \
		conv=notrunc status=none
	same_as_image "$t/misaligned-changed-nothing"

	check "$t/unload" unload_sbd
	rm -f "$TMP/image" "$TMP/back" "$TMP/chunk"
done
