# SPDX-License-Identifier: GPL-2.0
# Lifecycle: rmmod is refused while the disk is open or mounted and
# works after; 100 load/unload cycles leak no vmalloc memory; unloading
# right after heavy I/O works; a new load starts from zeros.

# Requires: fio, ext4.
# QUICK=0: not in the quick run (QUICK=1 scripts/run-tests.sh).

zeros() {
	expect "$1" 0 "$(dd if=/dev/sbd0 bs=1M iflag=direct status=none | tr -d '\0' | wc -c)"
}

# Open by a process: refused, the disk still works, then allowed.
check open/load load_sbd nsectors=8192 || return
# The shell itself holds the disk open (fd 3): open before rmmod runs,
# however slow the machine, where a background holder might not be yet.
exec 3< /dev/sbd0
check_fails_with open/rmmod-refused 'in use' rmmod sbd
check open/still-loaded test -b /dev/sbd0 -a -e /sys/module/sbd
random_file "$TMP/data" $((1 << 20))
check open/still-works put "$TMP/data" /dev/sbd0 0
exec 3<&-
check open/rmmod-after-close unload_sbd
expect open/nothing-left "" "$(sbd_leftovers)"

# Mounted: refused, then allowed after umount.
check mounted/load load_sbd nsectors=$((32 << 11)) || return
check mounted/mkfs mkfs.ext4 -q -F /dev/sbd0
check mounted/mount mount -t ext4 /dev/sbd0 "$MNT"
random_file "$TMP/f" $((1 << 20))
cp "$TMP/f" "$MNT/f"
check_fails_with mounted/rmmod-refused 'in use' rmmod sbd
check mounted/umount umount "$MNT"
# The file came back from the disk, not from the page cache.
check mounted/mount-again mount -t ext4 /dev/sbd0 "$MNT"
check mounted/file-intact cmp "$TMP/f" "$MNT/f"
check mounted/umount-again umount "$MNT"
check mounted/rmmod-after-umount unload_sbd

# 100 cycles; a warm-up cycle first so one-time allocations (sysfs,
# debugfs, the first module load) are in the baseline.
load_sbd nsectors=8192 && unload_sbd
base=$(meminfo_kb VmallocUsed)
bad=
for i in $(seq 100); do
	ss=$((512 << (i % 4)))
	if ! out=$(load_sbd nsectors=$(((4 << 20) / ss)) hardsect_size=$ss 2>&1); then
		bad="cycle $i: load failed: $out"
		break
	fi
	if [ "$(blockdev --getsize64 /dev/sbd0)" != $((4 << 20)) ]; then
		bad="cycle $i: size $(blockdev --getsize64 /dev/sbd0)"
		break
	fi
	if ! out=$(rmmod sbd 2>&1) || [ -e /sys/module/sbd ]; then
		bad="cycle $i: unload failed: $out"
		break
	fi
done
expect cycles/100-load-unload "" "$bad"
end=$(meminfo_kb VmallocUsed)
# One leaked store is 4096 kB; allow a little noise from elsewhere.
if [ $((end - base)) -lt 1024 ]; then
	pass cycles/vmalloc-back-to-baseline
else
	fail cycles/vmalloc-back-to-baseline "VmallocUsed before: $base kB, after 100 cycles: $end kB"
fi
expect cycles/nothing-left "" "$(sbd_leftovers)"

# Unload right after heavy I/O: direct and buffered writers on all
# CPUs, the buffered ones leaving dirty pages behind at close.
check heavy/load load_sbd nsectors=$((64 << 11)) || return
check heavy/fio fio --name=heavy --filename=/dev/sbd0 --ioengine=libaio \
	--direct=1 --rw=randwrite --bs=64k --iodepth=64 --numjobs=2 \
	--size=32m --offset_increment=32m --group_reporting
for j in 0 1 2 3; do
	dd if=/dev/urandom of=/dev/sbd0 bs=1M count=16 seek=$((j * 16)) \
		conv=notrunc status=none &
done
wait
check heavy/rmmod-at-once timeout 120 rmmod sbd
expect heavy/nothing-left "" "$(sbd_leftovers)"

# Data does not survive an unload: a new load reads zeros.
check reload/load load_sbd nsectors=$((16 << 11)) || return
random_file "$TMP/data" $((16 << 20))
check reload/write put "$TMP/data" /dev/sbd0 0
read_dev /dev/sbd0 "$TMP/back"
same reload/written "$TMP/data" "$TMP/back"
check reload/unload unload_sbd
check reload/load-again load_sbd nsectors=$((16 << 11)) || return
zeros reload/reads-zeros
check reload/unload-again unload_sbd
rm -f "$TMP/data" "$TMP/back"
