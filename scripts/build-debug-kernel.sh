#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build-debug-kernel.sh: build the "debug" kernel tier from Debian's
# linux-source-6.12 package: a small QEMU config with KASAN (generic,
# with vmalloc), kmemleak, lockdep, atomic-sleep checks, list debugging
# and fault injection (failslab, fail_page_alloc, fail_make_request).
#
# Leaves in $(kernel_dir debug), like fetch-kernel.sh does for the others:
#   release      the kernel release string
#   vmlinuz      bzImage
#   modules/     lib/modules/RELEASE (modules_install)
#   kdir         the built tree, which serves as the headers for sbd
#   config.hash  hash of the source version and config fragment; a tier
#                with the same hash is reused, so the build runs once.
#   build-time   seconds the last cold build took
#   objects      .o files the last build made, for the next one's progress
#
# The build runs under "nice -n 19" with -j$(nproc).  Cold build on a
# 2-core machine: 26 minutes of CPU (22.5 user, 3.3 system), so about 15
# minutes when the machine is idle; 50 minutes measured on a machine
# busy with other QEMU guests.  Once a minute it logs how many objects
# are built, of how many expected.
#
# "build-debug-kernel.sh --cached" builds nothing: it exits 0 if the tier
# is complete for today's config, 1 if a build is needed.
. "$(dirname "$0")/lib.sh"
tier=debug
dir=$(kernel_dir $tier)
only_check=no
[ "${1:-}" != --cached ] || only_check=yes

SRC_PKG=linux-source-6.12
# Kernel release suffix, so the tier is never mistaken for a stock one.
LOCALVERSION=-sbd-debug

# Options on top of x86_64 defconfig.  "=n" entries trim what a QEMU
# guest booting from an initramfs never uses (they are a good part of
# defconfig's build time); everything else is what sbd's tests need or
# what the debug tier exists for.  Each line is checked after
# olddefconfig: an option that did not survive fails the build.
FRAGMENT='
# --- what the debug tier is for
CONFIG_KASAN=y
CONFIG_KASAN_GENERIC=y
CONFIG_KASAN_INLINE=y
CONFIG_KASAN_VMALLOC=y
CONFIG_DEBUG_KMEMLEAK=y
CONFIG_DEBUG_KMEMLEAK_DEFAULT_OFF=n
CONFIG_DEBUG_KMEMLEAK_AUTO_SCAN=n
CONFIG_DEBUG_KMEMLEAK_MEM_POOL_SIZE=64000
CONFIG_PROVE_LOCKING=y
CONFIG_LOCKDEP_BITS=16
CONFIG_LOCKDEP_CHAINS_BITS=17
CONFIG_LOCKDEP_STACK_TRACE_BITS=20
CONFIG_LOCKDEP_STACK_TRACE_HASH_BITS=15
CONFIG_DEBUG_ATOMIC_SLEEP=y
CONFIG_DEBUG_LIST=y
CONFIG_FAULT_INJECTION=y
CONFIG_FAILSLAB=y
CONFIG_FAIL_PAGE_ALLOC=y
CONFIG_FAIL_MAKE_REQUEST=y
CONFIG_FAULT_INJECTION_DEBUG_FS=y
# fault-injection stepping restricted to allocations made under module code
CONFIG_FAULT_INJECTION_STACKTRACE_FILTER=y
CONFIG_DEBUG_FS=y
CONFIG_IKCONFIG=y
CONFIG_IKCONFIG_PROC=y
CONFIG_SMP=y
CONFIG_HOTPLUG_CPU=y
CONFIG_DEBUG_INFO_NONE=y
CONFIG_PANIC_ON_OOPS=n
# --- what the tests need
CONFIG_BLK_DEV_INITRD=y
CONFIG_RD_GZIP=y
CONFIG_DEVTMPFS=y
CONFIG_TMPFS=y
CONFIG_MODULES=y
CONFIG_MODULE_UNLOAD=y
CONFIG_MODULE_FORCE_UNLOAD=n
CONFIG_MODULE_SIG=n
CONFIG_MODULE_COMPRESS=n
CONFIG_EXT4_FS=y
CONFIG_XFS_FS=m
CONFIG_BLK_DEV=y
CONFIG_BLK_DEV_LOOP=y
CONFIG_BLK_DEV_RAM=m
CONFIG_BLK_DEV_NULL_BLK=m
CONFIG_SWAP=y
CONFIG_ZRAM=m
CONFIG_CRYPTO_CRC32C=y
CONFIG_CRYPTO_LZO=y
CONFIG_CRYPTO_LZ4=m
CONFIG_CRYPTO_ZSTD=m
CONFIG_AIO=y
CONFIG_IO_URING=y
CONFIG_PARTITION_ADVANCED=y
CONFIG_MSDOS_PARTITION=y
CONFIG_EFI_PARTITION=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
# --- trimmed: a QEMU guest that boots from an initramfs needs no
# network, graphics, sound, USB, SCSI/ATA, tracing, BPF, cgroups,
# power management, firmware-facing drivers or CPU-bug mitigations
# (the last also make TCG slower).  Each of these is a good part of
# the build time of defconfig, doubled by KASAN instrumentation.
CONFIG_NET=n
CONFIG_DRM=n
CONFIG_FB=n
CONFIG_SOUND=n
CONFIG_USB_SUPPORT=n
CONFIG_HID=n
CONFIG_SCSI=n
CONFIG_ATA=n
CONFIG_MD=n
CONFIG_AGP=n
CONFIG_PCCARD=n
CONFIG_HIBERNATION=n
CONFIG_KVM=n
CONFIG_VIRTUALIZATION=n
CONFIG_NFS_FS=n
CONFIG_INPUT_MOUSE=n
CONFIG_INPUT_JOYSTICK=n
CONFIG_INPUT_TABLET=n
CONFIG_INPUT_TOUCHSCREEN=n
CONFIG_EFI=n
CONFIG_X86_MCE=n
CONFIG_PERF_EVENTS_INTEL_UNCORE=n
CONFIG_PERF_EVENTS_INTEL_RAPL=n
CONFIG_PERF_EVENTS_INTEL_CSTATE=n
CONFIG_PERF_EVENTS_AMD_POWER=n
CONFIG_CGROUPS=n
CONFIG_NAMESPACES=n
CONFIG_BPF_SYSCALL=n
CONFIG_FTRACE=n
CONFIG_KPROBES=n
CONFIG_PROFILING=n
CONFIG_SECURITY=n
CONFIG_KEYS=n
CONFIG_AUDIT=n
CONFIG_CPU_MITIGATIONS=n
CONFIG_SUSPEND=n
CONFIG_NUMA=n
CONFIG_KEXEC=n
CONFIG_CRASH_DUMP=n
CONFIG_HYPERVISOR_GUEST=n
CONFIG_X86_EXTENDED_PLATFORM=n
CONFIG_IOMMU_SUPPORT=n
CONFIG_EXPERT=y
CONFIG_VT=n
CONFIG_INPUT=n
CONFIG_SERIO=n
CONFIG_I2C=n
CONFIG_WATCHDOG=n
CONFIG_RTC_CLASS=n
CONFIG_EDAC=n
CONFIG_HUGETLBFS=n
CONFIG_QUOTA=n
CONFIG_AUTOFS_FS=n
CONFIG_FUSE_FS=n
CONFIG_ISO9660_FS=n
CONFIG_VFAT_FS=n
CONFIG_MSDOS_FS=n
CONFIG_VIRTIO_MENU=n
CONFIG_MAGIC_SYSRQ=y
CONFIG_SYSVIPC=y
CONFIG_PROC_SYSCTL=y
CONFIG_ACPI=y
CONFIG_MQ_IOSCHED_DEADLINE=y
CONFIG_MQ_IOSCHED_KYBER=y
CONFIG_IOSCHED_BFQ=m
'

