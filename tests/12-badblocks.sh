# SPDX-License-Identifier: GPL-2.0
# Injected bad sectors (read-only disks: 09-readonly.sh).
#
# Regression tests for commit c06970f ("sbd: ... whole badblocks tokens,
# no half-applied ENOSPC"): over-long tokens, a full table rolled back.

# Requires: fio, blkdiscard, ext4.
# QUICK=1: in the quick run (QUICK=1 scripts/run-tests.sh).

# --- bad blocks (units: 512-byte sectors)
BB=/sys/block/sbd0/sbd/badblocks
check load load_sbd nsectors=16384        # 8 MiB of 512-byte sectors
random_file "$TMP/pattern" $((8 << 20))
dd if="$TMP/pattern" of=/dev/sbd0 bs=1M oflag=direct 2>/dev/null
expect empty-list "" "$(cat $BB)"

check mark sh -c "echo '+2048 16' > $BB"
expect list-after-mark "2048 16" "$(cat $BB)"
# Reads: the bad range fails with EIO, its neighbours still read.
out=$(dd if=/dev/sbd0 of=/dev/null bs=512 skip=2050 count=1 iflag=direct 2>&1)
case $out in *"Input/output error"*) pass read-bad-eio ;;
*) fail read-bad-eio "dd read of sector 2050: $out" ;; esac
check read-before-ok dd if=/dev/sbd0 of=/dev/null bs=512 skip=2047 count=1 iflag=direct
check read-after-ok dd if=/dev/sbd0 of=/dev/null bs=512 skip=2064 count=1 iflag=direct
check_fails_with read-spanning 'Input/output error' dd if=/dev/sbd0 of=/dev/null bs=1M skip=0 count=2 iflag=direct
# Writes: fail with EIO and change nothing, inside or across the range.
out=$(dd if=/dev/zero of=/dev/sbd0 bs=512 seek=2048 count=16 oflag=direct 2>&1)
case $out in *"Input/output error"*) pass write-bad-eio ;;
*) fail write-bad-eio "dd write of sectors 2048-2063: $out" ;; esac
# One 128 KiB request from 960 KiB: its tail reaches sector 2048.
check_fails_with write-spanning 'Input/output error' dd if=/dev/zero of=/dev/sbd0 bs=128k count=1 \
	seek=983040 oflag=direct,seek_bytes
check_fails_with fio-read-bad 'Input/output error' fio --name=bb --filename=/dev/sbd0 --rw=read --bs=4k \
	--offset=$((2048 * 512)) --size=8k --direct=1 --ioengine=libaio
check clear sh -c "echo '-2048 16' > $BB"
expect list-after-clear "" "$(cat $BB)"
dd if=/dev/sbd0 of="$TMP/readback" bs=1M iflag=direct 2>/dev/null
same failed-writes-changed-nothing "$TMP/pattern" "$TMP/readback"

# Partial clear splits the range; marks merge.
echo '+100 10' > $BB; echo '+110 10' > $BB
expect merged "100 20" "$(cat $BB)"
echo '-105 5' > $BB
expect split "$(printf '100 5\n110 10')" "$(cat $BB)"
echo '-100 20' > $BB

# Malformed input: -EINVAL, and nothing changes.
echo '+8 8' > $BB
for bad in "garbage" "+" "+8" "8 8" "*8 8" "+-8 8" "+8 -8" "+8 0" \
	   "+16384 1" "+16383 2" "+99999999999999999999 1" \
	   "+1 99999999999999999999" "+1 2 3" "+1x 2"; do
	write_refused "reject '$bad'" "$BB" "$bad"
done
expect unchanged-after-garbage "8 8" "$(cat $BB)"
echo '-8 8' > $BB

# Over-long tokens are refused whole, never split into two numbers.
for bad in "+000000000000000000000002048" "+2048 000000000000000000000016" "++8 8"; do
	write_refused "reject '$bad'" "$BB" "$bad"
done
expect unchanged-after-long-tokens "" "$(cat $BB)"
# Leading zeros in a short token are still decimal.
check leading-zeros sh -c "echo '+0010 0008' > $BB"
expect leading-zeros-list "10 8" "$(cat $BB)"
echo '-10 8' > $BB

# More than BB_MAX_LEN (512) sectors at once, then reads inside the
# range (6.1 mis-sorted such a range: the workaround in sbd-compat.h).
check mark-1000 sh -c "echo '+3000 1000' > $BB"
for sec in 3000 3511 3512 3999; do
	check_fails_with "read-inside-1000-at-$sec" 'Input/output error' \
		dd if=/dev/sbd0 of=/dev/null bs=512 skip=$sec count=1 iflag=direct
