# SPDX-License-Identifier: GPL-2.0
# Read-only disks from load time and injected bad sectors.

# --- readonly=1
random_file "$TMP/pattern" 65536
check load-ro load_sbd readonly=1 ndevices=2 nsectors=8192
expect ro-flag 1 "$(cat /sys/block/sbd0/ro)"
expect ro-flag-sbd1 1 "$(cat /sys/block/sbd1/ro)"
check_fails ro-dd-write dd if="$TMP/pattern" of=/dev/sbd0 bs=4k oflag=direct
check_fails ro-buffered-write dd if="$TMP/pattern" of=/dev/sbd1 bs=4k conv=fsync
check_fails ro-discard blkdiscard /dev/sbd0
check ro-read-zeros cmp -n 65536 /dev/sbd0 /dev/zero
check_fails ro-mount-rw mount -o rw -t ext4 /dev/sbd0 "$MNT"
# A read-only disk stays read-only: --setrw changes only the bdev flag.
blockdev --setrw /dev/sbd0 2>/dev/null
check_fails ro-still-after-setrw dd if="$TMP/pattern" of=/dev/sbd0 bs=4k oflag=direct
check ro-unload unload_sbd

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
check_fails read-spanning dd if=/dev/sbd0 of=/dev/null bs=1M skip=0 count=2 iflag=direct
# Writes: fail with EIO and change nothing, inside or across the range.
out=$(dd if=/dev/zero of=/dev/sbd0 bs=512 seek=2048 count=16 oflag=direct 2>&1)
case $out in *"Input/output error"*) pass write-bad-eio ;;
*) fail write-bad-eio "dd write of sectors 2048-2063: $out" ;; esac
# One 128 KiB request from 960 KiB: its tail reaches sector 2048.
check_fails write-spanning dd if=/dev/zero of=/dev/sbd0 bs=128k count=1 \
	seek=983040 oflag=direct,seek_bytes
check_fails fio-read-bad fio --name=bb --filename=/dev/sbd0 --rw=read --bs=4k \
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
	# dd, not the shell's echo: it reports the errno of the write.
	if out=$(printf '%s\n' "$bad" | dd of=$BB 2>&1); then
		fail "reject '$bad'" "write accepted"
	else
		case $out in *"Invalid argument"*) pass "reject '$bad'" ;;
		*) fail "reject '$bad'" "expected Invalid argument, got: $out" ;; esac
	fi
done
expect unchanged-after-garbage "8 8" "$(cat $BB)"
echo '-8 8' > $BB

# A filesystem meets a bad range: errors, cleanly, and no kernel WARNING.
check mkfs mkfs.ext4 -q -F /dev/sbd0
check mount mount /dev/sbd0 "$MNT"
random_file "$MNT/before" 65536
sync
# The whole disk goes bad: data, metadata and journal writes all fail.
echo "+0 16384" > $BB
check_fails fs-write-fails dd if=/dev/urandom of="$MNT/after" bs=64k count=32 conv=fsync
check fs-old-file-intact-in-cache test -s "$MNT/before"
echo "-0 16384" > $BB
umount "$MNT" 2>/dev/null
check unload unload_sbd
