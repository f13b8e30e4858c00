# SPDX-License-Identifier: GPL-2.0
# sbd-explore --jobs on an application case (CASE=... scripts/bench-jobs.sh):
# its states per minute with one job and with two, on the same kept
# recording, every state checked (--no-dedup) so that both ways check
# the same states, alternating; the times are sbd-explore's own (its
# --json "seconds": the exploration alone).  Both ways must give every
# state the same verdict.  SBD_BENCH_CASE: the case (default
# sqlite-wal-full); SBD_BENCH_ROUNDS: each way this many times (2).
# SBD_BENCH_LOCAL=1: first copy the root's programs and libraries into
# the guest's memory (the overlay's upper layer), so that no program's
# start asks the host's 9p server for its files: every such request is
# served by QEMU's main thread, which has no core of its own once both
# vCPUs are busy.

# Requires: sbd.ko, cache_mb; the case's applications; sbd-explore.

check load load_sbd ndevices=2 nsectors=1048576 cache_mb=64 || return
if [ "${SBD_BENCH_LOCAL:-0}" = 1 ]; then
	# touch -c on a file of the lower layer copies it up, whole.
	_t0=$(date +%s)
	check local find /usr/bin /usr/sbin /usr/lib/x86_64-linux-gnu /usr/lib/python3 \
		/usr/lib/python3.11 -xdev -type f -exec touch -c {} + || return
	# (df of the overlay: its upper layer, the guest's memory.)
	echo "@@ bench local $(df -m / | awk 'NR == 2 { print $3 }') MiB in the guest's memory after $(($(date +%s) - _t0)) s"
fi
export SBD_CASES=/usr/local/lib/sbd/explore/cases SBD_OPS=6
_case=$SBD_CASES/${SBD_BENCH_CASE:-sqlite-wal-full}
[ -f "$_case/check" ] || { fail case "no case at $_case"; return; }
# explore_case ARGS...: the case's check on its states after "init",
# twelve points, one random and one torn seed each, every state checked.
explore_case() {
	sbd-explore --fs ext4 --check "sh '$_case/check'" --after-mark init \
		--max-points 12 --random 1 --torn 1 --no-dedup -q "$@"
}
check record explore_case --dev /dev/sbd0 --workload "sh '$_case/workload'" --keep \
	--json "$TMP/rec.json" || return
# one JOBS DEVS: explore the kept recording again with JOBS jobs; a
# line of the console and the states' verdicts in $TMP/verdicts.JOBS.
one() {
	explore_case --again --dev "$2" --jobs "$1" --json "$TMP/j.json" > "$TMP/j.out" 2>&1
	bench_jobs_line "$1" "$TMP/j.json"
	grep '"point": ' "$TMP/j.json" | sed 's/,$//' | sort > "$TMP/verdicts.$1"
}
_r=0
while [ $_r -lt "${SBD_BENCH_ROUNDS:-2}" ]; do
	one 1 /dev/sbd0
	one 2 /dev/sbd0,/dev/sbd1
	expect "same-verdicts-$_r" "" "$(diff "$TMP/verdicts.1" "$TMP/verdicts.2" | head -n 4)"
	_r=$((_r + 1))
done
echo drop > /sys/block/sbd0/sbd/record
unload_sbd || fail unload "sbd still loaded"
