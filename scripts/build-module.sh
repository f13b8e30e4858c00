#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build-module.sh TIER [MAKE ARGS...]: build sbd.ko against TIER's headers.
# Builds in a private copy of the sources ($SBD_OUT/build/TIER) so that
# kernels never share objects; the result is $SBD_OUT/build/TIER/sbd.ko.
# Extra arguments go to make (e.g. W=1, C=1).
. "$(dirname "$0")/lib.sh"
tier=${1:?usage: build-module.sh TIER [make args]}; shift
kdir=$(cat "$(kernel_dir "$tier")/kdir")
src=$SBD_OUT/build/$tier
rm -rf "$src"
mkdir -p "$src"
cp "$SBD_ROOT"/Makefile "$SBD_ROOT"/Kbuild "$SBD_ROOT"/*.[ch] "$src"/

if [ "$tier" = newest ]; then
	# Its kbuild tools need sid's glibc and compiler: build in the chroot.
	mkdir -p "$SID_CHROOT/build"
	cdir=$(mktemp -d "$SID_CHROOT/build/sbd.XXXX")
	trap 'rm -rf "$cdir"' EXIT
	cp -r "$src"/. "$cdir"/
	in_sid_chroot make -C "/build/${cdir##*/}" KDIR="$kdir" "$@"
	cp "$cdir/sbd.ko" "$src/"
else
	make -C "$src" KDIR="$kdir" "$@"
fi
[ -f "$src/sbd.ko" ] || die "$tier: build produced no sbd.ko"
