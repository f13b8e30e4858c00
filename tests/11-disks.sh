# SPDX-License-Identifier: GPL-2.0
# Several disks: ndevices=, per-disk sizes=, their sysfs attributes,
# independence, a filesystem on each, I/O statistics, bad parameters and
# the unwinding of a load that fails part-way.

# Requires: ext4 (mkfs.ext4, e2fsck).
# QUICK=0: not in the quick run (QUICK=1 scripts/run-tests.sh).

# no_sbd_left NAME: a failed load left nothing registered.
no_sbd_left() {
	_left=""
	[ -e /sys/block/sbd0 ] && _left="$_left /sys/block/sbd0"
	[ -e /sys/module/sbd ] && _left="$_left /sys/module/sbd"
	grep -qw sbd /proc/devices && _left="$_left sbd-in-/proc/devices"
	expect "$1" "" "$_left"
}

# load_refused NAME ERRNO-TEXT MSG-PATTERN PARAMS...: insmod fails with that
# errno, dmesg has sbd's line, and nothing is left behind.  kmod's insmod
# words EINVAL as "Invalid parameters", ENOMEM as "Cannot allocate memory".
load_refused() {
	_n=$1 _errno=$2 _msg=$3
	shift 3
	dmesg_mark
	if _out=$(load_sbd "$@" 2>&1); then
		fail "$_n" "insmod $* succeeded"
		unload_sbd
		return
	fi
	case $_out in
	*"$_errno"*) pass "$_n" ;;
	*) fail "$_n" "insmod $*: expected '$_errno'" "got: $_out" ;;
	esac
	expect "$_n-one-line" 1 "$(dmesg_since mark | grep -c "sbd: .*$_msg")"
	no_sbd_left "$_n-nothing-left"
}

# --- four disks of different sizes
check load-4 load_sbd ndevices=4 sizes=8M,16M,32M,64M hardsect_size=4096
i=0
for mib in 8 16 32 64; do
	b=$((mib << 20))
	expect "sbd$i-size" $((b / 512)) "$(cat /sys/block/sbd$i/size)"
	expect "sbd$i-size_bytes" $b "$(cat /sys/block/sbd$i/sbd/size_bytes)"
	expect "sbd$i-store_bytes" $b "$(cat /sys/block/sbd$i/sbd/store_bytes)"
	expect "sbd$i-hardsect_size" 4096 "$(cat /sys/block/sbd$i/sbd/hardsect_size)"
	expect "sbd$i-logical-block" 4096 "$(cat /sys/block/sbd$i/queue/logical_block_size)"
	i=$((i + 1))
done
expect no-fifth-disk "" "$(ls -d /sys/block/sbd4 2>/dev/null)"
expect param-sizes "8388608,16777216,33554432,67108864" \
	"$(cat /sys/module/sbd/parameters/sizes)"

# Independence: each disk gets its own pattern; each reads back its own.
for i in 0 1 2 3; do
	random_file "$TMP/p$i" 1048576
	dd if="$TMP/p$i" of=/dev/sbd$i bs=64k oflag=direct 2>/dev/null
done
for i in 0 1 2 3; do
	dd if=/dev/sbd$i of="$TMP/r$i" bs=64k count=16 iflag=direct 2>/dev/null
	same "sbd$i-own-data" "$TMP/p$i" "$TMP/r$i"
done

# I/O statistics count reads (field 1 of /sys/block/X/stat).
before=$(awk '{print $1}' /sys/block/sbd2/stat)
dd if=/dev/sbd2 of=/dev/null bs=4k count=10 iflag=direct 2>/dev/null
after=$(awk '{print $1}' /sys/block/sbd2/stat)
if [ "$after" -ge $((before + 10)) ]; then pass iostat-counts-reads
else fail iostat-counts-reads "reads before $before, after $after"; fi

# A filesystem on each, all mounted at once.
for i in 0 1 2 3; do
	mkdir -p "$MNT/$i"
	mkfs.ext4 -q -F /dev/sbd$i && mount /dev/sbd$i "$MNT/$i" &&
		random_file "$MNT/$i/data" $((1 << 20)) ||
		fail "fs-sbd$i" "mkfs/mount/write on sbd$i failed"
done
sums=$(for i in 0 1 2 3; do sha256sum < "$MNT/$i/data"; done)
for i in 0 1 2 3; do umount "$MNT/$i"; done
for i in 0 1 2 3; do check "fsck-sbd$i" e2fsck -fn /dev/sbd$i; done
for i in 0 1 2 3; do mount /dev/sbd$i "$MNT/$i"; done
expect fs-data-after-remount "$sums" \
	"$(for i in 0 1 2 3; do sha256sum < "$MNT/$i/data"; done)"
