# SPDX-License-Identifier: GPL-2.0
# Shared settings and helpers for sbd's test harness.  Sourced, not run.
#
# Pipeline, one script per step (HACKING.md maps them):
#   install-deps.sh -> fetch-kernel.sh -> build-module.sh
#   -> make-initramfs.sh -> boot-vm.sh, driven by run-tests.sh / demo.sh

set -euo pipefail

SBD_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Large downloads (kernel images, the sid chroot) live outside the
# repository so that later runs and CI on the same machine reuse them.
SBD_CACHE=${SBD_CACHE:-/var/cache/sbd}
# Per-run output (built modules, initramfs images, console logs).
SBD_OUT=${SBD_OUT:-$SBD_ROOT/out}
# The kernel tiers sbd supports; "newest" is whatever Debian sid ships.
SBD_ALL_KERNELS="6.1 6.12 newest"
SID_CHROOT=$SBD_CACHE/sid-chroot
mkdir -p "$SBD_CACHE" 2>/dev/null || true

log()  { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die()  { printf 'error: %s\n' "$*" >&2; exit 1; }

# apt_get ARGS: apt-get, one harness script at a time (two scripts
# installing at once would otherwise fail on apt's lock), and waiting
# for any other apt user rather than failing at once.
apt_get() {
	flock "$SBD_CACHE/.apt.lock" apt-get -o DPkg::Lock::Timeout=600 "$@"
}

need_root() {
	[ "$(id -u)" = 0 ] || die "run as root (installs packages, uses chroot)"
}

# Expand KERNELS (e.g. "7.2 6.12") into tier names; 7.x means newest.
kernel_tiers() {
	local k out=""
	for k in ${KERNELS:-$SBD_ALL_KERNELS}; do
		case $k in
		6.1|6.12|newest) out="$out $k" ;;
		7*|sid) out="$out newest" ;;
		# Built by build-debug-kernel.sh; never part of the default list.
		debug) out="$out debug" ;;
		*) die "unknown kernel '$k' (choose from: 6.1 6.12 7.2/newest debug)" ;;
		esac
	done
	echo "${out# }"
}

# vm_image TIER OUT VM-SCRIPT [ARGS...]: fetch TIER's kernel, build sbd
# against it and pack OUT/initramfs.img to run VM-SCRIPT ARGS, with the
# logs in OUT; on a failure, show the log's tail and stop.
vm_image() {
	local tier=$1 out=$2
	shift 2
	mkdir -p "$out"
	"$SBD_ROOT/scripts/fetch-kernel.sh" "$tier" >"$out/fetch.log" 2>&1 ||
		{ tail "$out/fetch.log"; die "fetching the kernel failed"; }
	"$SBD_ROOT/scripts/build-module.sh" "$tier" >"$out/build.log" 2>&1 ||
		{ tail "$out/build.log"; die "build failed"; }
	"$SBD_ROOT/scripts/make-initramfs.sh" "$tier" "$out/initramfs.img" "$@" \
		>"$out/initramfs.log" 2>&1 ||
		{ tail "$out/initramfs.log"; die "initramfs failed"; }
}

# use_icount DIR SHIFT: boot-vm.sh runs qemu-system-x86_64 from PATH;
# put a wrapper in DIR first in PATH that adds "-icount shift=SHIFT", so
# that the guest's clock counts instructions (bench.sh says why).
use_icount() {
	local qemu
	qemu=$(command -v qemu-system-x86_64) || die "qemu-system-x86_64 missing"
	mkdir -p "$1"
	printf '#!/bin/sh\nexec %s "$@" -icount shift=%s,sleep=off\n' \
		"$qemu" "$2" > "$1/qemu-system-x86_64"
	chmod +x "$1/qemu-system-x86_64"
	export PATH="$1:$PATH"
}

# Where fetch-kernel.sh leaves a tier: vmlinuz, modules/, release, kdir.
kernel_dir() { echo "$SBD_CACHE/kernels/$1"; }

# count_console LOG NAME: count a guest's verdicts in its console LOG,
# with ok/bad and skipped of the calling script, as NAME/...; show the
# evidence of each failure, and the guest's boot and time notes.
count_console() {
	local line
	while IFS= read -r line; do
		line=${line%$'\r'}
		case $line in
		"@@ ok "*)   ok "$2/${line#@@ ok }" ;;
		"@@ FAIL "*) bad "$2/${line#@@ FAIL }" ;;
		"@@ skip "*) skipped=$((skipped + 1)); echo "skip $2/${line#@@ skip }" ;;
		"@@ | "*)    echo "    ${line#@@ | }" ;;
		"@@ boot "*) log "$2: root up, first script starts at ${line#@@ boot } of guest time" ;;
		"@@ time "*) log "$2: ${line#@@ time }" ;;
		esac
	done < <(grep -a '^@@ ' "$1" 2>/dev/null)
}

# Run a command inside the sid chroot with /proc mounted (objtool needs
# it), unmounting again whatever happens.  One user at a time: runs in
# parallel would unmount /proc under each other.
in_sid_chroot() {
	local rc=0
	(
		flock 8
		mountpoint -q "$SID_CHROOT/proc" ||
			mount -t proc proc "$SID_CHROOT/proc"
		chroot "$SID_CHROOT" /usr/bin/env -i \
			PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
			"$@" || rc=$?
		umount "$SID_CHROOT/proc" 2>/dev/null || true
		exit $rc
	) 8>"$SBD_CACHE/.sid-chroot.lock" || rc=$?
	return $rc
}
