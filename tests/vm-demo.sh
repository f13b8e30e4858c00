#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-demo.sh: show sbd doing its job, as a user would, with a readable
# summary.  Runs inside the VM; lines starting "@@ demo" reach the host.
. ./vm-lib.sh
NSECTORS=${1:-32768}
SECT=${2:-4096}
say() { echo "@@ demo $*"; }
step() {
	_what=$1
	shift
	if _out=$("$@" 2>&1); then
		say "  ok    $_what"
	else
		say "  FAIL  $_what: $(echo "$_out" | tail -n 2 | tr '\n' ' ')"
		FAILED=1
	fi
}
FAILED=0
mkdir -p "$MNT" "$TMP"

say "kernel $(uname -r), $(nproc) CPUs"
say "\$ insmod sbd.ko nsectors=$NSECTORS hardsect_size=$SECT"
step "load" insmod /sbd.ko nsectors="$NSECTORS" hardsect_size="$SECT"
say "  dmesg: $(dmesg | grep 'sbd: sbd0' | sed 's/^\[[^]]*\] //')"
say "  /dev/sbd0: $(blockdev --getsize64 /dev/sbd0) bytes, logical block $(blockdev --getss /dev/sbd0), physical block $(blockdev --getpbsz /dev/sbd0)"
say "  fresh device reads zeros: $(if cmp -s -n 1048576 /dev/sbd0 /dev/zero; then echo yes; else echo NO; FAILED=1; fi)"

say "\$ dd a random 16 MiB pattern to /dev/sbd0 and read it back"
random_file "$TMP/pattern" $((16 << 20))
step "dd write (O_DIRECT)" dd if="$TMP/pattern" of=/dev/sbd0 bs=1M oflag=direct
step "dd read back, identical" sh -c "dd if=/dev/sbd0 bs=1M count=16 iflag=direct 2>/dev/null | cmp - $TMP/pattern"

say "\$ mkfs.ext4 /dev/sbd0 && mount /dev/sbd0 $MNT"
step "mkfs.ext4" mkfs.ext4 -q -F /dev/sbd0
step "mount" mount /dev/sbd0 "$MNT"
for i in 1 2 3 4; do random_file "$MNT/file$i" $((i << 20)); done
sums=$(cd "$MNT" && sha256sum file*)
say "  wrote 4 files, $(du -sh "$MNT" | cut -f1) in use: $(df -h "$MNT" | awk 'NR==2 {print $2 " filesystem, " $4 " free"}')"
step "umount" umount "$MNT"
step "e2fsck -fn: clean" e2fsck -fn /dev/sbd0
step "mount again" mount /dev/sbd0 "$MNT"
step "files read back with the same sha256" sh -c "cd $MNT && echo \"$sums\" | sha256sum -c --quiet"
step "umount" umount "$MNT"

# fio_summary TERSE-FILE: "read N IOPS, write N IOPS" from terse v3 output
# (field 8 is read IOPS, field 49 write IOPS, summed over jobs).
fio_summary() {
	awk -F';' '{ r += $8; w += $49 } END { printf "read %d IOPS, write %d IOPS", r, w }' "$1"
}
FIO="fio --filename=/dev/sbd0 --bs=4k --ioengine=libaio --iodepth=16 --numjobs=4
	--direct=1 --size=32m --offset_increment=32m --output-format=terse --terse-version=3"

say "\$ fio: 4 jobs x 32 MiB of 4 KiB random writes, iodepth 16, then crc32c verify"
if $FIO --name=write --rw=randwrite --verify=crc32c --verify_fatal=1 > "$TMP/fio.out" 2>&1; then
	say "  ok    fio write + verify: $(fio_summary "$TMP/fio.out")"
else
	say "  FAIL  fio write + verify: $(grep -v '^3;' "$TMP/fio.out" | tail -n 3 | tr '\n' ' ')"
	FAILED=1
fi
say "\$ fio: 4 KiB random reads, 4 jobs, iodepth 16, 5 s"
if $FIO --name=read --rw=randread --time_based --runtime=5 > "$TMP/fio.out" 2>&1; then
	say "  ok    fio read: $(fio_summary "$TMP/fio.out") (software emulation: absolute numbers mean little)"
else
	say "  FAIL  fio read: $(grep -v '^3;' "$TMP/fio.out" | tail -n 3 | tr '\n' ' ')"
	FAILED=1
fi

step "rmmod sbd" rmmod sbd