for i in 0 1 2 3; do umount "$MNT/$i"; done
check unload-4 unload_sbd
no_sbd_left unload-4-nothing-left

# --- sizes= shorter than ndevices: the rest use nsectors
check load-mixed load_sbd ndevices=3 sizes=1M nsectors=4096
expect mixed-sbd0 2048 "$(cat /sys/block/sbd0/size)"
expect mixed-sbd1 4096 "$(cat /sys/block/sbd1/size)"
expect mixed-sbd2 4096 "$(cat /sys/block/sbd2/size)"
check unload-mixed unload_sbd

# --- bad values
load_refused ndevices-zero "Invalid parameters" "ndevices=0 is invalid" ndevices=0
load_refused ndevices-65 "Invalid parameters" "ndevices=65 is invalid" ndevices=65
load_refused ndevices-abc "Invalid parameters" "ndevices=abc is invalid" ndevices=abc
load_refused sizes-unaligned "Invalid parameters" "sizes: entry 1 (1000) is invalid" sizes=1M,1000
load_refused sizes-zero "Invalid parameters" "sizes: entry 0 (0) is invalid" sizes=0
load_refused sizes-garbage "Invalid parameters" "sizes: entry 0 (12Q) is invalid" sizes=12Q
load_refused sizes-overflow "Invalid parameters" "is invalid" sizes=99999999999999999999
load_refused sizes-shift-overflow "Invalid parameters" "is invalid" sizes=17179869184G
load_refused sizes-not-sector-multiple "Invalid parameters" "is invalid" hardsect_size=4096 sizes=6K
# Two disks of 3/4 of the VM's RAM each: each fits, both do not.
ram=$(($(meminfo_kb MemTotal) * 1024))
big=$((ram / 4 * 3 / 4096 * 4096))
load_refused sizes-too-much "Cannot allocate memory" "disks are too large" sizes=$big,$big
load_refused sizes-hex "Invalid parameters" "sizes: entry 0 (0x100000) is invalid" sizes=0x100000
# 1T is parsed (2^40 bytes), and is more than the VM has.
load_refused sizes-T "Cannot allocate memory" "disks are too large" sizes=1T

# --- sizes= with more entries than ndevices: every entry is a disk
check load-more-sizes load_sbd ndevices=2 sizes=1M,2M,3M
expect more-sizes-three-disks "sbd0 sbd1 sbd2" "$(cd /sys/block && echo sbd*)"
expect more-sizes-sbd2 $((3 << 20)) "$(cat /sys/block/sbd2/sbd/size_bytes)"
check unload-more-sizes unload_sbd

# --- suffixes, and a size that is not whole pages
check load-suffixes load_sbd sizes=4096K,1536 hardsect_size=512
expect K-suffix $((4 << 20)) "$(blockdev --getsize64 /dev/sbd0)"
expect not-whole-pages-size 1536 "$(blockdev --getsize64 /dev/sbd1)"
expect not-whole-pages-store_bytes 4096 "$(cat /sys/block/sbd1/sbd/store_bytes)"
random_file "$TMP/small" 1536
check not-whole-pages-write dd if="$TMP/small" of=/dev/sbd1 bs=512 oflag=direct status=none
check not-whole-pages-read-back cmp "$TMP/small" /dev/sbd1
check unload-suffixes unload_sbd

# --- the most disks: 64, each its own
check load-64 load_sbd ndevices=64 nsectors=128
expect 64-disks 64 "$(ls -d /sys/block/sbd* | wc -l)"
expect 64-last-minor "$(awk '$2 == "sbd" { print $1 }' /proc/devices):1008" \
	"$(cat /sys/block/sbd63/dev)"
for i in 0 31 63; do
	printf 'disk %02d\n' $i | dd of=/dev/sbd$i bs=512 conv=sync oflag=direct status=none
done
expect 64-own-data "disk 00 disk 31 disk 63" \
	"$(for i in 0 31 63; do head -c 7 /dev/sbd$i; echo; done | tr '\n' ' ' | sed 's/ $//')"
check unload-64 unload_sbd
no_sbd_left unload-64-nothing-left
load_refused ndevices-hex "Invalid parameters" "ndevices=0x10 is invalid" ndevices=0x10

# A load that fails at disk k after disks 0..k-1 were allocated is
# exercised by the debug tier's fault injection (stock kernels have none;
# exhausting memory here would bring in the OOM killer instead).
