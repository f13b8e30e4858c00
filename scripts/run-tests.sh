#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run-tests.sh: the whole test suite, on every supported kernel.
#
#   KERNELS="6.1 6.12 7.2"   which kernels (default: all three)
#   TESTS="00-smoke.sh ..."  which tests/ areas (default: all)
#   STAGES="lint packaging"  host-side stages (default: both; "" for none):
#                            scripts/lint.sh, scripts/test-packaging.sh
#   SBD_VMS=2                VMs at once, each with its share of a
#                            kernel's areas (default: 2 on fewer than
#                            4 cores, else 3)
#   SBD_TIME_BUDGET=2520     seconds the whole run may take; the
#                            corpus's share (apps-tier.sh), then the
#                            debug tier (debug-tier.sh), get what is left
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

# prepare_tier TIER [PARTS]: fetch TIER's kernel, build sbd with W=1
# and pack an initramfs for each of PARTS (default 1) shares of the
# areas, into $SBD_OUT/TIER/ (one part) or $SBD_OUT/TIER/N/; sets
# TIER_NAME and TIER_PARTS (the directories).  Fails (counted) if a
# step does.
prepare_tier() {
	local tier=$1 parts=${2:-1} out=$SBD_OUT/$1 areas k i dir part
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
	if [ -n "${TESTS:-}" ]; then
		read -ra areas <<< "$TESTS"
	else
		suite_areas "$tier"
	fi
	[ "${#areas[@]}" -ge "$parts" ] || parts=${#areas[@]}
	split_areas "$tier" "$parts"
	TIER_PARTS=""
	for ((k = 0; k < parts; k++)); do
		dir=$out
		[ "$parts" = 1 ] || dir=$out/$((k + 1))
		part=""
		for ((i = 0; i < ${#areas[@]}; i++)); do
			[ "${area_part[i]}" != "$k" ] || part="$part ${areas[i]}"
		done
		mkdir -p "$dir"
		# shellcheck disable=SC2086 # $part: area names, split on purpose
		if ! "$SBD_ROOT/scripts/make-initramfs.sh" "$tier" "$dir/initramfs.img" \
			vm-run-areas.sh $part >"$dir/initramfs.log" 2>&1; then
			bad "$TIER_NAME/initramfs"; tail -n 20 "$dir/initramfs.log"; return 1
		fi
		TIER_PARTS="$TIER_PARTS $dir"
	done
}

# split_areas TIER PARTS: area_part[i], the VM (0 to PARTS - 1) that
# runs areas[i], so that the VMs end together: the costliest area first,
# each to the VM with the least work so far, by the seconds each took on
# TIER in a measured run (tests/area-seconds, "TIER AREA SECONDS" lines;
# an area it lacks counts 60).  Each VM runs its areas in the suite's
# order.
split_areas() {
	local tier=$1 parts=$2 t a sec i k best
	local -A cost=()
	local -a load=() order=()
	area_part=()
	while read -r t a sec; do
		[ "$t" != "$tier" ] || cost[$a]=$sec
	done < "$SBD_ROOT/tests/area-seconds"
	for ((k = 0; k < parts; k++)); do load[k]=0; done
	mapfile -t order < <(for ((i = 0; i < ${#areas[@]}; i++)); do
		a=$(basename "${areas[i]}" .sh)
		echo "${cost[${a#[0-9][0-9]-}]:-60} $i"
	done | sort -k1,1nr -k2,2n)
	for t in "${order[@]}"; do
		best=0
		for ((k = 1; k < parts; k++)); do
			[ "${load[k]}" -ge "${load[best]}" ] || best=$k
		done
		area_part[${t#* }]=$best
		load[best]=$((load[best] + ${t%% *}))
	done
}

# area_seconds: "TIER AREA SECONDS" for each area this run's VMs ran, in
# $SBD_OUT/area-seconds: tests/area-seconds is such a file.
area_seconds() {
	local t
	for t in $booted_dirs; do
		grep -a '^@@ time ' "${t#*:}/console.log" 2>/dev/null | tr -d '\r' |
			awk -v tier="${t%%:*}" '{ sub(/s$/, "", $4); print tier, $3, $4 }'
	done > "$SBD_OUT/area-seconds"
}

# suite_areas TIER: the whole suite's areas for TIER into areas[]: all
# of tests/, but an area whose header says "# Suite kernels: K..." only
# on those kernels (said, and counted as skipped, on the others).  The
# explorer's areas test user space: the oldest and newest kernels keep
# the whole run within CI's time; TESTS= runs an area on any kernel.
suite_areas() {
	local f only
	areas=()
	for f in "$SBD_ROOT"/tests/[0-9][0-9]-*.sh; do
		only=$(sed -n 's/^# Suite kernels: //p' "$f")
		if [ -n "$only" ] && [[ " $only " != *" $1 "* ]]; then
			skipped=$((skipped + 1))
			echo "skip $TIER_NAME/$(basename "$f" .sh | sed 's/^[0-9]*-//'): the whole suite runs it on $only (TESTS=$(basename "$f") runs it here)"
			continue
		fi
		areas+=("$(basename "$f")")
	done
}

# boot_tier TIER DIR: boot TIER's kernel with DIR's initramfs; its
# status goes to DIR/vm.rc, for count_tier.
boot_tier() {
	local rc=0
	rm -f "$2/vm.rc"
	"$SBD_ROOT/scripts/boot-vm.sh" "$1" "$2/initramfs.img" \
		"$2/console.log" || rc=$?
	echo $rc > "$2/vm.rc"
}

# count_tier DIR NAME: the VM's end and the guest's verdicts.
count_tier() {
	[ "$(cat "$1/vm.rc" 2>/dev/null)" = 0 ] || bad "$2/vm-finished"
	count_console "$1/console.log" "$2"
}

# run_tier TIER: one kernel, one VM, alone (the debug tier).
run_tier() {
	prepare_tier "$1" || return
	log "$TIER_NAME: booting; console in $SBD_OUT/$1/console.log"
	boot_tier "$1" "$SBD_OUT/$1"
	count_tier "$SBD_OUT/$1" "$TIER_NAME"
}

start=$(date +%s)
for stage in ${STAGES-lint packaging}; do
	case $stage in
	lint)      run_stage lint "$SBD_ROOT/scripts/lint.sh" ;;
	packaging) run_stage packaging "$SBD_ROOT/scripts/test-packaging.sh" ;;
	*)         bad "$stage"; echo "    unknown stage (STAGES=\"lint packaging\")" ;;
	esac
done
# Each kernel's areas are shared among SBD_VMS VMs, and SBD_VMS VMs run
# at a time: a guest's tests keep about one of its vCPUs busy, so two
# guests fill two cores, and no kernel's half runs alone for long.  Each
# kernel is prepared while the VMs before it run; the verdicts are
# counted in the kernels' order once all have ended.
SBD_VMS=${SBD_VMS:-$(( $(nproc) < 4 ? 2 : 3 ))}
# Guests share the cores: each may take up to twice its time alone.
[ "$SBD_VMS" = 1 ] || export VM_TIMEOUT=${VM_TIMEOUT:-3600}
booted="" booted_dirs=""
for tier in $(kernel_tiers); do
	# The debug tier's kmemleak areas scan what the areas before them
	# leaked, in the same boot: one VM.
	parts=$SBD_VMS
	[ "$tier" != debug ] || parts=1
	prepare_tier "$tier" "$parts" || continue
	for dir in $TIER_PARTS; do
		while [ "$(jobs -rp | wc -l)" -ge "$SBD_VMS" ]; do
			wait -n || :
		done
		log "$TIER_NAME: booting; console in $dir/console.log"
		boot_tier "$tier" "$dir" &
		booted="$booted $dir:$TIER_NAME"
		booted_dirs="$booted_dirs $tier:$dir"
	done
done
wait
for t in $booted; do
	count_tier "${t%%:*}" "${t#*:}"
done
area_seconds
# A few application cases in the full Debian root, and the debug tier
# (KASAN, kmemleak, lockdep, fault injection), join the default run
# when their root and kernel are built, and say so when they are not.
if [ -z "${KERNELS:-}" ]; then
	. "$SBD_ROOT/scripts/apps-tier.sh"
	run_apps_share
	. "$SBD_ROOT/scripts/debug-tier.sh"
	run_debug_tier
fi
log "took $(( $(date +%s) - start ))s"
summary="$passed passed, $failed failed"
[ "$skipped" = 0 ] || summary="$summary, $skipped skipped"
echo "$summary"
[ "$failed" = 0 ]
