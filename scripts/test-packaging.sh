#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test-packaging.sh: install sbd the ways users do, and check each works.
# Prints one "ok NAME" / "FAIL NAME" line per check (evidence indented
# below a failure) and exits non-zero if any failed.  A stage of
# run-tests.sh.
#
#   make-without-headers-says-so, make-clean-without-headers
#                     "make KDIR=/nonexistent" stops naming the missing
#                     headers; "make clean KDIR=/nonexistent" removes a
#                     build's products (faked) and keeps the sources
#   modinfo           every parameter is described, with its default
#   dkms-add, TIER/dkms-build
#                     Debian's dkms adds the sources and builds sbd
#                     against TIER's installed headers
#   TIER/make-install, TIER/modprobe-resolves, TIER/make-uninstall
#                     "make install" into a staging root, modprobe -d
#                     finds it, "make uninstall" removes it again
#   explore/make-install, explore/installed-files, explore/make-uninstall,
#   explore/make-install-prefix, explore/installed-finds-workloads
#                     sbd-explore, its helper and workloads, as "make
#                     install" puts them (install-explore): in place,
#                     removed again, and found from where they were put
#   TIER-dkms/...     the module DKMS built, packed into TIER's initramfs
#                     and booted: tests/00-smoke.sh with insmod, then
#                     tests/vm-packaging.sh loads it by name with the
#                     examples/ files installed in /etc
#
#   PKG_KERNELS="6.1"   kernels for DKMS (host headers only: 6.1, 6.12)
. "$(dirname "$0")/lib.sh"
need_root
PKG_KERNELS=${PKG_KERNELS:-6.1}
"$SBD_ROOT/scripts/install-deps.sh" dkms >&2

out=$SBD_OUT/packaging
rm -rf "$out"
mkdir -p "$out"
failed=0
ok()  { echo "ok $1"; }
bad() { failed=1; echo "FAIL $1"; shift; printf '%s\n' "$@" | sed 's/^/    /'; }
# check NAME LOG CMD...: CMD's output goes to LOG, shown if it fails.
check() {
	local name=$1 logf=$2; shift 2
	if "$@" >"$logf" 2>&1; then ok "$name"; return 0; fi
	bad "$name" "command failed: $*" "$(tail -n 20 "$logf")"
	return 1
}

# What a release tarball holds: the files DKMS and make install need.
src=$out/src
mkdir -p "$src"
cp "$SBD_ROOT"/{dkms.conf,Makefile,Kbuild,LICENSE} "$SBD_ROOT"/*.[ch] "$src/"
version=$(sed -n 's/^#define SBD_VERSION[[:space:]]*"\(.*\)".*/\1/p' "$src/sbd.h")

