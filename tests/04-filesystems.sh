# SPDX-License-Identifier: GPL-2.0
# Filesystems: for each sector size, ext4 and xfs are made, filled with
# random files, checked clean and read back after a remount.

# Requires: ext4 and xfs (mkfs.ext4, e2fsck, mkfs.xfs, xfs_repair).
# QUICK=0: not in the quick run (QUICK=1 scripts/run-tests.sh).

# fs_roundtrip SUFFIX: checksum the files under $MNT/d, unmount, fsck,
# mount again and compare.  Uses fs_round's $_t and $_type.
fs_roundtrip() {
	_sums=$(cd "$MNT" && find d -type f | sort | xargs sha256sum)
	check "$_t/umount$1" umount "$MNT" || return
	echo 3 > /proc/sys/vm/drop_caches
	case $_type in
	ext4) check "$_t/fsck-clean$1" e2fsck -fn /dev/sbd0 ;;
	xfs)  check "$_t/fsck-clean$1" xfs_repair -n /dev/sbd0 ;;
	esac
	check "$_t/remount$1" mount -t "$_type" /dev/sbd0 "$MNT" || return
	expect "$_t/checksums$1" "$_sums" \
		"$(cd "$MNT" && find d -type f | sort | xargs sha256sum)"
}

# fs_round NAME TYPE MKFS... : one mkfs/mount/fill/fsck/remount round.
fs_round() {
	_t=$1 _type=$2
	shift 2
	check "$_t/mkfs" "$@" /dev/sbd0 || return
	check "$_t/mount" mount -t "$_type" /dev/sbd0 "$MNT" || return
	mkdir -p "$MNT/d/e"
	# Sizes around block and page boundaries, and a few MiB.
	for s in 1 511 4097 65536 123457 $((1 << 20)) $((2 << 20 | 4095)); do
		random_file "$MNT/d/f$s" $s
	done
	cp "$MNT/d/f65536" "$MNT/d/e/copy"
	check "$_t/sync" sync
	fs_roundtrip "" || return
	# Delete and rewrite, then check again: blocks get reused.
	rm -f "$MNT/d/f$((1 << 20))"
	random_file "$MNT/d/new" $((1 << 20))
	fs_roundtrip -2 || return
	check "$_t/umount-3" umount "$MNT"
}

for ss in 512 1024 2048 4096; do
	# xfs needs 300 MiB; ext4 gets a small disk and its small-fs
	# defaults (1 KiB blocks where the sector size allows).
	check "ext4@$ss/load" load_sbd nsectors=$(((32 << 20) / ss)) \
		hardsect_size=$ss || continue
	fs_round "ext4@$ss" ext4 mkfs.ext4 -q -F
	check "ext4@$ss/unload" unload_sbd

	check "xfs@$ss/load" load_sbd nsectors=$(((320 << 20) / ss)) \
		hardsect_size=$ss || continue
	fs_round "xfs@$ss" xfs mkfs.xfs -q -f
	check "xfs@$ss/unload" unload_sbd
done
