#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-import-fixture.sh SEED NOPS: record sbd-model's SEED run of NOPS
# operations on a 1 MiB disk of 512-byte blocks (point 0: zeros) and
# print the recording as files, in hex, for scripts/make-import-fixture.sh:
# "@@ file NAME", "@@ hex HEX" lines, "@@ end".
. ./vm-lib.sh
SEED=${1:-41} NOPS=${2:-40}
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
load_sbd nsectors=2048 hardsect_size=512 cache_mb=1 || exit 1
echo "start 4" > /sys/block/sbd0/sbd/record || exit 1
SBD_MODEL_BLOCKS=16 sbd-model play /dev/sbd0 "$SEED" "$NOPS" /tmp/trace || exit 1
echo stop > /sys/block/sbd0/sbd/record
echo "0 none" > /sys/block/sbd0/sbd/visit || exit 1
D=/sys/kernel/debug/sbd/sbd0
cp "$D/log-writes" /tmp/log-writes && cp "$D/log-writes-points" /tmp/log-writes-points &&
	cp "$D/points" /tmp/points || exit 1
echo "sbd-model play SEED $SEED NOPS $NOPS, SBD_MODEL_BLOCKS=16, on $(uname -r), 512-byte blocks, 1 MiB, point 0 zeros" > /tmp/README
for f in README trace points log-writes-points log-writes; do
	echo "@@ file $f"
	od -An -v -tx1 "/tmp/$f" | tr -d ' \n' | fold -w 96 | sed 's/^/@@ hex /'
	echo
	echo "@@ end"
done
echo end > /sys/block/sbd0/sbd/visit
echo drop > /sys/block/sbd0/sbd/record
unload_sbd
