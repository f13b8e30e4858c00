#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run-tests.sh: the whole test suite, on every supported kernel.
#
#   KERNELS="6.1 6.12 7.2"   which kernels (default: all three)
#   TESTS="00-smoke.sh ..."  which tests/ areas (default: all)
#   STAGES="lint packaging"  host-side stages (default: both; "" for none):
#                            scripts/lint.sh, scripts/test-packaging.sh
#   SBD_VMS=2                kernels whose VMs run at once (default: 2
#                            on fewer than 4 cores, else 3)
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

# prepare_tier TIER: fetch TIER's kernel, build sbd with W=1 and pack
# the initramfs; sets TIER_NAME.  Fails (counted) if a step does.
prepare_tier() {
	local tier=$1 out=$SBD_OUT/$1
	mkdir -p "$out"
	TIER_NAME=$tier
	if ! "$SBD_ROOT/scripts/fetch-kernel.sh" "$tier" >"$out/fetch.log" 2>&1; then
		bad "$TIER_NAME/fetch-kernel"; tail -n 20 "$out/fetch.log"; return 1
	fi
	[ "$tier" = newest ] && TIER_NAME="newest($(cat "$(kernel_dir newest)/release"))"
	if "$SBD_ROOT/scripts/build-module.sh" "$tier" W=1 >"$out/build.log" 2>&1 &&
	   ! grep -E 'warning:|error:' "$out/build.log"; then
		ok "$TIER_NAME/build-W=1"
	else
		bad "$TIER_NAME/build-W=1"; tail -n 30 "$out/build.log"; return 1
	fi
	if ! "$SBD_ROOT/scripts/make-initramfs.sh" "$tier" "$out/initramfs.img" \
		vm-run-areas.sh ${TESTS:+$TESTS} >"$out/initramfs.log" 2>&1; then
		bad "$TIER_NAME/initramfs"; tail -n 20 "$out/initramfs.log"; return 1
	fi
}

# boot_tier TIER: boot the prepared TIER; its status goes to
# $SBD_OUT/TIER/vm.rc, for count_tier.
boot_tier() {
	local out=$SBD_OUT/$1 rc=0
	rm -f "$out/vm.rc"
	"$SBD_ROOT/scripts/boot-vm.sh" "$1" "$out/initramfs.img" \
		"$out/console.log" || rc=$?
	echo $rc > "$out/vm.rc"
}

# count_tier TIER NAME: count the guest's verdicts and show the evidence
# of each failure.
count_tier() {
	local out=$SBD_OUT/$1 name=$2 line
	[ "$(cat "$out/vm.rc" 2>/dev/null)" = 0 ] || bad "$name/vm-finished"
	while IFS= read -r line; do
		line=${line%$'\r'}
		case $line in
		"@@ ok "*)   ok "$name/${line#@@ ok }" ;;
		"@@ FAIL "*) bad "$name/${line#@@ FAIL }" ;;
		"@@ skip "*) skipped=$((skipped + 1)); echo "skip $name/${line#@@ skip }" ;;
		"@@ | "*)    echo "    ${line#@@ | }" ;;
		esac
	done < <(grep -a '^@@ ' "$out/console.log" 2>/dev/null)
}

# run_tier TIER: one kernel, alone (the debug tier).
run_tier() {
	prepare_tier "$1" || return
	log "$TIER_NAME: booting; console in $SBD_OUT/$1/console.log"
	boot_tier "$1"
	count_tier "$1" "$TIER_NAME"
}

start=$(date +%s)
for stage in ${STAGES-lint packaging}; do
	case $stage in
	lint)      run_stage lint "$SBD_ROOT/scripts/lint.sh" ;;
	packaging) run_stage packaging "$SBD_ROOT/scripts/test-packaging.sh" ;;
	*)         bad "$stage"; echo "    unknown stage (STAGES=\"lint packaging\")" ;;
	esac
done
# The kernels' VMs run SBD_VMS at a time: a guest's tests keep about
# one of its vCPUs busy, so two guests fill two cores.  Each is
# prepared while the one before runs; the verdicts are counted in the
# kernels' order once all have ended.
SBD_VMS=${SBD_VMS:-$(( $(nproc) < 4 ? 2 : 3 ))}
# Two guests share the cores: each may take up to twice its time alone.
[ "$SBD_VMS" = 1 ] || export VM_TIMEOUT=${VM_TIMEOUT:-3600}
booted=""
for tier in $(kernel_tiers); do
	prepare_tier "$tier" || continue
	while [ "$(jobs -rp | wc -l)" -ge "$SBD_VMS" ]; do
		wait -n || :
	done
	log "$TIER_NAME: booting; console in $SBD_OUT/$tier/console.log"
	boot_tier "$tier" &
	booted="$booted $tier:$TIER_NAME"
done
wait
for t in $booted; do
	count_tier "${t%%:*}" "${t#*:}"
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
