#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make-rootfs.sh: a full Debian 12 root for the application tests
# (scripts/run-apps.sh), built once with debootstrap and cached; prints
# the root's path.
#
# The root is $SBD_CACHE/rootfs/bookworm-HASH/root, HASH being that of
# the suite, the variant and the package list below: changing the list
# builds a new root beside the old one (remove old ones by hand).  The
# build goes into a temporary directory that is renamed only once
# debootstrap has finished, so an interrupted build is never taken for
# a complete one; the next run removes what it left.  Beside root/:
# packages (the list), build-time (seconds), size (du -sh), debootstrap.log.
# With --cached it only says whether the root is built: its path and
# status 0, or status 1 and nothing built.
#
# The guests share the root read-only (9p, under an overlay): nothing
# writes to it once built.
. "$(dirname "$0")/lib.sh"
need_root

SUITE=bookworm
VARIANT=minbase
# Everything the application tests run, and everything the guest side
# of the harness calls (tests/vm-lib.sh, vm-run-areas.sh, sbd-explore:
# coreutils' sha256sum and dd, mawk, mount, the filesystems' mkfs and
# fsck, blockdev, dmesg, gzip, kmod).  minbase brings coreutils, mawk,
# sed, grep, diffutils, mount, util-linux and dpkg anyway; they are
# named when a test calls them.
ROOTFS_PKGS="
	coreutils util-linux mount fdisk kmod procps psmisc gzip dpkg
	e2fsprogs xfsprogs btrfs-progs dmsetup
	sqlite3 git redis-server redis-tools postgresql lmdb-utils rsync
	python3 python3-plyvel python3-lmdb etcd-server etcd-client
	zookeeper python3-kazoo
"

# shellcheck disable=SC2086 # a list of names
pkgs=$(printf '%s\n' $ROOTFS_PKGS | sort -u)
hash=$(printf '%s %s\n%s\n' "$SUITE" "$VARIANT" "$pkgs" | sha256sum | cut -c1-12)
base=$SBD_CACHE/rootfs
dir=$base/$SUITE-$hash
if [ -d "$dir/root" ]; then
	echo "$dir/root"
	exit 0
fi
[ "${1:-}" != --cached ] || exit 1

"$SBD_ROOT/scripts/install-deps.sh" debootstrap >&2
mkdir -p "$base"
exec 9>"$SBD_CACHE/.rootfs.lock"
flock 9
# Another run may have built it while this one waited.
if [ -d "$dir/root" ]; then
	echo "$dir/root"
	exit 0
fi

# unmount_under DIR: whatever an interrupted debootstrap left mounted
# below DIR (its /proc, /sys), deepest first.
unmount_under() {
	local m
	awk -v d="$1/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r |
		while read -r m; do umount -l "$m" || true; done
}

# Builds that never finished (only one runs at a time: the lock).
for old in "$base"/.build-*; do
	[ -d "$old" ] || continue
	log "rootfs: removing an unfinished build, $old"
	unmount_under "$old"
	rm -rf "$old"
done

tmp=$(mktemp -d "$base/.build-$hash.XXXX")
trap 'unmount_under "$tmp"; rm -rf "$tmp"' EXIT
log "rootfs: building $SUITE ($VARIANT, $(echo "$pkgs" | wc -l) packages and what they need) in $tmp"
start=$(date +%s)
if ! debootstrap --variant="$VARIANT" --include="$(echo "$pkgs" | paste -sd,)" \
	"$SUITE" "$tmp/root" >"$tmp/debootstrap.log" 2>&1; then
	tail -n 20 "$tmp/debootstrap.log" >&2
	die "debootstrap failed (its log: $tmp/debootstrap.log, removed on exit)"
fi
# Packages' maintainer scripts may have started daemons inside the new
# root (debootstrap fakes start-stop-daemon, not every init script
# uses it): stop them, they would keep it busy.
for p in /proc/[0-9]*; do
	r=$(readlink "$p/root" 2>/dev/null) || continue
	case $r in
	"$tmp/root"|"$tmp/root/"*)
		log "rootfs: stopping ${p#/proc/} ($(cat "$p/comm" 2>/dev/null)), started inside the root"
		kill "${p#/proc/}" 2>/dev/null || true ;;
	esac
done
unmount_under "$tmp"
# Downloaded packages and indexes: nothing in the guests needs them.
rm -rf "$tmp/root/var/cache/apt/archives/"*.deb "$tmp/root/var/lib/apt/lists/"*_* \
	"$tmp/root/var/cache/apt/"*.bin
echo "$pkgs" > "$tmp/packages"
echo $(( $(date +%s) - start )) > "$tmp/build-time"
du -sh "$tmp/root" | cut -f1 > "$tmp/size"
mv "$tmp" "$dir"
trap - EXIT
log "rootfs: $SUITE-$hash built in $(cat "$dir/build-time")s, $(cat "$dir/size")"
echo "$dir/root"
