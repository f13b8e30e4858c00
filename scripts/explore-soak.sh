#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# explore-soak.sh: long crash explorations with sbd-explore, far beyond
# what 20-explore.sh runs.  Boots one kernel with sbd and runs rounds
# (tests/vm-explore-soak.sh) for MINUTES: ext4 and xfs, the durable-files
# and metadata-heavy workloads, OPS operations each, up to MAX_POINTS
# points per round of every kind (flush, FUA, mark, write; spread
# evenly), each under none, all, 8 random and 8 torn seeds; a new seed
# every round.
#
#   KERNEL=6.12 (default), 6.1 or 7.2
#   MINUTES=20        how long to explore (rounds start while one fits)
#   OPS=200           operations per workload
#   MAX_POINTS=12     points checked per round, spread evenly
#   SEED=N            the first round's seed (default: random, printed)
#
# Prints each round and, at the end, the totals; exits non-zero if any
# round failed.  A failing round's output (its reproducers) is shown.
. "$(dirname "$0")/lib.sh"
need_root
export KERNELS=${KERNEL:-6.12}
tier=$(kernel_tiers)
MINUTES=${MINUTES:-20} OPS=${OPS:-200} MAX_POINTS=${MAX_POINTS:-12}
for v in MINUTES OPS MAX_POINTS ${SEED:+SEED}; do
	case ${!v} in ''|*[!0-9]*|0) die "$v must be a positive whole number" ;; esac
done
out=$SBD_OUT/explore-soak
"$SBD_ROOT/scripts/install-deps.sh"
vm_image "$tier" "$out" vm-explore-soak.sh "$MINUTES" "$OPS" "$MAX_POINTS" ${SEED:+"$SEED"}
log "booting; $MINUTES minutes of rounds; console in $out/console.log"
start=$(date +%s)
# A round that starts just before the end may take as long again.
VM_TIMEOUT=${VM_TIMEOUT:-$((MINUTES * 60 * 2 + 900))} \
	"$SBD_ROOT/scripts/boot-vm.sh" "$tier" "$out/initramfs.img" "$out/console.log" ||
	echo "FAIL vm-finished"
grep -a '^@@ ' "$out/console.log" | sed 's/\r$//' | awk -v min=$(( ($(date +%s) - start + 30) / 60 )) '
	/^@@ soak round / {
		n++; st += $8; sk += $9; pa += $10; fa += $11; sec += $13
		printf "round %s: %d states, %d skipped as identical, %d passed, %d failed, %d s (exit %s)\n",
			$4, $8, $9, $10, $11, $13, $6
		next
	}
	/^@@ FAIL / { bad++; print "FAIL " substr($0, 9); next }
	/^@@ \| / { print "    " substr($0, 6); next }
	/^@@ ok / { ok++ }
	/^@@ soak done/ { done = 1 }
	END {
		printf "explore soak: %d rounds, %d states (%d checked, %d skipped as identical), %d passed, %d failed; %.1f states/min over %d s of rounds (recording included); %d minutes in all\n",
			n, st, st - sk, sk, pa, fa, sec ? st * 60 / sec : 0, sec, min
		if (!done) print "FAIL the VM did not finish"
		print ok + 0 " passed, " (bad + !done) " failed"
		exit (bad || !done)
	}'
