# SPDX-License-Identifier: GPL-2.0
# Discard and write-zeroes: blkdiscard and blkdiscard -z on ranges full
# of random data leave zeros there and nothing else changed, for ranges
# on and off page boundaries and longer than one request (64 MiB);
# fstrim on a mounted ext4 succeeds and really zeroes the freed space.

# Requires: blkdiscard, fstrim, ext4.
# QUICK=0: not in the quick run (QUICK=1 scripts/run-tests.sh).

for ss in 512 4096; do
	# 4 MiB and a sector, so the last sector is off any page boundary.
	n=$(((4 << 20) / ss + 1))
	size=$((n * ss))
	t=$ss
	check "$t/load" load_sbd nsectors=$n hardsect_size=$ss || continue
	random_file "$TMP/image" $size
	check "$t/fill" put "$TMP/image" /dev/sbd0 0
	for ol in 5120:1024 4096:4096 $((1 << 20)):$((2 << 20)) \
		  $((3 * ss)):$((5 * ss)) $((4096 - ss)):$((2 * ss)) \
		  $((size - ss)):$ss $((5 * 4096 + 3 * ss)):$((3 << 20)) \
		  0:$ss; do
		o=${ol%:*} l=${ol#*:}
		# Ranges must be whole sectors: skip what this size can't do.
		[ $((o % ss)) = 0 ] && [ $((l % ss)) = 0 ] || continue
		for z in "" -z; do
			what=discard${z:+-zeroout}-$o+$l
			# Fresh random data in and around the range first.
			lo=$((o > 65536 ? o - 65536 : 0))
			hi=$((o + l + 65536 < size ? o + l + 65536 : size))
			discard_check "$t/$what" "$o" "$l" $lo $hi $z
		done
	done
	# Secure erase is not offered: refused, nothing changes.
	check_fails_with "$t/secure-discard-unsupported" 'Operation not supported' blkdiscard -s -o 0 -l $ss /dev/sbd0
	same_as_image "$t/refused-discard-changed-nothing"
	check "$t/discard-all" blkdiscard /dev/sbd0
	expect "$t/discard-all-zeros" 0 \
		"$(dd if=/dev/sbd0 bs=1M iflag=direct status=none | tr -d '\0' | wc -c)"
	check "$t/unload" unload_sbd
	rm -f "$TMP/image" "$TMP/back" "$TMP/chunk"
done

# A range longer than one request (64 MiB): the block layer splits it
# and every piece lands where it should.  The fill repeats one random
# MiB: zeroing the wrong bytes still shows.
if check big/load load_sbd nsectors=$((72 << 11)); then
	random_file "$TMP/chunk" $((1 << 20))
	for _ in $(seq 72); do cat "$TMP/chunk"; done > "$TMP/image"
	check big/fill put "$TMP/image" /dev/sbd0 0
	for z in "" -z; do
		o=$(((1 << 20) + 1536)) l=$((70 << 20))
		[ -z "$z" ] || o=$((o + 4096))
		check big/discard${z:+-zeroout}-70MiB blkdiscard $z -o $o -l $l /dev/sbd0
		zero_image "$TMP/image" $o $l
		same_as_image big/discard${z:+-zeroout}-70MiB-zeros-rest-unchanged
	done
	check big/unload unload_sbd
	rm -f "$TMP/image" "$TMP/back" "$TMP/chunk"
fi

# fstrim: the blocks of deleted files read as zeros afterwards.
check fstrim/load load_sbd nsectors=$((32 << 11)) || return
nonzero() { dd if=/dev/sbd0 bs=1M iflag=direct status=none | tr -d '\0' | wc -c; }
check fstrim/mkfs mkfs.ext4 -q -F -E nodiscard /dev/sbd0
check fstrim/mount mount -t ext4 /dev/sbd0 "$MNT" || return
random_file "$MNT/keep" $((2 << 20))
random_file "$MNT/gone" $((8 << 20))
keep=$(sha256sum < "$MNT/keep")
sync
before=$(nonzero)
rm "$MNT/gone"
sync
check_output fstrim/fstrim 'trimmed' fstrim -v "$MNT"
after=$(nonzero)
if [ $((before - after)) -ge $((7 << 20)) ]; then
	pass fstrim/freed-blocks-zeroed
else
	fail fstrim/freed-blocks-zeroed "non-zero bytes on the disk before fstrim: $before, after: $after"
fi
expect fstrim/kept-file-intact "$keep" "$(sha256sum < "$MNT/keep")"
check fstrim/umount umount "$MNT"
check fstrim/fsck e2fsck -fn /dev/sbd0
