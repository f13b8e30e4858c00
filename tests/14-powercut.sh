# SPDX-License-Identifier: GPL-2.0
# The volatile write cache and the power cut: cache_mb= gives a disk a
# volatile write cache, and writing "off" to /sys/block/sbd0/sbd/power
# loses the writes that were not durable.  On the raw disk: a disk
# without cache_mb, bad cache_mb values, the limits a cache sets; what a
# FLUSH, a FUA write and a write larger than the cache make durable,
# under policies none and all; destaging from a full cache; the page
# cache of a disk and of a partition held open across a cut; a cut on
# the largest disk the VM holds; unload while off, without a leak; cuts
# under fio.  The other policies are 21-powercut-policy.sh's,
# filesystems across cuts 22-powercut-fs.sh's.

# Requires: cache_mb; fio, sfdisk.
# QUICK=0: not in the quick run (QUICK=1 scripts/run-tests.sh).

Q=/sys/block/sbd0/queue
MIB=1048576

# flush: fsync the raw disk, which sends a FLUSH.
flush() { sync /dev/sbd0; }
# holds NAME OFFSET FILE: the disk holds FILE at byte OFFSET.
holds() {
	dd if=/dev/sbd0 of="$TMP/got" bs=64k skip="$2" count="$(stat -c %s "$3")" \
		iflag=direct,skip_bytes,count_bytes status=none
	same "$1" "$3" "$TMP/got"
}

for f in A B C X; do random_file "$TMP/$f" 65536; done
head -c 65536 /dev/zero > "$TMP/Z"

# --- without cache_mb: a disk with no volatile cache, as before.
check nocache/load load_sbd nsectors=16384 || return
expect nocache/write-through "write through" "$(cat $Q/write_cache)"
expect nocache/no-fua 0 "$(cat $Q/fua)"
check_fails nocache/no-power-file test -e "$PWR"
check_fails nocache/no-policy-file test -e "$POL"
check_fails nocache/no-stats-file test -e "$SBD_SYS"/cache_stats
expect nocache/discard-max 67108864 "$(cat $Q/discard_max_hw_bytes)"
expect nocache/write-zeroes-max 67108864 "$(cat $Q/write_zeroes_max_bytes)"
check nocache/unload unload_sbd

# --- bad cache_mb: refused with one line naming it.
check_fails_with param/not-a-number "Invalid parameters" load_sbd cache_mb=abc
expect param/not-a-number-dmesg 1 "$(sbd_dmesg | grep -c '^sbd: cache_mb=abc is invalid')"
check_fails_with param/negative "Invalid parameters" load_sbd cache_mb=-1
check_fails_with param/more-than-ram "Cannot allocate memory" load_sbd cache_mb=100000
expect param/more-than-ram-dmesg 1 "$(sbd_dmesg | grep -c '^sbd: cache_mb=100000 is too large')"
expect param/nothing-left "" "$(sbd_leftovers)"

# --- with a 4 MiB cache
check cache/load load_sbd nsectors=16384 cache_mb=4 || return
expect cache/write-back "write back" "$(cat $Q/write_cache)"
expect cache/fua 1 "$(cat $Q/fua)"
expect cache/power-on on "$(cat "$PWR")"
expect cache/default-policy none "$(cat "$POL")"
expect cache/cache-bytes 4194304 "$(stat_value "$SBD_SYS"/cache_stats cache_bytes)"
# A discard or write-zeroes copies what it overwrites into the log under
# the disk's lock: no more at once than a write may (4 MiB).
expect cache/discard-max 4194304 "$(cat $Q/discard_max_hw_bytes)"
expect cache/write-zeroes-max 4194304 "$(cat $Q/write_zeroes_max_bytes)"
expect cache/max-request 4096 "$(cat $Q/max_hw_sectors_kb)"

# A at 0 flushed; then B over it and C at 1 MiB, not flushed.
scenario() {
	put_one "$TMP/A" /dev/sbd0 0 && flush &&
		put_one "$TMP/B" /dev/sbd0 0 && put_one "$TMP/C" /dev/sbd0 $MIB
}

# policy none: every unflushed write is lost.
check none/writes scenario
expect none/flushes-counted 1 "$(stat_value "$SBD_SYS"/cache_stats flushes)"
expect none/unflushed-bytes 131072 "$(stat_value "$SBD_SYS"/cache_stats unflushed_bytes)"
check none/cut power off
expect none/power-reads-off off "$(cat "$PWR")"
check_fails_with none/read-fails-while-off "Input/output error" \
	dd if=/dev/sbd0 of=/dev/null bs=4k count=1 iflag=direct
check_fails_with none/write-fails-while-off "Input/output error" \
	dd if="$TMP/A" of=/dev/sbd0 bs=4k count=1 oflag=direct
