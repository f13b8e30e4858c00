#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lint.sh: sbd's lint gate.  Prints one "ok NAME" / "FAIL NAME" line per
# check (evidence indented below a failure) and exits non-zero if any
# check failed.  Run by "make lint" and as a stage of run-tests.sh.
#
#   checkpatch        checkpatch.pl --strict on every *.[ch] of the driver
#   ShellCheck        every shell script: scripts/ as bash, tests/ as sh
#                     (dash runs them in the VM); see .shellcheckrc
#   TIER/sparse-W=1   "make C=2 W=1" against TIER's headers: sparse on
#                     every file plus the W=1 warnings, no output allowed
#   callgraph         no two source files call into each other, read from
#                     the objects of those builds (scripts/callgraph.sh)
#   TIER/32-bit-refused
#                     a build for a kernel without CONFIG_64BIT (set empty
#                     on make's command line, which overrides the kernel's
#                     auto.conf) stops with Kbuild's reason
#
#   KERNELS="6.1 6.12 7.2"   which kernels' headers (default: all three)
#
# checkpatch.pl comes from Debian's linux-source package (the kernel
# source tarball); the script and the two data files it reads are
# unpacked once into $SBD_CACHE/checkpatch and the package is dropped.
. "$(dirname "$0")/lib.sh"
need_root

# The kernel series whose checkpatch we use: the newest in bookworm.
CHECKPATCH_SERIES=${CHECKPATCH_SERIES:-6.12}
CP_DIR=$SBD_CACHE/checkpatch
failed=0
ok()  { echo "ok $1"; }
bad() { failed=1; echo "FAIL $1"; shift; printf '%s\n' "$@" | sed 's/^/    /'; }

fetch_checkpatch() {
	local pkg=linux-source-$CHECKPATCH_SERIES tmp tarball
	[ -x "$CP_DIR/checkpatch.pl" ] && [ -f "$CP_DIR/spelling.txt" ] &&
		[ -f "$CP_DIR/const_structs.checkpatch" ] &&
		grep -q "^$pkg " "$CP_DIR/source" 2>/dev/null && return 0
	log "lint: fetching checkpatch.pl from $pkg (once, cached in $CP_DIR)"
	mkdir -p "$CP_DIR"
	tmp=$(mktemp -d "$CP_DIR/fetch.XXXX")
	# Parallel runs share the cache: one download at a time.
	(
		flock 9
		grep -q "^$pkg " "$CP_DIR/source" 2>/dev/null && exit 0
		cd "$tmp" || exit 1
		apt_get download -q -o APT::Sandbox::User=root "$pkg" >/dev/null ||
			{ apt_get update -q >/dev/null &&
			  apt_get download -q -o APT::Sandbox::User=root "$pkg" >/dev/null; } ||
			exit 1
		dpkg -x ./"$pkg"_*.deb pkg
		tarball=$(ls pkg/usr/src/linux-source-*.tar.*)
		dir=$(basename "$tarball"); dir=${dir%.tar.*}
		tar -xf "$tarball" -C . "$dir/scripts/checkpatch.pl" \
			"$dir/scripts/spelling.txt" \
			"$dir/scripts/const_structs.checkpatch"
		cp "$dir"/scripts/{spelling.txt,const_structs.checkpatch} "$CP_DIR/"
		cp "$dir/scripts/checkpatch.pl" "$CP_DIR/checkpatch.pl.new"
		echo "$pkg $(dpkg-deb -f ./"$pkg"_*.deb Version)" > "$CP_DIR/source"
		mv "$CP_DIR/checkpatch.pl.new" "$CP_DIR/checkpatch.pl"
	) 9>"$SBD_CACHE/.checkpatch.lock"
	local rc=$?
	rm -rf "$tmp"
	return $rc
}

fetch_checkpatch

