# SPDX-License-Identifier: GPL-2.0
# Flush and FUA, and O_DIRECT buffer alignment.  On a disk with a
# volatile write cache (cache_mb=), fsync, O_SYNC and RWF_DSYNC writes
# send FLUSH (and FUA) requests to sbd, which must complete them; the
# data verifies.  (Without a cache the block layer sends sbd no flush,
# and no kernel from 6.1 on lets sysfs switch such a queue to write
# back.)  O_DIRECT buffers must be 512-aligned (EINVAL otherwise);
# 512-aligned buffers that are not page-aligned give segments that
# straddle pages: sbd's memcpy path.
#
# Regression test for commit c0df9ca ("sbd: bounds-check only requests
# that have a position"): a FLUSH (sector -1) used to fail with EIO.

# Requires: fio.
# QUICK=1: in the quick run (QUICK=1 scripts/run-tests.sh).

flushes() { awk '{ print $16 }' /sys/block/sbd0/stat; }
COMMON="--filename=/dev/sbd0 --size=8m --bs=4k --verify=crc32c --verify_fatal=1"

# --- FLUSH and FUA
check flush/no-cache-load load_sbd nsectors=64 || return
expect flush/write-through-without-cache "write through" "$(cat /sys/block/sbd0/queue/write_cache)"
echo "write back" > /sys/block/sbd0/queue/write_cache 2>/dev/null
expect flush/sysfs-cannot-add-a-cache "write through" "$(cat /sys/block/sbd0/queue/write_cache)"
check flush/no-cache-unload unload_sbd

check flush/load load_sbd nsectors=$((32 << 11)) cache_mb=4 || return
expect flush/write-back "write back" "$(cat /sys/block/sbd0/queue/write_cache)"
f0=$(flushes)
# shellcheck disable=SC2086 # $COMMON: a list of words, split on purpose
fio_ok flush/fsync=1 $COMMON --name=fsync --rw=randwrite --fsync=1 --direct=1
f1=$(flushes)
[ "$f1" -gt "$f0" ] && pass flush/fsync-sent-flushes ||
	fail flush/fsync-sent-flushes "flush requests before $f0, after $f1"
# shellcheck disable=SC2086 # $COMMON: a list of words, split on purpose
fio_ok flush/sync=1 $COMMON --name=osync --rw=randwrite --sync=1 --direct=1 \
	--offset=8m
# shellcheck disable=SC2086 # $COMMON: a list of words, split on purpose
fio_ok flush/buffered-fsync $COMMON --name=bfsync --rw=write --fsync=4 \
	--direct=0 --offset=16m
# RWF_DSYNC (pwritev2): xfs_io's pwrite -D, with -V (without vectors
# xfs_io calls plain pwrite and drops the flag).  On a disk with FUA an
# O_DIRECT write goes out as a FUA write (some kernels flush as well).
durable() {
	awk '$1 == "flushes" || $1 == "fua_writes" { n += $2 } END { print n }' \
		/sys/block/sbd0/sbd/cache_stats
}
head -c 65536 /dev/urandom > "$TMP/d"
f2=$(durable)
check flush/RWF_DSYNC xfs_io -d -c "pwrite -q -D -V 1 -b 65536 -i $TMP/d 0 64k" /dev/sbd0
f3=$(durable)
[ "$f3" -gt "$f2" ] && pass flush/RWF_DSYNC-sent-a-flush-or-FUA ||
	fail flush/RWF_DSYNC-sent-a-flush-or-FUA "flushes + FUA writes before $f2, after $f3"
check flush/RWF_DSYNC-reads-back cmp -n 65536 "$TMP/d" /dev/sbd0
check flush/fsync-of-device sh -c "dd if=$TMP/d of=/dev/sbd0 bs=64k seek=1 conv=fsync status=none"
check flush/unload unload_sbd

# --- O_DIRECT alignment
for ss in 512 4096; do
	t=align/$ss
	check "$t/load" load_sbd nsectors=$(((16 << 20) / ss)) hardsect_size=$ss || continue
	# A buffer one byte past a page: not 512-aligned, refused.
	check_fails_with "$t/unaligned-buffer-EINVAL" 'Invalid argument|error=22' \
		fio --name=unaligned --filename=/dev/sbd0 --rw=write --bs=4k --size=64k \
		--direct=1 --mem_align=1
	# 512-aligned but not page-aligned: segments straddle pages.
	fio_ok "$t/512-aligned-buffers-verify" --name=a512 --filename=/dev/sbd0 \
		--rw=randwrite --bsrange=4k-64k --size=8m --direct=1 --mem_align=512 \
		--iodepth=8 --ioengine=libaio --verify=crc32c --verify_fatal=1
	fio_ok "$t/1536-offset-buffers-verify" --name=a1536 --filename=/dev/sbd0 \
		--rw=randwrite --bs=8k --size=4m --offset=8m --direct=1 --mem_align=1536 \
		--verify=crc32c --verify_fatal=1
	check "$t/unload" unload_sbd
done
rm -f "$TMP/d"