# "make clean" on a machine without kernel headers: in a copy of the
# release files with what a build leaves (kbuild's names, faked), and
# KDIR naming nothing, it succeeds and leaves exactly the sources.
cdir=$out/clean
mkdir -p "$cdir/.tmp_versions"
cp "$src"/* "$cdir/"
for f in sbd.o sbd.ko sbd.mod sbd.mod.c sbd.mod.o .sbd.o.cmd .sbd.ko.cmd \
	 .sbd.mod.cmd .sbd.mod.o.cmd .module-common.o ..module-common.o.cmd \
	 Module.symvers .Module.symvers.cmd modules.order .modules.order.cmd \
	 .tmp_versions/sbd.mod; do
	echo "a build product" > "$cdir/$f"
done
# What does need headers still says what is missing.
if out_msg=$(make -C "$cdir" KDIR=/nonexistent 2>&1); then
	bad make-without-headers-says-so "make KDIR=/nonexistent succeeded"
elif [[ $out_msg != *"sbd: no kernel headers at /nonexistent"* ]]; then
	bad make-without-headers-says-so "make KDIR=/nonexistent failed, but not naming the headers:" \
		"$out_msg"
else
	ok make-without-headers-says-so
fi
if ! make -C "$cdir" KDIR=/nonexistent clean >"$out/make-clean.log" 2>&1; then
	bad make-clean-without-headers "make clean KDIR=/nonexistent failed:" \
		"$(tail -n 5 "$out/make-clean.log")"
elif ! left=$(diff <(cd "$src" && ls -A) <(cd "$cdir" && ls -A)); then
	bad make-clean-without-headers "what make clean left differs from the sources" \
		"(> left behind, < removed):" "$left"
else
	ok make-clean-without-headers
fi
rm -rf "$cdir"

# modinfo on a plain build: each parameter (parmtype lists them all) has
# a description that names its default.
tier=${PKG_KERNELS%% *}
"$SBD_ROOT/scripts/fetch-kernel.sh" "$tier" >"$out/fetch-$tier.log" 2>&1 ||
	bad "$tier/fetch-kernel" "$(tail -n 10 "$out/fetch-$tier.log")"
kdir=$(cat "$(kernel_dir "$tier")/kdir")
if make -C "$src" KDIR="$kdir" >"$out/modinfo-build.log" 2>&1; then
	missing=""
	for p in $(modinfo -F parmtype "$src/sbd.ko" | cut -d: -f1); do
		modinfo -F parm "$src/sbd.ko" | grep -q "^$p:.*default" ||
			missing="$missing $p"
	done
	if [ -z "$missing" ] && [ "$(modinfo -F version "$src/sbd.ko")" = "$version" ]; then
		ok modinfo
	else
		bad modinfo "parameters without a description naming the default:${missing:- none}" \
			"version: '$(modinfo -F version "$src/sbd.ko")' (sbd.h says '$version')" \
			"$(modinfo "$src/sbd.ko" | grep -E '^(version|parm):')"
	fi
	make -C "$src" KDIR="$kdir" clean >/dev/null 2>&1 || true
else
	bad modinfo "build failed:" "$(tail -n 20 "$out/modinfo-build.log")"
fi

# DKMS state is machine-wide: one user at a time, and leave none behind
# (an added module would be rebuilt whenever kernel headers are installed).
exec 7>"$SBD_CACHE/.dkms.lock"
flock 7
dkms_cleanup() {
	dkms remove "sbd/$version" --all >/dev/null 2>&1 || true
	rm -rf "/usr/src/sbd-$version"
}
trap dkms_cleanup EXIT
dkms_cleanup

# "dkms add DIR" copies DIR to /usr/src/sbd-VERSION, reading the version
# from dkms.conf (that is, from sbd.h).
if check dkms-add "$out/dkms-add.log" dkms add "$src" &&
   grep -q "^sbd/$version" <(dkms status sbd 2>&1); then
	for tier in $PKG_KERNELS; do
		rel=$(cat "$(kernel_dir "$tier")/release" 2>/dev/null) ||
			{ bad "$tier/dkms-build" "kernel $tier not fetched"; continue; }
		check "$tier/dkms-build" "$out/dkms-build-$tier.log" \
			dkms build "sbd/$version" -k "$rel" || continue
		ko=$(ls /var/lib/dkms/sbd/"$version"/"$rel"/*/module/sbd.ko* 2>/dev/null | head -n 1)
		mkdir -p "$out/dkms/build/$tier"
		case $ko in
		*.xz)  xz -dc "$ko" ;;
		*.zst) zstd -qdc "$ko" ;;
		*)     cat "$ko" ;;
		esac > "$out/dkms/build/$tier/sbd.ko"
	done
fi
dkms_cleanup
trap - EXIT
exec 7>&-

# make install / uninstall into a staging root, for each host kernel.
for tier in $PKG_KERNELS; do
	rel=$(cat "$(kernel_dir "$tier")/release" 2>/dev/null) || continue
	kdir=$(cat "$(kernel_dir "$tier")/kdir")
	stage=$out/stage-$tier
	check "$tier/make-install" "$out/make-install-$tier.log" \
		make -C "$src" KDIR="$kdir" INSTALL_MOD_PATH="$stage" install || continue
	dep=$(modprobe -d "$stage" -S "$rel" --show-depends sbd 2>&1 || true)
	if [[ $dep == "insmod $stage/lib/modules/$rel/extra/sbd.ko"* ]] &&
	   [ "$(modinfo -b "$stage" -k "$rel" -F version sbd 2>&1)" = "$version" ]; then
		ok "$tier/modprobe-resolves"
	else
		bad "$tier/modprobe-resolves" "modprobe -d $stage -S $rel --show-depends sbd:" "$dep" \
			"modinfo version: $(modinfo -b "$stage" -k "$rel" -F version sbd 2>&1)"
	fi
	if make -C "$src" KDIR="$kdir" INSTALL_MOD_PATH="$stage" uninstall \
		>"$out/make-uninstall-$tier.log" 2>&1 &&
	   ! compgen -G "$stage/lib/modules/$rel/extra/sbd.ko*" >/dev/null &&
	   ! modprobe -d "$stage" -S "$rel" --show-depends sbd >/dev/null 2>&1; then
		ok "$tier/make-uninstall"
	else
		bad "$tier/make-uninstall" "sbd still installed or resolvable in $stage:" \
			"$(tail -n 10 "$out/make-uninstall-$tier.log")" \
			"$(find "$stage" -name 'sbd.ko*')"
	fi
	make -C "$src" KDIR="$kdir" clean >/dev/null 2>&1 || true
done

