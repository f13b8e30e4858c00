#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-explore-soak.sh MINUTES OPS MAX_POINTS SEED: inside the VM, sbd-explore
# rounds for MINUTES (scripts/explore-soak.sh boots it): ext4 and xfs in
# turn, the durable-files (@files) and metadata-heavy (@meta) workloads
# in turn, OPS operations each, at up to MAX_POINTS points of every kind
# (flush, FUA, mark and write: only at a write point is anything
# pending, so only there do the policies differ; at a flush point, or a
# mark right after an fsync, all give the image none gives), spread
# evenly, under none, all, 8 random and 8 torn seeds per point; every
# round has a new seed (the workload's and the policies').  One
# "@@ ok|FAIL explore-soak/ROUND" line per round, its summary as
# evidence, and "@@ soak" lines that scripts/explore-soak.sh adds up.
. ./vm-lib.sh
export AREA=explore-soak
MINUTES=${1:-20}
OPS=${2:-200}
MAXP=${3:-12}
seed=${4:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
EXPLORE=../explore/sbd-explore
mkdir -p "$TMP"
echo "@@ | first seed $seed, $OPS operations a round, at most $MAXP points, $MINUTES minutes"
up() { cut -d. -f1 /proc/uptime; }
start=$(up) last=0 r=0
# A round starts only if one as long as the last still fits.
while [ $(($(up) - start + last)) -lt $((MINUTES * 60)) ]; do
	case $((r % 4)) in
	0) fs=ext4 wl=@files ;;
	1) fs=xfs wl=@meta ;;
	2) fs=ext4 wl=@meta ;;
	3) fs=xfs wl=@files ;;
	esac
	# 4 KiB blocks: a torn write keeps whole logical blocks, so on
	# 512-byte ones it can tear a block of the filesystem, which no
	# filesystem promises to survive (see 20-explore.sh).  xfs: bookworm's
	# mkfs.xfs wants 300 MiB.
	case $fs in
	ext4) sectors=16384 ;;
	xfs) sectors=76800 ;;
	esac
	name=$r-$fs-${wl#@}-seed$seed
	t0=$(up)
	if ! load_sbd nsectors="$sectors" hardsect_size=4096 cache_mb=32; then
		fail "$name" "cannot load sbd"
		break
	fi
	"$EXPLORE" -q --fs "$fs" --workload "$wl" --ops "$OPS" --seed "$seed" \
		--points all --max-points "$MAXP" --random 8 --torn 8 \
		--save "$TMP/$name" > "$TMP/out" 2>&1
	rc=$?
	last=$(($(up) - t0))
	total=$(awk '$1 == "total" && $2 == "total" { print $3, $4, $5, $6 }' "$TMP/out")
	echo "@@ soak round $name exit $rc states-skipped-passed-failed ${total:-0 0 0 0} seconds $last"
	if [ $rc = 0 ]; then
		pass "$name"
	else
		fail "$name" "sbd-explore exited $rc:" "$(grep -v '^progress' "$TMP/out" | tail -n 40)"
	fi
	echo drop > /sys/block/sbd0/sbd/record 2>/dev/null
	unload_sbd || { fail "$name/unload" "$(sbd_leftovers)"; break; }
	r=$((r + 1))
	seed=$((seed + 1))
done
dmesg_clean dmesg run
echo "@@ soak done"
