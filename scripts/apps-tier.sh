# SPDX-License-Identifier: GPL-2.0
# The suite's share of the application corpus: a few cases of
# tests/apps/10-corpus.sh on 6.1 and the newest kernel, in the full
# Debian root (scripts/run-apps.sh).  Sourced by run-tests.sh, whose
# ok/bad, counters and start run_apps_share uses.
#
#   APPS_CI_CASES=A,B   the cases (default below: one caught, two pass)
#   APPS_CI_MIN=540     seconds of SBD_TIME_BUDGET it needs at least

# One case that must be caught (its reproducer failing again) and two
# that must pass, of three applications.  In a clean clone's suite, the
# two VMs at once, the share took 409 s in all (each kernel: the caught
# case 155-160 s, then 70 and 37-40 s, and the boot): at least 540 s
# left gives its VMs (what is left, less a minute) a third more than
# that, and with less it is skipped rather than cut short.
APPS_CI_CASES=${APPS_CI_CASES:-sqlite-wal-normal-durable,redis-aof-always,lmdb-sync}
APPS_CI_KERNELS="6.1 newest"
APPS_CI_MIN=${APPS_CI_MIN:-540}

# run_apps_share: run the share if the root is built and the budget
# allows, each kernel in its own VM at once; else say why, as a skip.
# Building the root (debootstrap, about 6 minutes) is left to
# run-apps.sh, as the debug kernel is left to its own script.
run_apps_share() {
	local k out log line left budget=${SBD_TIME_BUDGET:-2520}
	if ! "$SBD_ROOT/scripts/make-rootfs.sh" --cached > /dev/null; then
		skipped=$((skipped + 1))
		echo "skip apps/no-root: the Debian root is not built; scripts/run-apps.sh builds it (about 6 minutes) and runs the corpus"
		return
	fi
	# shellcheck disable=SC2154 # start: set by run-tests.sh
	left=$(( budget - ($(date +%s) - start) ))
	if [ $left -lt "$APPS_CI_MIN" ]; then
		skipped=$((skipped + 1))
		echo "skip apps/time-budget: ${left}s left of SBD_TIME_BUDGET=$budget, the corpus's share needs ${APPS_CI_MIN}s; run scripts/run-apps.sh"
		return
	fi
	out=$SBD_OUT/apps-share
	mkdir -p "$out"
	log "apps: $APPS_CI_CASES on $APPS_CI_KERNELS, ${left}s left; logs in $out"
	for k in $APPS_CI_KERNELS; do
		# Each VM may take what is left, less a minute to count.
		KERNELS=$k TESTS=10-corpus.sh CORPUS_CASES=$APPS_CI_CASES \
			VM_TIMEOUT=$((left - 60)) SBD_OUT=$out/$k \
			"$SBD_ROOT/scripts/run-apps.sh" > "$out/$k.log" 2>&1 &
	done
	wait
	for k in $APPS_CI_KERNELS; do
		log=$out/$k.log
		# run-apps.sh's own verdicts, evidence and end; a run that did
		# not reach its summary line is a failure whatever it printed.
		while IFS= read -r line; do
			case $line in
			"ok "*) ok "apps/${line#ok }" ;;
			"FAIL "*) bad "apps/${line#FAIL }" ;;
			"skip "*) skipped=$((skipped + 1)); echo "skip apps/${line#skip }" ;;
			"    "*) echo "$line" ;;
			esac
		done < "$log"
		grep -Eq '^[0-9]+ passed, [0-9]+ failed' "$log" ||
			{ bad "apps/$k/finished"; tail -n 5 "$log" | sed 's/^/    /'; }
	done
}