# The crash explorer as a clone installs it (make install runs
# install-explore, which needs no kernel headers).  Into a staging root:
# every file in place, the installed sbd-explore naming where its
# workloads will be without the root, and make uninstall-explore leaving
# no file.  Into a prefix of its own: run from there, it finds them and
# knows the built-ins its source tree knows.
clone=$out/clone
mkdir -p "$clone"
cp -r "$SBD_ROOT/Makefile" "$SBD_ROOT/explore" "$clone/"
stage=$out/stage-explore
if check explore/make-install "$out/explore-install.log" \
	make -C "$clone" INSTALL_MOD_PATH="$stage" install-explore; then
	missing=""
	for f in sbin/sbd-explore sbin/sbd-statehash sbin/sbd-import share/sbd/explore/workloads/README \
		$(cd "$clone/explore" && printf 'share/sbd/explore/%s\n' workloads/*.sh); do
		[ -s "$stage/usr/local/$f" ] || missing="$missing $f"
	done
	share=$(grep '^EXPLORE_SHARE=' "$stage/usr/local/sbin/sbd-explore")
	if [ -z "$missing" ] && [ "$share" = EXPLORE_SHARE=/usr/local/share/sbd/explore ]; then
		ok explore/installed-files
	else
		bad explore/installed-files "missing under $stage/usr/local:${missing:- none}" \
			"the installed sbd-explore says: $share"
	fi
	if make -C "$clone" INSTALL_MOD_PATH="$stage" uninstall-explore \
		>"$out/explore-uninstall.log" 2>&1 && [ -z "$(find "$stage" -type f)" ]; then
		ok explore/make-uninstall
	else
		bad explore/make-uninstall "left in $stage:" "$(find "$stage" -type f)" \
			"$(tail -n 5 "$out/explore-uninstall.log")"
	fi
fi
prefix=$out/prefix-explore
# (exit 2, naming the built-ins: any other workload would be refused so)
builtins() { (cd / && "$1" --fs ext4 --workload @no-such 2>&1; echo "exit $?"); }
if check explore/make-install-prefix "$out/explore-install-prefix.log" \
	make -C "$clone" PREFIX="$prefix" install-explore; then
	want=$(builtins "$clone/explore/sbd-explore")
	got=$(builtins "$prefix/sbin/sbd-explore")
	if [[ $want == *"built-ins are @"*"exit 2" ]] && [ "$got" = "$want" ]; then
		ok explore/installed-finds-workloads
	else
		bad explore/installed-finds-workloads "the tree's: $want" "installed:  $got"
	fi
	make -C "$clone" PREFIX="$prefix" uninstall-explore >/dev/null 2>&1 || true
fi

# Boot the module DKMS built: the smoke test (insmod), then the
# packaging area (modprobe by name, with examples/ installed in /etc).
for tier in $PKG_KERNELS; do
	[ -f "$out/dkms/build/$tier/sbd.ko" ] || continue
	name=$tier-dkms
	img=$out/initramfs-$tier.img
	# examples/ installed in the image's /etc, through make-initramfs.sh's
	# extra-files hook.
	etc=$out/etc-$tier
	mkdir -p "$etc/etc/modprobe.d" "$etc/etc/modules-load.d"
	cp "$SBD_ROOT/examples/sbd.conf" "$etc/etc/modprobe.d/sbd.conf"
	cp "$SBD_ROOT/examples/sbd-modules-load.conf" "$etc/etc/modules-load.d/sbd.conf"
	if ! SBD_OUT=$out/dkms SBD_INITRAMFS_EXTRA=$etc \
		"$SBD_ROOT/scripts/make-initramfs.sh" "$tier" "$img" \
		vm-run-areas.sh 00-smoke.sh vm-packaging.sh >"$out/initramfs-$tier.log" 2>&1; then
		bad "$name/initramfs" "$(tail -n 20 "$out/initramfs-$tier.log")"; continue
	fi
	log "$name: booting; console in $out/console-$tier.log"
	"$SBD_ROOT/scripts/boot-vm.sh" "$tier" "$img" "$out/console-$tier.log" ||
		bad "$name/vm-finished"
	seen=0
	while IFS= read -r line; do
		line=${line%$'\r'}
		case $line in
		"@@ ok "*)   seen=1; ok "$name/${line#@@ ok }" ;;
		"@@ FAIL "*) seen=1; bad "$name/${line#@@ FAIL }" ;;
		"@@ skip "*) seen=1; echo "skip $name/${line#@@ skip }" ;;
		"@@ | "*)    echo "    ${line#@@ | }" ;;
		esac
	done < <(grep -a '^@@ ' "$out/console-$tier.log")
	[ $seen = 1 ] || bad "$name/results" "no result lines on the console"
done
exit $failed