check_fails_with none/flush-fails-while-off "Input/output error" flush
check none/on power on
expect none/power-reads-on on "$(cat "$PWR")"
holds none/flushed-write-kept 0 "$TMP/A"
holds none/unflushed-write-lost $MIB "$TMP/Z"
expect none/unflushed-zero-after 0 "$(stat_value "$SBD_SYS"/cache_stats unflushed_bytes)"
expect none/cuts-counted 1 "$(stat_value "$SBD_SYS"/cache_stats cuts)"
echo "@@ | cut with 2 writes in the cache took $(stat_value "$SBD_SYS"/cache_stats last_cut_usec) us"

# policy all: nothing is lost.
reload cache_mb=4
check all/policy sh -c "echo all > $POL"
expect all/policy-reads-back all "$(cat "$POL")"
check all/writes scenario
check all/cut power off
check all/on power on
holds all/overwrite-kept 0 "$TMP/B"
holds all/unflushed-kept $MIB "$TMP/C"

# FUA: O_DIRECT|O_DSYNC sends the write with REQ_FUA to a disk that has
# FUA (the kernel then flushes as well, for the fsync O_DSYNC implies).
reload cache_mb=4
put_one "$TMP/A" /dev/sbd0 0 && flush
put_one "$TMP/X" /dev/sbd0 0
check fua/dsync-write put_one "$TMP/B" /dev/sbd0 0 oflag=dsync
put_one "$TMP/C" /dev/sbd0 $MIB
check fua/counted test "$(stat_value "$SBD_SYS"/cache_stats fua_writes)" -ge 1
expect fua/bytes-counted 65536 "$(stat_value "$SBD_SYS"/cache_stats fua_bytes)"
check fua/cut power off
check fua/on power on
holds fua/fua-write-kept 0 "$TMP/B"
holds fua/later-unflushed-lost $MIB "$TMP/Z"

# A write larger than the cache is written through: durable at once,
# and an older unflushed write under it must not come back over it.
# One 4 MiB request: the default max_sectors_kb would split it.
reload cache_mb=1
echo 4096 > $Q/max_sectors_kb
random_file "$TMP/big" $((4 * MIB))
put_one "$TMP/A" /dev/sbd0 0 && flush
put_one "$TMP/X" /dev/sbd0 0
check through/big-write put_one "$TMP/big" /dev/sbd0 0
expect through/only-the-small-write-unflushed 65536 "$(stat_value "$SBD_SYS"/cache_stats unflushed_bytes)"
put_one "$TMP/C" /dev/sbd0 $((6 * MIB))
check through/cut power off
check through/on power on
holds through/written-through-kept 0 "$TMP/big"
holds through/unflushed-lost $((6 * MIB)) "$TMP/Z"

# Destaging: 48 writes, 60 KiB and 4 KiB in turn, one at the start of
# each 64 KiB slot, unflushed into a 1 MiB cache over durable data; the
# oldest become durable, the newest stay volatile.  The log wraps, with
# saved bytes of two sizes side by side, so every byte is checked: a cut
# must give each write that is not destaged exactly what it overwrote.
reload cache_mb=1
random_file "$TMP/under" $((3 * MIB))
put_one "$TMP/under" /dev/sbd0 0 && flush
# (That write, larger than the cache, was written through: destaged.)
before=$(stat_value "$SBD_SYS"/cache_stats destaged_bytes)
dlen() { [ $(($1 % 2)) = 0 ] && echo 61440 || echo 4096; }
for i in $(seq 0 47); do random_file "$TMP/d$i" "$(dlen "$i")"; done
for i in $(seq 0 47); do put_one "$TMP/d$i" /dev/sbd0 $((i * 65536)); done
destaged=$(($(stat_value "$SBD_SYS"/cache_stats destaged_bytes) - before))
check destage/destaged-bytes test "$destaged" -ge $((MIB / 2))
check destage/unflushed-within-cache test "$(stat_value "$SBD_SYS"/cache_stats unflushed_bytes)" -le $MIB
check destage/unflushed-some test "$(stat_value "$SBD_SYS"/cache_stats unflushed_bytes)" -ge $((MIB / 2))
check destage/cut power off
check destage/on power on
echo "@@ | cut with a full 1 MiB cache took $(stat_value "$SBD_SYS"/cache_stats last_cut_usec) us"
holds destage/oldest-durable 0 "$TMP/d0"
dd if="$TMP/under" of="$TMP/under47" bs=64k skip=47 count=1 status=none
holds destage/newest-lost $((47 * 65536)) "$TMP/under47"
# Each slot: the write if destaged (the oldest, as many as
# destaged_bytes says), else what was under it; then the rest of the
# slot, which no write touched.
acc=0
for i in $(seq 0 47); do
	len=$(dlen "$i")
	if [ $((acc + len)) -le "$destaged" ]; then
		acc=$((acc + len))
		cat "$TMP/d$i"
		dd if="$TMP/under" bs=64k skip=$((i * 65536 + len)) count=$((65536 - len)) \
			iflag=skip_bytes,count_bytes status=none
	else
		dd if="$TMP/under" bs=64k skip="$i" count=1 status=none
	fi
