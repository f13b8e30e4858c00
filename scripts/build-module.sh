#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build-module.sh TIER [MAKE ARGS...]: build sbd.ko against TIER's headers.
# Builds in a private copy of the sources ($SBD_OUT/build/TIER) so that
# kernels never share objects; the result is $SBD_OUT/build/TIER/sbd.ko.
# Extra arguments go to make (e.g. W=1, C=1).
# For the benchmark's variants (bench/variant.py): SBD_SRC=DIR builds the
# sources in DIR instead (its Kbuild names the module), in
# SBD_BUILD=DIR; the result is DIR/NAME.ko for each module its Kbuild names.
. "$(dirname "$0")/lib.sh"
tier=${1:?usage: build-module.sh TIER [make args]}; shift
kdir=$(cat "$(kernel_dir "$tier")/kdir")
src=${SBD_BUILD:-$SBD_OUT/build/$tier}
rm -rf "$src"
mkdir -p "$src"
cp "$SBD_ROOT"/Makefile "$SBD_ROOT"/Kbuild "$SBD_ROOT"/*.[ch] "$src"/
if [ -n "${SBD_SRC:-}" ]; then
	rm -f "$src"/*.[ch]
	cp "$SBD_SRC"/* "$src"/
fi
# The modules Kbuild builds (sbd, or a benchmark variant's name).
mods=$(sed -n 's/^obj-m := //p' "$src/Kbuild" | sed 's/\.o\b//g')

if [ "$tier" = newest ]; then
	# Its kbuild tools need sid's glibc and compiler: build in the chroot.
	mkdir -p "$SID_CHROOT/build"
	cdir=$(mktemp -d "$SID_CHROOT/build/sbd.XXXX")
	trap 'rm -rf "$cdir"' EXIT
	cp -r "$src"/. "$cdir"/
	in_sid_chroot make -C "/build/${cdir##*/}" KDIR="$kdir" "$@"
	for m in $mods; do cp "$cdir/$m.ko" "$src/"; done
else
	make -C "$src" KDIR="$kdir" "$@"
fi
for m in $mods; do
	[ -f "$src/$m.ko" ] || die "$tier: build produced no $m.ko"
done
