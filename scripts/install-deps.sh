#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the host packages the harness needs (idempotent).
. "$(dirname "$0")/lib.sh"
need_root

PKGS="make gcc libc6-dev bc flex bison libelf-dev kmod cpio gzip xz-utils zstd
      qemu-system-x86 debootstrap busybox-static dash fio e2fsprogs
      xfsprogs btrfs-progs util-linux fdisk mount coreutils dmsetup"
[ $# -gt 0 ] && PKGS="$PKGS $*"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	log "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt_get update -q >/dev/null
	# shellcheck disable=SC2086 # $missing: a list of packages
	apt_get install -y -q --no-install-recommends $missing >/dev/null
fi
