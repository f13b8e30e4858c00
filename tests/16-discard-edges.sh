# SPDX-License-Identifier: GPL-2.0
# Discard and write-zeroes at the edges: ranges that cross or start past
# the end are refused and change nothing; fallocate --punch-hole on the
# device (write-zeroes with unmap) and --zero-range zero exactly their
# range; a buffered read after BLKDISCARD sees zeros, not the page
# cache's old data; one discard of a whole 1 GiB disk of 4096-byte
# sectors; discards running beside verifying writes elsewhere.

# Requires: fio, blkdiscard, sbd-range (tests/tools).
# QUICK=1: in the quick run (QUICK=1 scripts/run-tests.sh).

size=$((8 << 20))
check load load_sbd nsectors=$((size / 512)) || return
random_file "$TMP/image" $size
check fill put "$TMP/image" /dev/sbd0 0
# (blkdiscard would clamp such a range: sbd-range passes it as it is.)
for op in discard zeroout; do
	check_fails_with "$op-crossing-the-end" 'Invalid argument' \
		sbd-range $op /dev/sbd0 $((size - 4096)) 8192
	check_fails_with "$op-past-the-end" 'Invalid argument' \
		sbd-range $op /dev/sbd0 $size 4096
	check "$op-last-4k" sbd-range $op /dev/sbd0 $((size - 4096)) 4096
done
zero_image "$TMP/image" $((size - 4096)) 4096
same_as_image refused-ranges-changed-nothing

# Write-zeroes with unmap, and without: exactly the range, nothing else.
check punch-hole fallocate --punch-hole --keep-size -o $((1 << 20)) -l $((512 * 9)) /dev/sbd0
zero_image "$TMP/image" $((1 << 20)) $((512 * 9))
same_as_image punch-hole-zeros-exactly
check zero-range fallocate --zero-range --keep-size -o $((3 << 20)) -l $((128 << 10)) /dev/sbd0
zero_image "$TMP/image" $((3 << 20)) $((128 << 10))
same_as_image zero-range-zeros-exactly

# Page-cache coherency: buffered reads fill the cache, BLKDISCARD must
# drop the cached pages of its range (blktests block/009).
check cache-fill sh -c "dd if=/dev/sbd0 bs=64k count=32 status=none > /dev/null"
check discard-cached blkdiscard -o 0 -l $((2 << 20)) /dev/sbd0
expect buffered-read-after-discard-zeros 0 \
	"$(dd if=/dev/sbd0 bs=64k count=32 status=none | tr -d '\0' | wc -c)"
check unload unload_sbd

# One discard of a whole 1 GiB disk of 4096-byte sectors: split into
# 64 MiB requests, every one of them zeroing its part.
check huge/load load_sbd nsectors=$(((1 << 30) / 4096)) hardsect_size=4096 || return
for mib in 0 63 64 511 1023; do
	head -c 4096 /dev/urandom | dd of=/dev/sbd0 bs=4096 seek=$((mib * 256)) \
		oflag=direct status=none
done
check huge/discard-all blkdiscard /dev/sbd0
expect huge/all-zeros 0 "$(for mib in 0 63 64 511 1023; do
	dd if=/dev/sbd0 bs=4096 skip=$((mib * 256)) count=1 iflag=direct status=none
done | tr -d '\0' | wc -c)"
check huge/unload unload_sbd

# Discards beside verifying writes: fio verifies the first 32 MiB while
# the last 32 MiB, filled with random data first, is discarded and
# zeroed over and over: at least 32 rounds (every MiB of it discarded
# once), and on while fio runs.  However the two interleave, fio's data
# verifies and the last 32 MiB reads back as zeros.
check beside/load load_sbd nsectors=$((64 << 11)) || return
random_file "$TMP/half" $((32 << 20))
check beside/fill put "$TMP/half" /dev/sbd0 $((32 << 20))
fio --name=beside --filename=/dev/sbd0 --rw=randwrite --bs=4k --size=32m \
	--direct=1 --ioengine=libaio --iodepth=16 --verify=crc32c --verify_fatal=1 \
	--output="$TMP/fio.out" > /dev/null 2>&1 &
fio_pid=$!
n=0 errs=""
while [ $n -lt 32 ] || { kill -0 $fio_pid 2>/dev/null && [ $n -lt 400 ]; }; do
	blkdiscard -o $(((32 + n % 32) << 20)) -l $((1 << 20)) /dev/sbd0 ||
		errs="$errs discard-$n"
	blkdiscard -z -o $(((32 + (n + 7) % 32) << 20)) -l $((512 << 10)) /dev/sbd0 ||
		errs="$errs zeroout-$n"
	n=$((n + 1))
done
if wait $fio_pid; then
	pass beside/fio-verify-ok
else
	fail beside/fio-verify-ok "fio failed beside discards:" "$(tail -n 20 "$TMP/fio.out")"
fi
echo "@@ | beside: $n discard rounds"
expect beside/discards-ok "" "$errs"
expect beside/discarded-half-zeros 0 \
	"$(dd if=/dev/sbd0 bs=1M skip=32 iflag=direct status=none | tr -d '\0' | wc -c)"
check beside/unload unload_sbd
rm -f "$TMP/image" "$TMP/back" "$TMP/fio.out" "$TMP/half"