# A power cut.  Like a real drive, a disk with a write cache may lose a
# write that completed but was never flushed; one that fsync flushed
# must survive.
say "\$ insmod sbd.ko cache_mb=8: a disk that, like a real drive, holds recent writes in a volatile cache"
step "load with a write cache" insmod /sbd.ko nsectors="$NSECTORS" hardsect_size="$SECT" cache_mb=8
step "mkfs.ext4 and mount" sh -c "mkfs.ext4 -q -F /dev/sbd0 && mount /dev/sbd0 $MNT"
random_file "$TMP/kept" 65536
random_file "$TMP/lost" 65536
step "write kept.dat and fsync it (flushed: must survive)" \
	dd if="$TMP/kept" of="$MNT/kept.dat" bs=64k conv=fsync status=none
cp "$TMP/lost" "$MNT/lost.dat"
say "  wrote lost.dat without fsync (still in the cache)"
step "cut the power: echo off > /sys/block/sbd0/sbd/power" \
	sh -c 'echo off > /sys/block/sbd0/sbd/power'
say "  the mounted filesystem now sees I/O errors: $(if dd if=/dev/sbd0 of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null; then echo NO; FAILED=1; else echo yes; fi)"
umount "$MNT" 2>/dev/null
step "power on, mount again (the journal is replayed)" \
	sh -c "echo on > /sys/block/sbd0/sbd/power && mount /dev/sbd0 $MNT"
step "kept.dat is there, identical" cmp "$TMP/kept" "$MNT/kept.dat"
say "  lost.dat: $(if cmp -s "$TMP/lost" "$MNT/lost.dat" 2>/dev/null; then echo "survived (allowed, not promised)"; else echo "lost, as an unflushed write may be"; fi)"
step "umount, e2fsck -fn: clean" sh -c "umount $MNT && e2fsck -fn /dev/sbd0"
step "rmmod sbd" rmmod sbd

# Every crash state at once: sbd-explore records a workload, then turns
# the disk into the state after each of its marks (files fsynced) under
# several policies and checks each; then the same with barrier=0, where
# ext4 sends no flushes and loses files it said were durable.
# The suite's disk for this (20-explore.sh): 32 MiB of 512-byte blocks.
say "\$ insmod sbd.ko nsectors=65536 cache_mb=16"
step "load with a write cache" insmod /sbd.ko nsectors=65536 cache_mb=16
say "\$ sbd-explore --fs ext4 --workload @files --ops 3 --points mark --max-points 6 --random 1 --torn 1"
../explore/sbd-explore -q --fs ext4 --workload @files --ops 3 --points mark --max-points 6 \
	--random 1 --torn 1 --save "$TMP/explore" > "$TMP/explore.out" 2>&1
rc=$?
sed -n '/points recorded/,/^all .* passed$/p' "$TMP/explore.out" | grep -v '^$' |
	while IFS= read -r l; do say "    $l"; done
if [ $rc = 0 ]; then say "  ok    every crash state passed"; else say "  FAIL  sbd-explore exited $rc: $(tail -n 3 "$TMP/explore.out" | tr '\n' ' ')"; FAILED=1; fi
say "\$ the same with --mount-opts barrier=0 (ext4 sends no flushes), at 3 marks, nothing unflushed kept"
../explore/sbd-explore -q --fs ext4 --mount-opts barrier=0 --workload @files --ops 3 --points mark \
	--max-points 3 --random 0 --torn 0 --save-max 0 --save "$TMP/explore" > "$TMP/explore.out" 2>&1
rc=$?
if [ $rc = 1 ]; then
	say "  ok    caught: $(grep '^FAIL (' "$TMP/explore.out" | sort -u | grep -c .) failing states, e.g.:"
	say "        $(grep -m1 '^FAIL (' "$TMP/explore.out" | cut -c1-110)"
	say "        $(grep -m1 '^  reproduce: ' "$TMP/explore.out" | sed 's/^ *//' | cut -c1-110)..."
else
	say "  FAIL  sbd-explore exited $rc, not 1: $(tail -n 3 "$TMP/explore.out" | tr '\n' ' ')"
	FAILED=1
fi
echo drop > /sys/block/sbd0/sbd/record 2>/dev/null
step "rmmod sbd" rmmod sbd

bad=$(dmesg | grep -E "$DMESG_BAD")
if [ -z "$bad" ]; then say "  ok    dmesg: no warnings"; else say "  FAIL  dmesg: $bad"; FAILED=1; fi
if [ $FAILED = 0 ]; then say "RESULT: sbd works"; else say "RESULT: something failed (see above)"; fi
