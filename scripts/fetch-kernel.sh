#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fetch-kernel.sh TIER: make a Debian kernel available for testing sbd.
#
# Leaves in $(kernel_dir TIER):
#   release   the kernel release string (uname -r)
#   vmlinuz   the kernel image to boot
#   modules/  lib/modules/RELEASE from the kernel's own packages
#   kdir      path of the headers to build against (inside the sid
#             chroot for the newest tier)
# Versions are resolved at run time from the archive, never hard-coded:
# 6.1 and 6.12 are the newest of their series in bookworm's suites,
# "newest" is what sid's linux-headers-amd64 points at today.
. "$(dirname "$0")/lib.sh"
need_root
tier=${1:?usage: fetch-kernel.sh 6.1|6.12|newest|debug}
# The debug tier is built, not fetched (it takes its own lock).
[ "$tier" != debug ] || exec "$(dirname "$0")/build-debug-kernel.sh"
dir=$(kernel_dir "$tier")
mkdir -p "$dir"
# Parallel runs share the cache and apt: fetch one at a time.
exec 9>"$SBD_CACHE/.fetch.lock"
flock 9
# Downloads land in root-owned cache directories: skip apt's _apt sandbox.
APT_AS_ROOT=-oAPT::Sandbox::User=root

# Newest installable package matching an extended regexp (bookworm side).
newest_pkg() {
	apt-cache pkgnames | grep -E "$1" | sort -V | tail -n 1
}

# Unpack IMAGE_DEBS into $dir, keep vmlinuz and the modules tree.
unpack_kernel() {
	local rel=$1 tmp; shift
	tmp=$(mktemp -d "$dir/unpack.XXXX")
	for deb in "$@"; do dpkg -x "$deb" "$tmp"; done
	rm -rf "$dir/modules"
	local m
	for m in "$tmp/lib/modules/$rel" "$tmp/usr/lib/modules/$rel"; do
		[ -d "$m" ] && mv "$m" "$dir/modules"
	done
	local v
	for v in "$tmp/boot/vmlinuz-$rel" "$dir/modules/vmlinuz"; do
		[ -f "$v" ] && cp "$v" "$dir/vmlinuz"
	done
	rm -rf "$tmp"
	[ -f "$dir/vmlinuz" ] && [ -d "$dir/modules/kernel" ] ||
		die "$tier: kernel package for $rel did not contain vmlinuz and modules"
}

fetch_bookworm() {
	local pattern=$1 rel
	apt_get update -q >/dev/null
	rel=$(newest_pkg "$pattern" | sed 's/^linux-image-//')
	[ -n "$rel" ] || die "$tier: no kernel matching $pattern in the archive"
	if [ "$(cat "$dir/release" 2>/dev/null)" = "$rel" ] &&
	   [ -d "/lib/modules/$rel/build" ] && [ -f "$dir/vmlinuz" ]; then
		log "$tier: $rel cached"; return
	fi
	log "$tier: fetching $rel"
	DEBIAN_FRONTEND=noninteractive apt_get install -y -q \
		--no-install-recommends "linux-headers-$rel" >/dev/null
	(cd "$dir" && rm -f ./*.deb && apt_get download -q "$APT_AS_ROOT" "linux-image-$rel" >/dev/null)
	unpack_kernel "$rel" "$dir"/linux-image-*.deb
	rm -f "$dir"/*.deb
	echo "/lib/modules/$rel/build" > "$dir/kdir"
	echo "$rel" > "$dir/release"
}

ensure_sid_chroot() {
	if [ ! -x "$SID_CHROOT/usr/bin/make" ]; then
		log "newest: creating the sid chroot (about 650 MB, a few minutes)"
		rm -rf "$SID_CHROOT"
		debootstrap --variant=minbase \
			--include=make,libc6-dev,libelf-dev,bc,kmod,xz-utils \
			sid "$SID_CHROOT" >"$SBD_CACHE/debootstrap.log" 2>&1 ||
			die "debootstrap failed, see $SBD_CACHE/debootstrap.log"
	fi
	# The archive this machine reaches may be a dated snapshot whose
	# Release file has passed its Valid-Until: accept it.
	echo 'Acquire::Check-Valid-Until "false";' \
		> "$SID_CHROOT/etc/apt/apt.conf.d/99sbd-snapshot"
	in_sid_chroot sh -c 'apt-get update -q >/dev/null'
}

fetch_newest() {
	ensure_sid_chroot
	local rel
	# The meta-package's dependency names today's newest kernel.
	rel=$(in_sid_chroot apt-cache depends linux-headers-amd64 |
	      sed -n 's/.*Depends: linux-headers-\(.*-amd64\)$/\1/p' | head -n 1)
	[ -n "$rel" ] || die "newest: cannot resolve sid's kernel version"
	if [ "$(cat "$dir/release" 2>/dev/null)" = "$rel" ] &&
	   [ -d "$SID_CHROOT/lib/modules/$rel/build" ] && [ -f "$dir/vmlinuz" ]; then
		log "newest: $rel cached"; return
	fi
	log "newest: fetching $rel"
	# Headers pull in the compiler the kernel was built with (gcc-16 today).
	in_sid_chroot sh -c "DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends linux-headers-$rel >/dev/null"
	# Since 7.x the image is split: linux-binary-* holds vmlinuz,
	# linux-modules-* the modules, linux-base-* modules.builtin and
	# friends; older sid kernels ship one linux-image-*.
	in_sid_chroot sh -c "mkdir -p /tmp/k && cd /tmp/k && rm -f ./*.deb &&
		(apt-get download -q $APT_AS_ROOT linux-binary-$rel \
			linux-modules-$rel linux-base-$rel ||
		 apt-get download -q $APT_AS_ROOT linux-image-$rel) >/dev/null"
	unpack_kernel "$rel" "$SID_CHROOT"/tmp/k/*.deb
	rm -rf "$SID_CHROOT/tmp/k"
	echo "/lib/modules/$rel/build" > "$dir/kdir"
	echo "$rel" > "$dir/release"
}

case $tier in
6.1)	fetch_bookworm '^linux-image-6\.1\.0-[0-9]+-amd64$' ;;
6.12)	fetch_bookworm '^linux-image-6\.12\.[0-9]+\+deb12-amd64$' ;;
newest)	fetch_newest ;;
*)	die "unknown tier $tier" ;;
esac
