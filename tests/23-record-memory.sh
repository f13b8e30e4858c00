# SPDX-License-Identifier: GPL-2.0
# A recording's memory: "start N" gives a recording N MiB for the bytes
# its writes overwrote and for its points.  A recording whose memory
# runs out ends "full" and keeps its points, up to the last write that
# fitted; every point costs its saved bytes and 24 bytes, so a FLUSH,
# which saves nothing, takes no page.

# Requires: cache_mb; fio.
# QUICK=1: in the quick run (QUICK=1 scripts/run-tests.sh).

random_file "$TMP/B" 65536
# An 8 MiB disk with a 4 MiB cache (without it, full/start fails).
load_sbd nsectors=16384 cache_mb=4

# --- A recording whose memory runs out ends "full"; its points stay.
check full/start sh -c "echo 'start 1' > $REC"
for i in $(seq 0 19); do wr "$TMP/B" $((i * 65536)) 2>/dev/null; done
expect full/state full "$(cat "$REC")"
n=$(stat_value "$SBD_SYS"/record_stats points)
check full/some-points test "$n" -ge 10 -a "$n" -lt 20
check full/visit-last sh -c "echo '$n all' > $VISIT"
expect full/last-recorded-write "$(sha256sum < "$TMP/B")" \
	"$(at $(((n - 1) * 65536)) | sha256sum)"
check full/end sh -c "echo end > $VISIT"
check full/drop sh -c "echo drop > $REC"

# --- Every point costs its saved bytes and 24 bytes: a FLUSH, which
# saves nothing, takes no page.  512-byte writes, each with its FLUSH,
# into a 1 MiB recording: about 3,700 points (1 MiB / (512 + 2 * 24)).
check account/start sh -c "echo 'start 1' > $REC"
check account/pairs fio --name=pairs --filename=/dev/sbd0 --rw=write --bs=512 \
	--size=2M --direct=1 --fsync=1 --ioengine=psync --output=/dev/null
expect account/state full "$(cat "$REC")"
n=$(stat_value "$SBD_SYS"/record_stats points)
check account/every-pair-fits test "$n" -gt 3600
expect account/memory-is-bytes-and-points "$(($(stat_value "$SBD_SYS"/record_stats saved_bytes) + 24 * n))" \
	"$(stat_value "$SBD_SYS"/record_stats memory_used)"
check account/drop sh -c "echo drop > $REC"
