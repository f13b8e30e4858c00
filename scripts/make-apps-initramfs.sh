#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make-apps-initramfs.sh TIER OUTPUT [SCRIPT...]
#
# Pack the small initramfs that boots TIER's kernel into the full Debian
# root of make-rootfs.sh, to run tests/apps/SCRIPT... there (default:
# every tests/apps/NN-*.sh).  The guest needs two 9p shares, which
# run-apps.sh passes to QEMU (read-only: several guests may share them):
#   root     the root from make-rootfs.sh
#   modules  $(kernel_dir TIER)/modules, the kernel's own modules
# and mounts a third if given, writable, at /var/sbd-saved:
#   saved    where a test leaves what a bug report needs (run-apps.sh)
# /init (busybox) loads the kernel's 9p, virtio and overlay modules,
# mounts the root read-only as the lower layer of an overlay whose upper
# layer is a tmpfs, copies the payload below into it, mounts the modules
# at /lib/modules/RELEASE/kernel and switch_roots to
# /usr/local/lib/sbd/stage2, which runs the scripts with
# tests/vm-run-areas.sh (the console protocol of make-initramfs.sh's
# images: "@@ init", "@@ ok|FAIL|skip NAME", "@@ vm-done").
#
# The payload, in the guest:
#   /sbd.ko, /usr/lib/modules/RELEASE/extra/sbd.ko ($SBD_OUT/build/TIER/sbd.ko;
#              modules.dep covers it and the kernel's modules)
#   /tests/    tests/vm-lib.sh, tests/vm-run-areas.sh, all of tests/apps/
#   /usr/local/bin/   the tools built from tests/tools/*.c (and explore/*.c,
#              if any), static, and sbd-explore
#   /usr/local/lib/sbd/   the explorer with its files (all of explore/:
#              sbd-explore, sbd-corpus and the corpus), examples/app-case
#              (the worked example of docs/applications.md), busybox
#              (for poweroff and the loopback interface), stage2
. "$(dirname "$0")/lib.sh"
tier=${1:?usage: make-apps-initramfs.sh TIER OUTPUT [SCRIPT...]}
out=${2:?output file}
shift 2
kdir=$(kernel_dir "$tier")
rel=$(cat "$kdir/release")
mods=$kdir/modules
ko=$SBD_OUT/build/$tier/sbd.ko
[ -f "$ko" ] || die "$ko missing: run scripts/build-module.sh $tier"
# What the root's mount needs, with their dependencies (some are built
# in, depending on the kernel: those are left out).
BOOT_MODULES="virtio_pci 9pnet_virtio 9p overlay"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sbd-apps-initramfs.XXXX")
trap 'rm -rf "$tmp"' EXIT
root=$tmp/initramfs
pay=$root/payload
mkdir -p "$root"/{bin,sbin,proc,sys,dev,lower,rw,kmods,newroot,modules} \
	"$pay"/{tests,usr/local/bin,usr/local/lib/sbd}
cp /bin/busybox "$root/bin/busybox"
for a in $(/bin/busybox --list); do
	[ "$a" = busybox ] || ln -s busybox "$root/bin/$a"
done

# The boot modules, in load order, decompressed (busybox's insmod reads
# only plain ones).  modprobe resolves them against the unpacked tree
# as make-initramfs.sh does.
droot=$kdir/depmod-root
mkdir -p "$droot/lib/modules"
ln -sfn "$mods" "$droot/lib/modules/$rel"
[ -f "$mods/modules.dep" ] || depmod -b "$droot" "$rel"
for m in $BOOT_MODULES; do
	modprobe -d "$droot" -S "$rel" --show-depends "$m" ||
		die "$tier: no module $m"
done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }' | while read -r f; do
	name=$(basename "$f"); name=${name%.xz}; name=${name%.zst}
	case $f in
	*.xz)  xz -dc "$f" > "$root/modules/$name" ;;
	*.zst) zstd -qdc "$f" > "$root/modules/$name" ;;
	*)     cp "$f" "$root/modules/$name" ;;
	esac
	echo "$name" >> "$root/modules/order"
done
touch "$root/modules/order"

