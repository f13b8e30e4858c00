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
	echo $list
}

# Environment for boot-vm.sh.  Unknown "NAME=value" kernel parameters
# reach /init's environment, so AREA_TIMEOUT gets to run-in-vm.sh.
# Under TCG a busy host can hold a vCPU for long: RCU stall reports
# there would be the host's, not sbd's.
# no5lvl: with 5-level paging (QEMU's -cpu max has LA57), 6.12.118's
# pgtable_l5_enabled() reads the LA57 CPU flag, which identify_cpu()
# clears and sets again at boot; an interrupt in that window made KASAN
# see a direct-map address as wild ("BUG: KASAN: wild-memory-access in
# do_raw_spin_lock" from handle_edge_irq during identify_cpu, seen
# here), and a KASAN report switches lockdep off for the whole run.
debug_tier_env() {
	export VM_TIMEOUT=${DEBUG_VM_TIMEOUT:-7200}
	export VM_CPUS=${VM_CPUS:-2}
	export VM_APPEND="console=ttyS0 quiet loglevel=1 panic=-1 oops=panic no5lvl rcupdate.rcu_cpu_stall_timeout=300 AREA_TIMEOUT=${DEBUG_AREA_TIMEOUT:-3600}"
}

debug_tier_notice() {
	local mins=""
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

# run_debug_tier: run the tier if its kernel is built, else say so
# loudly and count it as skipped.
run_debug_tier() {
	if ! "$SBD_ROOT/scripts/build-debug-kernel.sh" --cached; then
		debug_tier_notice
		skipped=$((skipped + 1))
		echo "skip debug/not-built: debug kernel missing, run scripts/build-debug-kernel.sh"
		return
	fi
	# Within run-tests.sh the tier runs last, and CI gives the whole run
	# 90 minutes: its VM gets what is left of SBD_TIME_BUDGET seconds
	# (default 85 minutes from the start), so a slow machine ends in a
	# timeout with its results so far, not in a killed CI job.
	local budget=${SBD_TIME_BUDGET:-5100}
	local left=$(( budget - ($(date +%s) - start) ))
	if [ $left -lt 1200 ]; then
		bad "debug/time-budget"
		echo "    ${left}s left of SBD_TIME_BUDGET=$budget: the debug tier needs 20 minutes or more;"
		echo "    run it on its own: scripts/run-debug-tests.sh"
		return
	fi
	(
		debug_tier_env
		[ "$VM_TIMEOUT" -le $left ] || VM_TIMEOUT=$left
		TESTS=$(debug_tier_tests) run_tier debug
		echo "$passed $failed $skipped" > "$SBD_OUT/debug/.counts"
	)
	read -r passed failed skipped < "$SBD_OUT/debug/.counts"
}
