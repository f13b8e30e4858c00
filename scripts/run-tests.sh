#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run-tests.sh: the whole test suite, on every supported kernel.
#
#   KERNELS="6.1 6.12 7.2"   which kernels (default: all three)
#   TESTS="00-smoke.sh ..."  which tests/ areas (default: all)
#   STAGES="lint packaging"  host-side stages (default: both; "" for none):
#                            scripts/lint.sh, scripts/test-packaging.sh
#   SBD_TIME_BUDGET=2520     seconds the whole run may take; the debug
#                            tier, last, gets what is left (debug-tier.sh)
#   QUICK=1                  only the areas marked "# QUICK=1" in their
#                            header, on 6.12 (or KERNELS), no host stages
#                            and no debug tier: a few minutes, for iterating
#
# For each kernel: fetch it, build sbd with W=1 (a warning is a failure),
# pack an initramfs, boot it and count the guest's result lines.  A
# kernel whose fetch, build or boot fails counts as a failure, never as
# a skip.  Ends with "N passed, N failed[, N skipped]".
. "$(dirname "$0")/lib.sh"
need_root
"$SBD_ROOT/scripts/install-deps.sh"

if [ "${QUICK:-0}" = 1 ]; then
	KERNELS=${KERNELS:-6.12}
	STAGES=${STAGES-}
	[ -n "${TESTS:-}" ] ||
		TESTS=$(cd "$SBD_ROOT/tests" && grep -l '^# QUICK=1' [0-9][0-9]-*.sh | tr '\n' ' ')
	export KERNELS STAGES TESTS
fi

passed=0 failed=0 skipped=0
ok()   { passed=$((passed + 1)); echo "ok $1"; }
bad()  { failed=$((failed + 1)); echo "FAIL $1"; }

# run_stage NAME CMD...: CMD prints "ok X" / "FAIL X" / "skip X" lines
# (evidence indented), counted here as NAME/X.
run_stage() {
	local stage=$1 line failures=0; shift
	while IFS= read -r line; do
		case $line in
		"ok "*)   ok "$stage/${line#ok }" ;;
		"FAIL "*) failures=1; bad "$stage/${line#FAIL }" ;;
		"skip "*) skipped=$((skipped + 1)); echo "skip $stage/${line#skip }" ;;
		"@@ stage-exit 0") ;;
		"@@ stage-exit "*) [ $failures = 1 ] || bad "$stage/finished" ;;
		*)        echo "$line" ;;
		esac
	done < <("$@"; echo "@@ stage-exit $?")
}

run_tier() {
	local tier=$1 name out=$SBD_OUT/$1
	mkdir -p "$out"
	name=$tier
	if ! "$SBD_ROOT/scripts/fetch-kernel.sh" "$tier" >"$out/fetch.log" 2>&1; then
		bad "$name/fetch-kernel"; tail -n 20 "$out/fetch.log"; return
	fi
	[ "$tier" = newest ] && name="newest($(cat "$(kernel_dir newest)/release"))"
	if "$SBD_ROOT/scripts/build-module.sh" "$tier" W=1 >"$out/build.log" 2>&1 &&
	   ! grep -E 'warning:|error:' "$out/build.log"; then
		ok "$name/build-W=1"
	else
		bad "$name/build-W=1"; tail -n 30 "$out/build.log"; return
	fi
	if ! "$SBD_ROOT/scripts/make-initramfs.sh" "$tier" "$out/initramfs.img" \
		vm-run-areas.sh ${TESTS:+$TESTS} >"$out/initramfs.log" 2>&1; then
		bad "$name/initramfs"; tail -n 20 "$out/initramfs.log"; return
	fi
	log "$name: booting; console in $out/console.log"
	"$SBD_ROOT/scripts/boot-vm.sh" "$tier" "$out/initramfs.img" \
		"$out/console.log" || bad "$name/vm-finished"
	# Count the guest's verdicts and show the evidence of each failure.
	local line
	while IFS= read -r line; do
		line=${line%$'\r'}
		case $line in
		"@@ ok "*)   ok "$name/${line#@@ ok }" ;;
		"@@ FAIL "*) bad "$name/${line#@@ FAIL }" ;;
		"@@ skip "*) skipped=$((skipped + 1)); echo "skip $name/${line#@@ skip }" ;;
		"@@ | "*)    echo "    ${line#@@ | }" ;;
		esac
	done < <(grep -a '^@@ ' "$out/console.log")
}

start=$(date +%s)
for stage in ${STAGES-lint packaging}; do
	case $stage in
	lint)      run_stage lint "$SBD_ROOT/scripts/lint.sh" ;;
	packaging) run_stage packaging "$SBD_ROOT/scripts/test-packaging.sh" ;;
	*)         bad "$stage"; echo "    unknown stage (STAGES=\"lint packaging\")" ;;
	esac
done
for tier in $(kernel_tiers); do
	run_tier "$tier"
done
# The debug tier (KASAN, kmemleak, lockdep, fault injection) joins the
# default run when its kernel is built, and says loudly when it is not.
if [ -z "${KERNELS:-}" ]; then
	. "$SBD_ROOT/scripts/debug-tier.sh"
	run_debug_tier
fi
log "took $(( $(date +%s) - start ))s"
summary="$passed passed, $failed failed"
[ "$skipped" = 0 ] || summary="$summary, $skipped skipped"
echo "$summary"
[ "$failed" = 0 ]