done
check read-after-1000 dd if=/dev/sbd0 of=/dev/null bs=512 skip=4000 count=1 iflag=direct
echo '-3000 1000' > $BB
expect cleared-1000 "" "$(cat $BB)"

# A full table: a refused command changes nothing.  511 one-sector
# ranges, two sectors apart, leave one free entry: a 2000-sector range
# takes it with its first 512 sectors and runs out on the next; none of
# it may stay marked.  Then a 512th range fills the table.
i=0
while [ $i -lt 511 ]; do
	echo "+$((i * 2)) 1" > $BB || break
	i=$((i + 1))
done
expect table-511 511 "$(grep -c . $BB)"
before=$(sha256sum < $BB)
out=$(echo '+4000 2000' | dd of=$BB 2>&1)
case $out in *"No space left on device"*) pass long-range-ENOSPC ;;
*) fail long-range-ENOSPC "expected ENOSPC, got: $out" ;; esac
expect long-range-rolled-back "$before" "$(sha256sum < $BB)"
check read-after-refused-range dd if=/dev/sbd0 of=/dev/null bs=512 skip=4000 \
	count=2000 iflag=direct
check table-512 sh -c "echo '+1022 1' > $BB"
before=$(sha256sum < $BB)
out=$(echo '+5000 1' | dd of=$BB 2>&1)
case $out in *"No space left on device"*) pass full-table-ENOSPC ;;
*) fail full-table-ENOSPC "expected ENOSPC marking one more range, got: $out" ;; esac
expect full-table-unchanged "$before" "$(sha256sum < $BB)"
check clear-table sh -c "echo '-0 1024' > $BB"
expect table-empty "" "$(cat $BB)"

# A filesystem meets a bad range: errors, cleanly, and no kernel WARNING.
check mkfs mkfs.ext4 -q -F /dev/sbd0
check mount mount /dev/sbd0 "$MNT"
random_file "$TMP/before" 65536
cp "$TMP/before" "$MNT/before"
sync
# The whole disk goes bad: data, metadata and journal writes all fail.
echo "+0 16384" > $BB
check_fails_with fs-write-fails 'Input/output error|Read-only file system' \
	dd if=/dev/urandom of="$MNT/after" bs=64k count=32 conv=fsync
echo "-0 16384" > $BB
umount "$MNT" 2>/dev/null
# The file synced before the failure is on the disk, intact.
check fs-remount mount -o ro /dev/sbd0 "$MNT"
check fs-old-file-intact cmp "$TMP/before" "$MNT/before"
umount "$MNT" 2>/dev/null
check unload unload_sbd

# --- a bad 512-byte sector inside a 4096-byte block
check load-4k load_sbd nsectors=2048 hardsect_size=4096
random_file "$TMP/pattern" $((8 << 20))
check 4k-fill dd if="$TMP/pattern" of=/dev/sbd0 bs=1M oflag=direct status=none
check 4k-mark-one-sector sh -c "echo '+8195 1' > $BB"
# Sector 8195 lies in block 1024 (sectors 8192-8199).
check_fails_with 4k-block-with-bad-sector-read 'Input/output error' \
	dd if=/dev/sbd0 of=/dev/null bs=4096 skip=1024 count=1 iflag=direct
check_fails_with 4k-block-with-bad-sector-write 'Input/output error' \
	dd if=/dev/zero of=/dev/sbd0 bs=4096 seek=1024 count=1 oflag=direct
check 4k-block-before dd if=/dev/sbd0 of=/dev/null bs=4096 skip=1023 count=1 iflag=direct
check 4k-block-after dd if=/dev/sbd0 of=/dev/null bs=4096 skip=1025 count=1 iflag=direct
# Discard and zero-out over a bad range fail too, and zero nothing.
check_fails_with 4k-discard-over-bad 'Input/output error' \
	blkdiscard -o $((1020 * 4096)) -l $((8 * 4096)) /dev/sbd0
check_fails_with 4k-zeroout-over-bad 'Input/output error' \
	blkdiscard -z -o $((1020 * 4096)) -l $((8 * 4096)) /dev/sbd0
echo '-8195 1' > $BB
read_dev /dev/sbd0 "$TMP/back"
same 4k-failed-ops-changed-nothing "$TMP/pattern" "$TMP/back"
check unload-4k unload_sbd
rm -f "$TMP/pattern" "$TMP/back" "$TMP/before"