done > "$TMP/want"
dd if=/dev/sbd0 of="$TMP/got" bs=64k count=48 iflag=direct status=none
same destage/every-block "$TMP/want" "$TMP/got"

# A process that keeps the disk (or a partition) open must read what
# the cut left, not the page cache it filled before the cut.
# pagecache_round NAME DEV: write A with O_DIRECT (unflushed), read it
# back buffered (now cached), cut with policy none, read it again.
pagecache_round() {
	exec 3< "$2"
	put_one "$TMP/A" "$2" 0
	dd if="$2" of="$TMP/got" bs=64k count=1 status=none
	same "$1/cached-before-cut" "$TMP/A" "$TMP/got"
	power off && power on
	dd if="$2" of="$TMP/got" bs=64k count=1 status=none
	same "$1/reads-what-the-cut-left" "$TMP/Z" "$TMP/got"
	exec 3<&-
}
reload cache_mb=4
pagecache_round pagecache/disk /dev/sbd0
# The table is flushed (sfdisk fsyncs): only p1's write is volatile.
if check pagecache/partition-table sh -c \
	"echo 'start=2048, size=8192' | sfdisk -q /dev/sbd0" &&
   check pagecache/p1-appears test -b /dev/sbd0p1; then
	pagecache_round pagecache/p1 /dev/sbd0p1
fi

# The largest disk the VM holds, at 512-byte blocks (the most blocks
# per byte): a cut needs no memory beyond what the load took.  70% of
# what is available, less 256 MiB: the debug kernel's KASAN takes an
# eighth of a vmalloc area more, for its shadow.
big=$(( $(meminfo_kb MemAvailable) * 7 / 10 / 1024 - 256 ))
unload_sbd
echo "@@ | big-disk: ${big} MiB"
if check big-disk/load load_sbd nsectors=$((big * 2048)) cache_mb=4; then
	check big-disk/write-last put_one "$TMP/A" /dev/sbd0 $(((big << 20) - 65536))
	check big-disk/cut power off
	check big-disk/on power on
	holds big-disk/last-write-lost $(((big << 20) - 65536)) "$TMP/Z"
	echo "@@ | cut on a ${big} MiB disk took $(stat_value "$SBD_SYS"/cache_stats last_cut_usec) us"
fi

# Unload while off; nothing leaks (a leaked cache is 4096 kB).
reload cache_mb=4 && unload_sbd
base=$(meminfo_kb VmallocUsed)
for i in 1 2 3; do
	load_sbd nsectors=16384 cache_mb=4 && put_one "$TMP/A" /dev/sbd0 0 &&
		power off && rmmod sbd || break
done
check leak/unload-while-off test ! -e /sys/module/sbd
end=$(meminfo_kb VmallocUsed)
check leak/vmalloc-back-to-baseline test $((end - base)) -lt 1024
expect leak/nothing-left "" "$(sbd_leftovers)"

# Cuts while I/O is in flight: a cut freezes the queue, waits for the
# requests under way and fails the ones after it.  fio writes and
# verifies while the power goes off and on again five times; each run
# ends in EIO, none may hang or leave a kernel report, and with the
# power on a last verifying run is clean.
check fio-cut/load load_sbd nsectors=65536 cache_mb=4
cuts=0
for round in 1 2 3 4 5; do
	fio --name=cut --filename=/dev/sbd0 --rw=randwrite --bs=4k --size=16m \
		--direct=1 --ioengine=libaio --iodepth=16 --numjobs=2 \
		--offset_increment=16m --verify=crc32c --time_based --runtime=60 \
		> /dev/null 2>&1 &
	fio_pid=$!
	sleep $((round % 3 + 1))
	power off && cuts=$((cuts + 1))
	wait $fio_pid
	power on
done
expect fio-cut/five-cuts 5 "$cuts"
expect fio-cut/cuts-counted 5 "$(stat_value "$SBD_SYS"/cache_stats cuts)"
check fio-cut/verify-after fio --name=after --filename=/dev/sbd0 --rw=randwrite \
	--bs=4k --size=8m --direct=1 --ioengine=libaio --iodepth=16 \
	--verify=crc32c --verify_fatal=1
unload_sbd
