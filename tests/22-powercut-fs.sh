# SPDX-License-Identifier: GPL-2.0
# Filesystems across power cuts: crash-consistency rounds
# (vm-crashloop.sh) with ext4 and xfs on a disk with a volatile write
# cache, one round per policy (none, all, random, torn), each cut at a
# seeded moment after the workload made its first file durable; every
# file fsynced before the cut must read back intact after the journal's
# replay, and fsck must find nothing.  scripts/crash-soak.sh runs the
# same rounds for longer.

# Requires: cache_mb; ext4, xfs.
# QUICK=0: not in the quick run (QUICK=1 scripts/run-tests.sh).

. ./vm-crashloop.sh

# A fixed seed by default, so that two runs check the same rounds;
# scripts/crash-soak.sh is where seeds vary.
seed=${CRASH_SEED:-4242}
for fs in ext4 xfs; do
	case $fs in
	ext4) sectors=131072 mkfs="mkfs.ext4 -q -F" ;;
	xfs)  sectors=655360 mkfs="mkfs.xfs -q -f" ;;
	esac
	# shellcheck disable=SC2086 # $mkfs: a list of words, split on purpose
	check $fs/load load_sbd nsectors=$sectors cache_mb=8 &&
		check $fs/mkfs $mkfs /dev/sbd0 &&
		for p in none all "random $seed 50" "torn $seed"; do
			cl_round "$fs/${p%% *}" $fs "$seed" "$p" || break
			seed=$((seed + 1))
		done
	unload_sbd
done