# The source package's version and the fragment make the config hash: a
# new upload of linux-source-6.12 or a changed fragment means a rebuild.
config_hash() {
	local v
	v=$(dpkg-query -W -f='${Version}' "$SRC_PKG" 2>/dev/null) || return 1
	{ echo "$v$LOCALVERSION"; echo "$FRAGMENT"; } | sha256sum | cut -c1-16
}
tree=$dir/linux
is_cached() {
	[ "$(cat "$dir/config.hash" 2>/dev/null)" = "$1" ] &&
	[ -f "$dir/vmlinuz" ] && [ -d "$dir/modules/kernel" ] &&
	[ -f "$dir/release" ] && [ -f "$dir/kdir" ] &&
	[ -f "$tree/Module.symvers" ]
}
if [ $only_check = yes ]; then
	hash=$(config_hash) && is_cached "$hash"
	exit
fi

need_root
mkdir -p "$dir"
exec 9>"$SBD_CACHE/.debug-kernel.lock"
flock 9
"$SBD_ROOT/scripts/install-deps.sh" flex bison bc libelf-dev libssl-dev \
	xz-utils rsync

if ! dpkg-query -W -f='${Status}' "$SRC_PKG" 2>/dev/null | grep -q 'ok installed'; then
	log "debug: installing $SRC_PKG"
	apt_get update -q >/dev/null
	DEBIAN_FRONTEND=noninteractive apt_get install -y -q \
		--no-install-recommends "$SRC_PKG" >/dev/null
fi
srcver=$(dpkg-query -W -f='${Version}' "$SRC_PKG")
hash=$(config_hash)
if is_cached "$hash"; then
	log "debug: $(cat "$dir/release") cached (config $hash)"
	exit 0
fi

