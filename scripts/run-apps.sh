#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run-apps.sh: real applications on sbd, in a full Debian root.
#
#   KERNELS="6.1 7.2"      which kernels (default: 6.1 and newest)
#   TESTS="00-smoke.sh"    which tests/apps/ scripts (default: all)
#   QUICK=1                only the scripts marked "# QUICK=1"
#   VM_TIMEOUT=1800        seconds a guest may take (boot-vm.sh)
#   CORPUS=all             10-corpus.sh runs every case of explore/cases on
#                          ext4 and xfs (the corpus soak: hours under
#                          emulation), not the quick subset on ext4
#   CORPUS_CASES=A,B       10-corpus.sh runs only these cases (QUICK or
#                          not), with the quick run's states, on ext4;
#                          with CORPUS=all, with the soak's states, on
#                          ext4 and xfs (a soak's share)
#   CORPUS_JOBS=1          10-corpus.sh explores on one disk, not two
#                          (the pace of sbd-explore -j 1)
#
# What the guest saves (each failing corpus case's reproducers, log and
# recording) is in $SBD_OUT/apps/TIER/saved/.
#
# The root is make-rootfs.sh's (built once, cached); for each kernel,
# build sbd, pack make-apps-initramfs.sh's small image and boot it with
# the root and the kernel's modules shared read-only over 9p.  The
# scripts run in the guest as the suite's areas do (vm-run-areas.sh),
# and their lines are counted the same way: "ok NAME" / "FAIL NAME" /
# "skip NAME", then "N passed, N failed[, N skipped]"; exits non-zero
# if anything failed.  A kernel whose fetch, build or boot fails counts
# as a failure.
. "$(dirname "$0")/lib.sh"
need_root
"$SBD_ROOT/scripts/install-deps.sh"
KERNELS=${KERNELS:-6.1 newest}
if [ -z "${TESTS:-}" ] && [ "${QUICK:-0}" = 1 ]; then
	TESTS=$(cd "$SBD_ROOT/tests/apps" && grep -l '^# QUICK=1' [0-9][0-9]-*.sh | tr '\n' ' ')
fi

# The guest reads these from the kernel command line (its environment).
# A soak or a server's case (PostgreSQL, etcd, ZooKeeper) can take hours
# or minutes.
corpus=""
[ "${CORPUS:-quick}" != all ] || corpus="SBD_CORPUS_ALL=1"
[ -z "${CORPUS_CASES:-}" ] || corpus="$corpus SBD_CORPUS_CASES=$CORPUS_CASES"
[ -z "${CORPUS_JOBS:-}" ] || corpus="$corpus SBD_CORPUS_JOBS=$CORPUS_JOBS"
# (scripts/bench-jobs.sh's CASE=: tests/apps/bench-jobs.sh)
[ -z "${BENCH_CASE:-}" ] || corpus="$corpus SBD_BENCH_CASE=$BENCH_CASE SBD_BENCH_ROUNDS=${BENCH_ROUNDS:-2} SBD_BENCH_LOCAL=${BENCH_LOCAL:-0}"
if [ -n "$corpus" ]; then
	export VM_APPEND="console=ttyS0 quiet loglevel=1 panic=-1 oops=panic $corpus AREA_TIMEOUT=36000"
	export VM_TIMEOUT=${VM_TIMEOUT:-36000}
fi

passed=0 failed=0 skipped=0
ok()   { passed=$((passed + 1)); echo "ok $1"; }
bad()  { failed=$((failed + 1)); echo "FAIL $1"; }

start=$(date +%s)
rootfs=$("$SBD_ROOT/scripts/make-rootfs.sh") || die "cannot build the root (make-rootfs.sh)"

run_tier() {
	local tier=$1 name out=$SBD_OUT/apps/$1 t0
	t0=$(date +%s)
	mkdir -p "$out"
	name=$tier
	if ! "$SBD_ROOT/scripts/fetch-kernel.sh" "$tier" >"$out/fetch.log" 2>&1; then
		bad "$name/fetch-kernel"; tail -n 20 "$out/fetch.log"; return
	fi
	[ "$tier" = newest ] && name="newest($(cat "$(kernel_dir newest)/release"))"
	if ! "$SBD_ROOT/scripts/build-module.sh" "$tier" >"$out/build.log" 2>&1; then
		bad "$name/build"; tail -n 30 "$out/build.log"; return
	fi
	# shellcheck disable=SC2086 # TESTS: a list of names
	if ! "$SBD_ROOT/scripts/make-apps-initramfs.sh" "$tier" "$out/initramfs.img" \
		${TESTS:-} >"$out/initramfs.log" 2>&1; then
		bad "$name/initramfs"; tail -n 20 "$out/initramfs.log"; return
	fi
	log "$name: booting the full root; console in $out/console.log"
	local share=security_model=none,readonly=on
	# A third share, writable: what the guest saves for a bug report
	# (10-corpus.sh: each failing case's reproducers and recording).
	rm -rf "$out/saved" && mkdir -p "$out/saved"
	VM_QEMU_EXTRA="-virtfs local,path=$rootfs,mount_tag=root,$share -virtfs local,path=$(kernel_dir "$tier")/modules,mount_tag=modules,$share -virtfs local,path=$out/saved,mount_tag=saved,security_model=none" \
		"$SBD_ROOT/scripts/boot-vm.sh" "$tier" "$out/initramfs.img" \
		"$out/console.log" || bad "$name/vm-finished"
	count_console "$out/console.log" "$name"
	log "$name: $(( $(date +%s) - t0 ))s in all"
}

for tier in $(kernel_tiers); do
	run_tier "$tier"
done
log "took $(( $(date +%s) - start ))s"
summary="$passed passed, $failed failed"
[ "$skipped" = 0 ] || summary="$summary, $skipped skipped"
echo "$summary"
[ "$failed" = 0 ]
