# SPDX-License-Identifier: GPL-2.0
# A write the drive acknowledged, even flushed, and never stored:
# "visit POINT POLICY lose K".  The independent model (sbd-model, its
# "@lose") picks, for every point and policy, the newest write that the
# state keeps whatever the policy and that no later write touches, and
# checks the disk block by block against its own image (K's blocks as
# they were before K); it also asks to lose the newest other write, which
# must be refused.  Then the file's contract: what visit reads back, and
# each refusal.

# Requires: cache_mb, debugfs; sbd-model (tests/tools).
# QUICK=1: in the quick run (QUICK=1 scripts/run-tests.sh).

mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug

# shellcheck disable=SC2034 # model_run's (vm-lib.sh)
POLICIES="none@lose all@lose random:7:50@lose torn:5@lose"

model_run spread@512 512 60 41
# On 24 blocks: most writes are covered by later ones, and refused.
model_run overlap@4096 4096 80 44 24

# --- The contract, on writes of 64 KiB: 1 at 0, 2 at 64 KiB, FLUSH (3),
# 4 at 0 again, 5 at 128 KiB with FUA (O_DSYNC: and a FLUSH, 6), 7 at
# 192 KiB.
random_file "$TMP/A" 65536
random_file "$TMP/B" 65536
check contract/load load_sbd nsectors=16384 cache_mb=8 || return
check contract/start sh -c "echo 'start 8' > $REC"
wr "$TMP/A" 0 && wr "$TMP/A" 65536 && sync /dev/sbd0 && wr "$TMP/B" 0 &&
	dd if="$TMP/B" of=/dev/sbd0 bs=64k seek=2 oflag=direct,dsync conv=notrunc status=none &&
	wr "$TMP/B" 196608
check contract/stop sh -c "echo stop > $REC"
awk '{ print $1, $2 }' "$POINTS" > "$TMP/kinds"
expect contract/points "1 write 2 write 3 flush 4 write 5 write 6 flush 7 write" \
	"$(tr '\n' ' ' < "$TMP/kinds" | sed 's/ $//')"
check contract/lose-flushed sh -c "echo '4 none lose 2' > $VISIT"
expect contract/reads-back "4 none lose 2" "$(cat "$VISIT")"
expect contract/lost-blocks-zero "$(head -c 65536 /dev/zero | sha256sum)" "$(at 65536 | sha256sum)"
expect contract/others-kept "$(sha256sum < "$TMP/A")" "$(at 0 | sha256sum)"
check contract/lose-fua sh -c "echo '5 none lose 5' > $VISIT"
expect contract/fua-lost "$(head -c 65536 /dev/zero | sha256sum)" "$(at 131072 | sha256sum)"
check contract/end sh -c "echo end > $VISIT"
expect contract/end-whole "$(sha256sum < "$TMP/B")" "$(at 131072 | sha256sum)"
write_refused contract/lose-zero "$VISIT" "4 none lose 0"
write_refused contract/lose-nothing "$VISIT" "4 none lose"
write_refused contract/lose-two "$VISIT" "4 none lose 2 4"
write_refused contract/lose-after-point "$VISIT" "2 none lose 4"
write_refused contract/lose-not-durable "$VISIT" "7 none lose 7"
write_refused contract/lose-covered "$VISIT" "4 none lose 1"
write_refused contract/lose-a-flush "$VISIT" "4 none lose 3"
write_refused contract/lose-with-only "$VISIT" "7 torn 1 only 7 lose 2"
expect contract/refusals-changed-nothing end "$(cat "$VISIT")"
unload_sbd
