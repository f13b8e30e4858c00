#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-crash-soak.sh ITERATIONS CUT_WITHIN [SEED]: inside the VM,
# crash-consistency rounds (vm-crashloop.sh) on ext4 and xfs, cycling
# through the power-cut policies, each cut 1 to CUT_WITHIN seconds after
# the first durable file; scripts/crash-soak.sh boots it.  One
# "@@ ok/FAIL" line per check; a round's seed is printed before it.
. ./vm-lib.sh
. ./vm-crashloop.sh
export AREA=crash-soak
ITERATIONS=${1:-20}
export CL_CUT_SPREAD=$(((${2:-10} - 1) * 10))
seed=${3:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
mkdir -p "$MNT" "$TMP"
echo "@@ | first seed $seed, cuts 1 to ${2:-10} s after the first durable file"
for fs in ext4 xfs; do
	case $fs in
	ext4) sectors=131072 mkfs="mkfs.ext4 -q -F" ;;
	xfs)  sectors=655360 mkfs="mkfs.xfs -q -f" ;;
	esac
	check $fs/load load_sbd nsectors="$sectors" cache_mb=8 || continue
	# shellcheck disable=SC2086 # $mkfs: a list of words, split on purpose
	check $fs/mkfs $mkfs /dev/sbd0 || { unload_sbd; continue; }
	i=0
	while [ $i -lt "$ITERATIONS" ]; do
		case $((i % 4)) in
		0) p=none ;;
		1) p=all ;;
		2) p="random $seed $((seed % 101))" ;;
		3) p="torn $seed" ;;
		esac
		cl_round "$fs/$i-${p%% *}" $fs "$seed" "$p" || break
		i=$((i + 1))
		seed=$((seed + 1))
	done
	umount "$MNT" 2>/dev/null
	check $fs/unload unload_sbd
done
dmesg_clean dmesg
