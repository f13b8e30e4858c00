# SPDX-License-Identifier: GPL-2.0
# The debug tier: the whole suite plus tests/debug/ (kmemleak, init
# under injected faults, CPU hotplug under I/O) on the KASAN, kmemleak
# and lockdep kernel that scripts/build-debug-kernel.sh builds.
# Sourced, not run: by run-debug-tests.sh, and by run-tests.sh, whose
# run_tier, ok/bad and counters run_debug_tier uses.
#
#   DEBUG_TESTS="faults.sh ..."  which tests/debug/ areas (default: all)
#   DEBUG_VM_TIMEOUT=7200        seconds for the debug VM (KASAN under
#                                TCG is several times slower)
#   DEBUG_AREA_TIMEOUT=3600      seconds per area inside the VM

# The part of the tier that scripts/run-tests.sh (and so CI) runs when
# the debug kernel is built: the boot check and kmemleak baseline, the
# smoke area, kmemleak after it, and the fault-injection loop over
# sbd's whole load and unwind path.  The whole tier
# (scripts/run-debug-tests.sh) takes about half an hour more.
DEBUG_CI_TESTS="debug/kmemleak-baseline.sh 00-smoke.sh debug/kmemleak.sh debug/faults.sh"
# Seconds the bounded part needs at least; with less left of
# SBD_TIME_BUDGET it is skipped, loudly, rather than run out of time.
DEBUG_CI_MIN=${DEBUG_CI_MIN:-960}

# The in-VM area list: a kmemleak baseline first, the normal areas
# (TESTS, default all of tests/NN-*.sh), then the debug-only areas.
debug_tier_tests() {
	local t list="debug/kmemleak-baseline.sh"
	if [ -n "${TESTS:-}" ]; then
		list="$list $TESTS"
	else
		list="$list $(cd "$SBD_ROOT/tests" && echo [0-9][0-9]-*.sh)"
	fi
	for t in ${DEBUG_TESTS:-kmemleak.sh faults.sh hotplug.sh}; do
		list="$list debug/${t#debug/}"
	done
	# shellcheck disable=SC2086 # one line of words, for TESTS=
	echo $list
}

# Environment for boot-vm.sh.  Unknown "NAME=value" kernel parameters
# reach /init's environment, so AREA_TIMEOUT gets to vm-run-areas.sh.
# Under TCG a busy host can hold a vCPU for long: RCU stall reports
# there would be the host's, not sbd's.
# no5lvl: with 5-level paging (QEMU's -cpu max has LA57), 6.12.118's
# pgtable_l5_enabled() reads the LA57 CPU flag, which identify_cpu()
# clears and sets again at boot; an interrupt in that window made KASAN
# see a direct-map address as wild ("BUG: KASAN: wild-memory-access in
# do_raw_spin_lock" from handle_edge_irq during identify_cpu, seen
# here), and a KASAN report switches lockdep off for the whole run.
# 8 GiB, not 6: KASAN keeps an eighth of RAM as shadow from boot, and
# shadow for every vmalloc area on top; with 6 GiB, 01-params' 4 GiB
# disk left so little that the OOM killer ran (KASAN allocates the
# shadow of sbd's store without its __GFP_RETRY_MAYFAIL) and the guest
# panicked, "System is deadlocked on memory".
debug_tier_env() {
	export VM_MEM=${VM_MEM:-8192}
	export VM_TIMEOUT=${DEBUG_VM_TIMEOUT:-7200}
	export VM_CPUS=${VM_CPUS:-2}
	export VM_APPEND="console=ttyS0 quiet loglevel=1 panic=-1 oops=panic no5lvl rcupdate.rcu_cpu_stall_timeout=300 AREA_TIMEOUT=${DEBUG_AREA_TIMEOUT:-3600}"
}

debug_tier_notice() {
	cat <<NOTICE

#####################################################################
##  DEBUG TIER NOT RUN: no debug kernel is built on this machine.
##
##  The debug tier runs the whole suite plus kmemleak, fault-injection
##  and CPU-hotplug areas on a KASAN + kmemleak + lockdep kernel.  Its
##  kernel is built once from Debian's linux-source-6.12 and cached in
##  $(kernel_dir debug)
##  (cold build: 26 CPU-minutes, 15-50 minutes on 2 cores depending
##  on what else runs: more than CI's time allows next to the suite).
##  Build it, then run the tier:
##
##      sudo scripts/build-debug-kernel.sh
##      sudo scripts/run-debug-tests.sh
##
##  After that, this command runs the debug tier too.
#####################################################################

NOTICE
}

# run_debug_tier: run the bounded part of the tier (DEBUG_CI_TESTS) if
# its kernel is built, else say so loudly and count it as skipped.
run_debug_tier() {
	if ! "$SBD_ROOT/scripts/build-debug-kernel.sh" --cached; then
		debug_tier_notice
		skipped=$((skipped + 1))
		echo "skip debug/not-built: debug kernel missing, run scripts/build-debug-kernel.sh"
		return
	fi
	# Within run-tests.sh the tier runs last, and CI's whole run must
	# stay within SBD_TIME_BUDGET (default 42 minutes, for CI's 45): its
	# VM gets what is left, less a minute to count the results; the fault
	# loop is told its deadline, so that it ends with its counts, not a
	# timeout.
	local budget=${SBD_TIME_BUDGET:-2520}
	# shellcheck disable=SC2154 # start: set by run-tests.sh, which sources this
	local left=$(( budget - ($(date +%s) - start) ))
	if [ $left -lt "$DEBUG_CI_MIN" ]; then
		skipped=$((skipped + 1))
		echo "skip debug/time-budget: ${left}s left of SBD_TIME_BUDGET=$budget, the bounded debug tier needs ${DEBUG_CI_MIN}s; run scripts/run-debug-tests.sh"
		return
	fi
	(
		debug_tier_env
		VM_TIMEOUT=$((left - 60))
		# Boot and the areas before the loop take about 4 minutes,
		# and after it a kmemleak scan of the failed loads and the cut
		# under faults up to 5 (seen: over 2 after 149 faults, when a
		# 480 s minimum let the VM's timeout end the tier there).
		VM_APPEND="$VM_APPEND FAULT_DEADLINE=$((left - 60 - 300 - 300))"
		TESTS=$DEBUG_CI_TESTS run_tier debug
		echo "$passed $failed $skipped" > "$SBD_OUT/debug/.counts"
	)
	read -r passed failed skipped < "$SBD_OUT/debug/.counts"
}
