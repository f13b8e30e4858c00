#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench-jobs.sh: crash states checked per minute by sbd-explore with one
# job against N jobs on N disks (--jobs), on the same kept recording, in
# one VM boot of VM_CPUS vCPUs, in wall-clock time.  (QEMU's -icount runs
# every vCPU in one host thread: it cannot show jobs running at once.)
#
#   KERNELS=6.12   which kernel
#   JOBS=2         the jobs to compare with one (at most VM_CPUS)
#   ROUNDS=2       each way this many times, alternating
#   OPS=12         the @db-nodirsync workload's size
#   CASE=NAME      an application case of the corpus instead, in the
#                  full Debian root (run-apps.sh, tests/apps/bench-jobs.sh):
#                  its states after "init", 12 points, one random and one
#                  torn seed, on ext4; two jobs, ROUNDS rounds;
#                  LOCAL=1: the root's programs in the guest's memory
#                  first, not read over 9p (tests/apps/bench-jobs.sh)
#
# Measure on an idle host: every vCPU is a host thread, and the jobs
# can only go as fast as the host's free cores let them.
# bench/results-explore/jobs-TIER.txt keeps the summary.
. "$(dirname "$0")/lib.sh"
need_root
export KERNELS=${KERNELS:-6.12}
res=$SBD_ROOT/bench/results-explore
mkdir -p "$res"
if [ -n "${CASE:-}" ]; then
	out=$SBD_OUT/bench-jobs-case
	mkdir -p "$out"
	BENCH_CASE=$CASE BENCH_ROUNDS=${ROUNDS:-2} BENCH_LOCAL=${LOCAL:-0} TESTS=bench-jobs.sh SBD_OUT=$out \
		"$SBD_ROOT/scripts/run-apps.sh" | tee "$out/run.log"
	rc=${PIPESTATUS[0]}
	for tier in $(kernel_tiers); do
		{
			echo "sbd-explore --jobs, application case $CASE, $tier, ${VM_CPUS:-2} vCPUs, commit $(git -C "$SBD_ROOT" rev-parse --short HEAD), command: KERNELS=$KERNELS CASE=$CASE ROUNDS=${ROUNDS:-2} LOCAL=${LOCAL:-0} scripts/bench-jobs.sh"
			grep -a '^@@ bench' "$out/apps/$tier/console.log" | sed 's/\r$//; s/^@@ bench //'
		} | tee "$res/jobs-$CASE-$tier$([ "${LOCAL:-0}" = 0 ] || echo -local).txt"
	done
	exit "$rc"
fi
"$SBD_ROOT/scripts/install-deps.sh"
for tier in $(kernel_tiers); do
	out=$SBD_OUT/bench-jobs/$tier
	vm_image "$tier" "$out" vm-bench-jobs.sh "${JOBS:-2}" "${ROUNDS:-2}" "${OPS:-12}"
	log "$tier: booting (${VM_CPUS:-2} vCPUs)"
	"$SBD_ROOT/scripts/boot-vm.sh" "$tier" "$out/initramfs.img" "$out/console.log" ||
		log "$tier: the VM did not finish"
	{
		echo "sbd-explore --jobs, $tier, ${VM_CPUS:-2} vCPUs, commit $(git -C "$SBD_ROOT" rev-parse --short HEAD), command: KERNELS=$KERNELS JOBS=${JOBS:-2} ROUNDS=${ROUNDS:-2} OPS=${OPS:-12} scripts/bench-jobs.sh"
		grep -a '^@@ bench' "$out/console.log" | sed 's/\r$//; s/^@@ bench //'
	} | tee "$res/jobs-$tier.txt"
done