# Kbuild since 6.15 asks scripts/checker-valid.sh whether sparse is new
# enough and silently turns C=2 off when it is missing, which it is in
# Debian's headers packages.  Put back an equivalent (prints 1 when the
# checker handles __typeof_unqual__, as 7.x headers need) so that sparse
# really runs; a sparse that is too old then fails loudly in the build.
ensure_checker_valid() {
	local root=$1 kdir=$2 mk inc f=""
	# The build dir's Makefile includes the source tree's (Debian
	# splits headers into -amd64 and -common): look in both.
	mk=$(readlink -f "$root$kdir/Makefile")
	for inc in "$mk" $(sed -n 's/^include //p' "$mk"); do
		[ "$inc" = "$mk" ] || inc=$root$inc
		grep -q 'checker-valid.sh' "$inc" 2>/dev/null &&
			f=$(dirname "$inc")/scripts/checker-valid.sh
	done
	[ -n "$f" ] && [ ! -x "$f" ] || return 0
	cat > "$f" <<'CV'
#!/bin/sh
# Added by sbd's scripts/lint.sh: Debian's headers lack this kbuild helper.
# Prints 1 if the checker ($1, with its flags) parses __typeof_unqual__.
command -v "$1" >/dev/null 2>&1 || { echo 0; exit 0; }
t=$(mktemp --suffix=.c)
printf 'static int u(const int *q)\n{\n\t__typeof_unqual__(*q) v = *q;\n\treturn v;\n}\n' > "$t"
if "$@" "$t" 2>&1 | grep -q error; then echo 0; else echo 1; fi
rm -f "$t"
CV
	chmod +x "$f"
}

# Tools: sparse on the host, and in the sid chroot for the newest tier.
"$SBD_ROOT/scripts/install-deps.sh" sparse perl shellcheck >&2
out=$SBD_OUT/lint
mkdir -p "$out"

# checkpatch --strict on every source file; only sbd-compat.h gets
# exceptions.  It is the compatibility layer, and three types are ignored
# there, on purpose:
#   LINUX_VERSION_CODE   comparing kernel versions is its whole job:
#                        an out-of-tree module for three kernels cannot
#                        be written "for the version it is merged into".
#   CONSTANT_COMPARISON  "LINUX_VERSION_CODE < KERNEL_VERSION(x, y, z)"
#                        compares two constants; checkpatch mistakes the
#                        idiom for a "constant on the left" test.
#   NEW_TYPEDEFS         a type that is int before 6.15 and sector_t
#                        after is the case coding-style.rst (chapter 5,
#                        rule b) names as a good reason for a typedef.
CP_FLAGS=(--strict --no-tree --terse --show-types --color=never)
CP_H_IGNORE=LINUX_VERSION_CODE,CONSTANT_COMPARISON,NEW_TYPEDEFS
if ! fetch_checkpatch >"$out/checkpatch-fetch.log" 2>&1; then
	bad checkpatch "could not fetch checkpatch.pl:" "$(tail -n 5 "$out/checkpatch-fetch.log")"
else
	cp_out=$(cd "$SBD_ROOT" && for f in *.[ch]; do
		if [ "$f" = sbd-compat.h ]; then
			"$CP_DIR/checkpatch.pl" "${CP_FLAGS[@]}" --ignore "$CP_H_IGNORE" -f "$f"
		else
			"$CP_DIR/checkpatch.pl" "${CP_FLAGS[@]}" -f "$f"
		fi
	done 2>&1 | grep -v '^total: 0 errors, 0 warnings, 0 checks' || true)
	if [ -z "$cp_out" ]; then
		ok checkpatch
	else
		bad checkpatch "$cp_out"
	fi
fi