start=$(date +%s)
log "debug: building from $SRC_PKG $srcver, config $hash (15-50 min cold on 2 cores)"
rm -f "$dir/config.hash" "$dir/release"
rm -rf "$tree" "$dir/modules" "$dir/depmod-root"
mkdir -p "$tree"
tar -xf /usr/src/"$SRC_PKG".tar.xz -C "$tree" --strip-components=1

printf '%s\n' "$FRAGMENT" | grep '^CONFIG_' |
	sed 's/^\(CONFIG_[A-Z0-9_]*\)=n$/# \1 is not set/' > "$dir/fragment.config"
mk() { nice -n 19 make -C "$tree" -j"$(nproc)" "$@"; }
mk defconfig >/dev/null
"$tree/scripts/kconfig/merge_config.sh" -m -O "$tree" "$tree/.config" \
	"$dir/fragment.config" >/dev/null
"$tree/scripts/config" --file "$tree/.config" \
	--disable LOCALVERSION_AUTO --set-str LOCALVERSION "$LOCALVERSION" \
	--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS ""
mk olddefconfig >/dev/null

# Every wanted option must have survived olddefconfig.
lost=""
while IFS= read -r line; do
	case $line in
	"# CONFIG_"*" is not set")
		o=${line#\# }; o=${o%% *}
		grep -q "^$o=" "$tree/.config" && lost="$lost $o(wanted off)" ;;
	CONFIG_*)
		grep -qx "$line" "$tree/.config" ||
			lost="$lost $line(got: $(grep "^${line%%=*}=" "$tree/.config" || echo unset))" ;;
	esac
done < "$dir/fragment.config"
[ -z "$lost" ] || die "debug: options lost by olddefconfig:$lost"

# Progress, once a minute: the .o files built so far (outside scripts/
# and tools/, the host programs) against the number expected.  That is
# what the last build of this tier left in $dir/objects (exact for the
# same source and config), or for a first build kbuild-objects.awk's
# estimate from the Makefiles and .config.  Counting costs one niced
# find over the tree a minute (well under a second of CPU); the share
# stays at 99% at most until the build ends.
count_objects() {
	{ nice -n 19 find "$tree" \( -path "$tree/scripts" -o -path "$tree/tools" \) \
		-prune -o -name '*.o' -print 2>/dev/null || true; } | wc -l
}
expected=$(cat "$dir/objects" 2>/dev/null || true) from="as many as the last build"
if ! [ "${expected:-0}" -gt 0 ] 2>/dev/null; then
	expected=$(awk -v tree="$tree" -v arch=x86 \
		-f "$SBD_ROOT/scripts/kbuild-objects.awk" || true)
	from="estimated from the config"
fi
if [ "${expected:-0}" -gt 0 ] 2>/dev/null; then
	log "debug: expecting about $expected objects ($from)"
else
	expected=0
fi
progress() {
	local n pct min
	# sleep writes nowhere: when this loop is killed, it must not keep
	# open a pipe that a caller reads the log from.  The loop also ends
	# by itself once the script is gone.
	while sleep 60 >/dev/null 2>&1 && kill -0 $$ 2>/dev/null; do
		n=$(count_objects 2>/dev/null)
		min=$(( ($(date +%s) - start) / 60 ))
		if [ "$expected" = 0 ]; then
			log "debug: $n objects built, $min min"
			continue
		fi
		pct=$(( n * 100 / expected ))
		[ $pct -le 99 ] || pct=99
		log "debug: $n of ~$expected objects built ($pct%), $min min"
	done
}
progress & progress_pid=$!
trap 'kill "$progress_pid" 2>/dev/null || true' EXIT
mk bzImage modules > "$dir/build.log" 2>&1 ||
	{ tail -n 40 "$dir/build.log" >&2; die "debug: kernel build failed, see $dir/build.log"; }
kill "$progress_pid" 2>/dev/null || true
trap - EXIT
count_objects > "$dir/objects"
rel=$(make -s -C "$tree" kernelrelease)
tmp=$(mktemp -d "$dir/install.XXXX")
mk modules_install INSTALL_MOD_PATH="$tmp" INSTALL_MOD_STRIP=1 >>"$dir/build.log" 2>&1 ||
	die "debug: modules_install failed, see $dir/build.log"
rm -f "$tmp/lib/modules/$rel/build" "$tmp/lib/modules/$rel/source"
mv "$tmp/lib/modules/$rel" "$dir/modules"
rm -rf "$tmp"
cp "$tree/arch/x86/boot/bzImage" "$dir/vmlinuz"
echo "$tree" > "$dir/kdir"
echo "$rel" > "$dir/release"
echo $(( $(date +%s) - start )) > "$dir/build-time"
echo "$hash" > "$dir/config.hash"
log "debug: built $rel in $(( ($(date +%s) - start) / 60 )) min"
