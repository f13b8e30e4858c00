#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make-initramfs.sh TIER OUTPUT ENTRY [ARGS...]
#
# Pack a gzip'ed cpio initramfs that boots TIER's kernel straight into
# sbd's tests: busybox for the basics, real binaries (dash, kmod, fio,
# e2fsprogs, xfsprogs, btrfs-progs, util-linux) with their libraries,
# the kernel's own modules sbd is tested with and against,
# $SBD_OUT/build/TIER/sbd.ko, tests/ and explore/.  /init runs
# "tests/ENTRY ARGS..." and powers off.
. "$(dirname "$0")/lib.sh"
tier=${1:?usage: make-initramfs.sh TIER OUTPUT ENTRY [ARGS...]}
out=${2:?output file}
entry=${3:?entry script in tests/}
shift 3
kdir=$(kernel_dir "$tier")
rel=$(cat "$kdir/release")
ko=$SBD_OUT/build/$tier/sbd.ko
[ -f "$ko" ] || die "$ko missing: run scripts/build-module.sh $tier"

# Real programs the tests call.  busybox's own dd, blkdiscard, modinfo...
# lack options the real ones have, so these come first in the image and
# /bin/sh is dash, which (unlike busybox's ash) runs what PATH finds.
TOOLS="dash kmod dmsetup fio mke2fs e2fsck dumpe2fs mkfs.xfs xfs_repair
       mkfs.btrfs btrfs sfdisk
       blkdiscard blockdev fstrim mount umount losetup dd cmp sha256sum
       od head tail timeout stat truncate sync nproc seq sort dmesg xfs_io
       fallocate addpart delpart partx"
# Kernel modules, with their dependencies.  Missing ones are built in.
MODULES="ext4 xfs btrfs brd null_blk zram crc32c crc32c_generic crc32c-intel
	 libcrc32c lzo-rle lz4 zstd kyber-iosched bfq dm-log-writes dm-flakey"

root=$(mktemp -d "${TMPDIR:-/tmp}/sbd-initramfs.XXXX")
trap 'rm -rf "$root"' EXIT
# Merged /usr, like the host the binaries come from.
mkdir -p "$root"/{usr/bin,usr/sbin,usr/lib,usr/lib64,proc,sys,dev,tmp,mnt,etc}
# The guest's / is this directory, which mktemp made for root alone: a
# test's process that drops root must reach the programs and /tmp.
chmod 755 "$root" && chmod 1777 "$root/tmp"
for d in bin sbin lib lib64; do ln -s "usr/$d" "$root/$d"; done

copy_with_libs() {
	local bin=$1 lib
	cp -L "$bin" "$root$bin"
	for lib in $(ldd "$bin" 2>/dev/null | grep -o '/[^ ]*'); do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}

for t in $TOOLS; do
	p=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v "$t") ||
		die "$t not found on the host: run scripts/install-deps.sh"
	copy_with_libs "$(readlink -f "$p")"
	# Keep the name the tests use (mkfs.ext4 is mke2fs, etc.).
	[ -e "$root$p" ] || ln -s "$(readlink -f "$p")" "$root$p"
done
ln -s mke2fs "$root/sbin/mkfs.ext4"
ln -sf /bin/dash "$root/bin/sh"
for t in insmod rmmod modprobe lsmod modinfo depmod; do
	ln -s /bin/kmod "$root/sbin/$t"
done
cp /bin/busybox "$root/bin/busybox"
for a in $(/bin/busybox --list-full); do
	[ -e "$root/$a" ] || [ -e "$root/bin/${a##*/}" ] ||
		[ -e "$root/sbin/${a##*/}" ] || ln -s /bin/busybox "$root/$a"
done

# Kernel modules: resolve dependencies with the host's modprobe against
# the unpacked tree, copy them decompressed, then index the new tree.
mods=$kdir/modules
droot=$kdir/depmod-root
mkdir -p "$droot/lib/modules"
ln -sfn "$mods" "$droot/lib/modules/$rel"
[ -f "$mods/modules.dep" ] || depmod -b "$droot" "$rel"
dest=$root/lib/modules/$rel
mkdir -p "$dest/extra"
for m in $MODULES; do
	modprobe -d "$droot" -S "$rel" --show-depends "$m" \
		2>/dev/null || true
done | awk '$1 == "insmod" { print $2 }' | sort -u | while read -r f; do
	r=${f#"$droot/lib/modules/$rel/"}
	mkdir -p "$dest/$(dirname "$r")"
	case $f in
	*.xz)  xz -dc "$f" > "$dest/${r%.xz}" ;;
	*.zst) zstd -qdc "$f" > "$dest/${r%.zst}" ;;
	*)     cp "$f" "$dest/$r" ;;
	esac
done
cp "$mods"/modules.builtin* "$mods"/modules.order "$dest/" 2>/dev/null || true
cp "$ko" "$dest/extra/sbd.ko"
cp "$ko" "$root/sbd.ko"
depmod -b "$root" "$rel"

cp -r "$SBD_ROOT/tests" "$root/tests"
# The crash explorer beside them, as in the tree (/explore/sbd-explore).
cp -r "$SBD_ROOT/explore" "$root/explore"
# The tests' own small programs (tests/tools/*.c) and the explorer's
# (explore/*.c), static: no libraries to copy, and the same binary
# serves every kernel.
for c in "$SBD_ROOT"/tests/tools/*.c "$SBD_ROOT"/explore/*.c; do
	gcc -O2 -Wall -Wextra -Werror -static -o "$root/usr/bin/$(basename "$c" .c)" "$c" ||
		die "cannot build $c"
done
# Hook: extra files for the image (e.g. the benchmark's binaries),
# copied over / from the directory $SBD_INITRAMFS_EXTRA.
[ -z "${SBD_INITRAMFS_EXTRA:-}" ] || cp -r "$SBD_INITRAMFS_EXTRA"/. "$root"/
cat > "$root/init" <<INIT
#!/bin/sh
echo "@@ init"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
cd /tests && /bin/sh ./$entry $*
echo "@@ vm-done"
sync
poweroff -f
INIT
chmod +x "$root/init"

mkdir -p "$(dirname "$out")"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$out"
log "$tier: initramfs $(du -h "$out" | cut -f1) ($rel)"