# ShellCheck: host scripts are bash, the VM's run under dash (sh).  Its
# settings, and the few warnings disabled for the whole tree with the
# reason for each, are in .shellcheckrc; single exceptions carry a
# directive comment where they are.
sc_out=$(cd "$SBD_ROOT" && {
	shellcheck -f gcc -s bash scripts/*.sh
	shellcheck -f gcc -s sh tests/*.sh tests/debug/*.sh tests/apps/*.sh explore/sbd-explore explore/sbd-corpus \
		explore/workloads/*.sh explore/cases/lib/*.sh explore/cases/*/workload explore/cases/*/check \
		examples/app-case/cases/*/workload examples/app-case/cases/*/check
	shellcheck -f gcc .ci/run
} 2>&1)
if [ -z "$sc_out" ]; then
	ok shellcheck
else
	bad shellcheck "$sc_out"
fi

# The tests never clear the kernel log (a report would be lost before
# its check): they write markers instead (tests/vm-lib.sh, dmesg_mark).
clears=$(cd "$SBD_ROOT" && grep -rnE 'dmesg +(-[a-zA-Z]*C|--clear|-c)' tests/ || true)
if [ -z "$clears" ]; then
	ok tests-keep-the-kernel-log
else
	bad tests-keep-the-kernel-log "$clears"
fi

# Every test area says in one line what it needs (blktests' requires()).
unstated=$(cd "$SBD_ROOT/tests" && for f in [0-9][0-9]-*.sh; do
	[ "$(grep -c '^# Requires: ' "$f")" = 1 ] || echo "$f"
done)
if [ -z "$unstated" ]; then
	ok areas-state-requirements
else
	bad areas-state-requirements "no single '# Requires:' line in:" "$unstated"
fi

# sparse (C=2: every file, not only rebuilt ones) and W=1 in one build
# per kernel.  Any diagnostic at all fails: warnings from sparse or W=1,
# or C=2 switched off because the checker is missing.  The objects of each
# build on the host (the newest kernel's stay in the chroot) then give
# the call graph between the source files, which must have no cycle.
cg_out="" cg_runs=0
for tier in $(kernel_tiers); do
	name=$tier
	if ! "$SBD_ROOT/scripts/fetch-kernel.sh" "$tier" >"$out/fetch-$tier.log" 2>&1; then
		bad "$name/sparse-W=1" "fetching the kernel failed:" "$(tail -n 10 "$out/fetch-$tier.log")"
		continue
	fi
	kdir=$(cat "$(kernel_dir "$tier")/kdir")
	root=""
	if [ "$tier" = newest ]; then
		name="newest($(cat "$(kernel_dir newest)/release"))"
		root=$SID_CHROOT
		in_sid_chroot sh -c 'dpkg -s sparse >/dev/null 2>&1 ||
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends sparse' >"$out/sparse-$tier.log" 2>&1 || true
	fi
	ensure_checker_valid "$root" "$kdir"
	blog=$out/build-$tier.log
	if SBD_OUT=$out "$SBD_ROOT/scripts/build-module.sh" "$tier" C=2 W=1 \
		>"$blog" 2>&1 && grep -q '^  CHECK ' "$blog" &&
	   ! grep -E 'warning|error|specified, but' "$blog" >/dev/null; then
		ok "$name/sparse-W=1"
	else
		grep -q '^  CHECK ' "$blog" || echo "(sparse did not run)" >>"$blog"
		bad "$name/sparse-W=1" "$(grep -E 'warning|error|specified, but|did not run' "$blog" | head -n 40)"
	fi
	if [ "$tier" != newest ] && [ -f "$out/build/$tier/sbd.mod" ]; then
		cg_runs=$((cg_runs + 1))
		"$SBD_ROOT/scripts/callgraph.sh" "$out/build/$tier" >"$out/callgraph-$tier.log" 2>&1 ||
			cg_out+="$name: $(cat "$out/callgraph-$tier.log")"$'\n'
	fi
	# A 32-bit kernel: Kbuild refuses, saying why, before compiling.
	blog=$out/build-$tier-32bit.log
	if SBD_OUT=$out/32bit "$SBD_ROOT/scripts/build-module.sh" "$tier" CONFIG_64BIT= \
		>"$blog" 2>&1; then
		bad "$name/32-bit-refused" "the build succeeded with CONFIG_64BIT="
	elif grep -q 'Kbuild:.*sbd needs a 64-bit kernel: each disk.s store is one vmalloc area' "$blog" &&
	     ! grep -q '^  CC ' "$blog"; then
		ok "$name/32-bit-refused"
	else
		bad "$name/32-bit-refused" "the build with CONFIG_64BIT= failed, but not with Kbuild's reason:" \
			"$(tail -n 10 "$blog")"
	fi
done
if [ "$cg_runs" = 0 ]; then
	bad callgraph "no build to read: KERNELS names no kernel built on the host (6.1, 6.12)"
elif [ -z "$cg_out" ]; then
	ok callgraph
else
	bad callgraph "$cg_out"
fi
exit $failed