# The kernel's modules come from the "modules" share; its indexes are
# made here, with sbd.ko in extra/, so that "modprobe sbd" works too.
dm=$tmp/depmod/lib/modules/$rel
mkdir -p "$dm/extra"
ln -s "$mods/kernel" "$dm/kernel"
cp "$mods"/modules.builtin* "$mods/modules.order" "$dm/" 2>/dev/null || true
cp "$ko" "$dm/extra/sbd.ko"
depmod -b "$tmp/depmod" "$rel"
pm=$pay/usr/lib/modules/$rel
mkdir -p "$pm/kernel" "$pm/extra"
cp "$dm"/modules.* "$pm/"
cp "$ko" "$pm/extra/sbd.ko"
cp "$ko" "$pay/sbd.ko"

# The guest's scripts and helpers.
cp "$SBD_ROOT/tests/vm-lib.sh" "$SBD_ROOT/tests/vm-run-areas.sh" "$pay/tests/"
cp -r "$SBD_ROOT/tests/apps/." "$pay/tests/"
# The tools, static as in make-initramfs.sh; the explorer and its files,
# wherever the tree keeps them.
shopt -s nullglob
for c in "$SBD_ROOT"/tests/tools/*.c "$SBD_ROOT"/explore/*.c; do
	gcc -O2 -Wall -Wextra -Werror -static \
		-o "$pay/usr/local/bin/$(basename "$c" .c)" "$c" || die "cannot build $c"
done
shopt -u nullglob
lib=$pay/usr/local/lib/sbd
cp -r "$SBD_ROOT/explore" "$lib/explore"
mkdir -p "$lib/examples"
cp -r "$SBD_ROOT/examples/app-case" "$lib/examples/app-case"
# Wrappers, not links: the explorer finds its files from its own path.
for t in sbd-explore sbd-corpus; do
	printf '#!/bin/sh\nexec /usr/local/lib/sbd/explore/%s "$@"\n' "$t" \
		> "$pay/usr/local/bin/$t"
	chmod +x "$pay/usr/local/bin/$t" "$lib/explore/$t"
done
cp /bin/busybox "$lib/busybox"

# Stage 2, in the full root (dash as PID 1).
cat > "$lib/stage2" <<STAGE2
#!/bin/sh
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=dumb
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs -o mode=0755 tmpfs /run
mkdir -p /dev/pts /dev/shm /mnt/sbd
mount -t devpts devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
/usr/local/lib/sbd/busybox ip link set lo up
hostname sbd-apps
echo "@@ boot \$(cut -d' ' -f1 /proc/uptime)s"
cd /tests && /bin/sh ./vm-run-areas.sh $*
echo "@@ vm-done"
sync
/usr/local/lib/sbd/busybox poweroff -f
STAGE2
chmod +x "$lib/stage2"

cat > "$root/init" <<INIT
#!/bin/sh
echo "@@ init"
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# step NAME CMD...: a step that fails ends the boot with its message and
# the kernel log's tail, as a FAIL line that run-apps.sh counts.
step() {
	n=\$1
	shift
	e=\$("\$@" 2>&1) && return
	echo "@@ FAIL boot/\$n"
	{ echo "\$*: \$e"; dmesg | tail -n 10; } | sed 's/^/@@ | /'
	poweroff -f
}
for m in \$(cat /modules/order); do
	step "insmod-\$m" insmod "/modules/\$m"
done
P9=trans=virtio,version=9p2000.L,msize=262144,cache=loose,ro
step mount-root mount -t 9p -o \$P9 root /lower
step tmpfs mount -t tmpfs -o mode=0755 tmpfs /rw
mkdir /rw/upper /rw/work
step overlay mount -t overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work \
	overlay /newroot
step payload cp -a /payload/. /newroot/
step mount-modules mount -t 9p -o \$P9 modules /kmods
step bind-modules mount --bind /kmods/kernel /newroot/lib/modules/$rel/kernel
# The host's writable share for saved files, if it gave one.
mkdir -p /newroot/var/sbd-saved
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 saved /newroot/var/sbd-saved 2> /dev/null ||
	rmdir /newroot/var/sbd-saved
for d in dev proc sys; do mount --move /\$d /newroot/\$d; done
exec switch_root /newroot /bin/sh /usr/local/lib/sbd/stage2
INIT
chmod +x "$root/init"

mkdir -p "$(dirname "$out")"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$out"
log "$tier: apps initramfs $(du -h "$out" | cut -f1) ($rel)"
