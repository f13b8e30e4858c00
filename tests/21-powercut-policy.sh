# SPDX-License-Identifier: GPL-2.0
# Power-cut policies: powercut_policy says what a cut keeps of the
# writes that were not durable: none, all, "random SEED PERCENT" or
# "torn SEED".  On overlapping writes never flushed, later writes win;
# random and torn give the same disk again for the same seed, and
# another for another seed; torn keeps each 512-byte block of a write
# whole, old or new, and tears some writes.  Then what power and
# powercut_policy refuse, leaving everything as it was.  The cache and
# the cut themselves are 14-powercut.sh's.

# Requires: cache_mb.
# QUICK=0: not in the quick run (QUICK=1 scripts/run-tests.sh).

MIB=1048576

# Later writes win; random and torn are reproducible from their seed.
# 24 overlapping 16 KiB writes (each half over the one before), never
# flushed, on a fresh disk; the model is the same writes to a file.
for i in $(seq 0 23); do random_file "$TMP/w$i" 16384; done
head -c $((8 * MIB)) /dev/zero > "$TMP/model"
for i in $(seq 0 23); do put_image "$TMP/w$i" "$TMP/model" $((i * 8192)); done
model=$(sha256sum < "$TMP/model" | cut -c1-64)
# cut_with POLICY: reload, write the sequence, cut under POLICY, print
# the disk's checksum.
cut_with() {
	reload cache_mb=4 && echo "$1" > "$POL" || return
	for i in $(seq 0 23); do put_one "$TMP/w$i" /dev/sbd0 $((i * 8192)); done
	power off && power on && dev_sum
}
zeros=$(head -c $((8 * MIB)) /dev/zero | sha256sum | cut -c1-64)
expect seq/none-loses-all "$zeros" "$(cut_with none)"
expect seq/all-later-write-wins "$model" "$(cut_with all)"
expect seq/random-100-is-all "$model" "$(cut_with 'random 7 100')"
expect seq/random-0-is-none "$zeros" "$(cut_with 'random 7 0')"
expect seq/policy-reads-back "random 7 0" "$(cat "$POL")"
r1=$(cut_with 'random 42 50')
r2=$(cut_with 'random 42 50')
expect seq/random-reproducible "$r1" "$r2"
check seq/random-keeps-some test "$r1" != "$zeros" -a "$r1" != "$model"
r3=$(cut_with 'random 43 50')
check seq/random-seed-matters test "$r3" != "$r1"
t1=$(cut_with 'torn 5')
expect seq/torn-reproducible "$t1" "$(cut_with 'torn 5')"

# Torn: 16 separate 16 KiB writes (32 blocks of 512 bytes each); every
# block must be all new or all old (zeros), and some write torn.
reload cache_mb=4
echo "torn 11" > "$POL"
head -c $((256 * 1024)) /dev/zero > "$TMP/zero256"
: > "$TMP/new"
for i in $(seq 0 15); do cat "$TMP/w$i" >> "$TMP/new"; done
for i in $(seq 0 15); do put_one "$TMP/w$i" /dev/sbd0 $((i * 16384)); done
power off && power on
dd if=/dev/sbd0 of="$TMP/got" bs=64k count=4 iflag=direct status=none
# Blocks that differ from the new data, and from zeros.
cmp -l "$TMP/got" "$TMP/new" | awk '{ print int(($1 - 1) / 512) }' | uniq > "$TMP/notnew"
cmp -l "$TMP/got" "$TMP/zero256" | awk '{ print int(($1 - 1) / 512) }' | uniq > "$TMP/notzero"
torn=$(awk 'FILENAME == ARGV[1] { notnew[$1] = 1; next } { notzero[$1] = 1 }
	END {
		for (b = 0; b < 512; b++) {
			if (notnew[b] && notzero[b]) mixed++
			if (!notnew[b]) kept[int(b / 32)]++
		}
		for (w = 0; w < 16; w++) {
			if (kept[w] == 32) whole++
			else if (kept[w] > 0) part++
			else lost++
		}
		printf "%d %d %d %d\n", mixed, whole, part, lost
	}' "$TMP/notnew" "$TMP/notzero")
echo "@@ | torn 11: blocks neither old nor new, writes kept whole, in part, lost: $torn"
# shellcheck disable=SC2086 # $torn: a list of words, split on purpose
set -- $torn
expect torn/every-block-old-or-new 0 "$1"
check torn/some-write-torn test "$3" -ge 1
check torn/some-write-lost test "$4" -ge 1

# Bad input: -EINVAL, nothing changes.
reload cache_mb=4
echo "random 9 30" > "$POL"
for bad in "" "maybe" "of" "On" "off off" "1" "on"; do write_refused "reject power '$bad'" "$PWR" "$bad"; done
for bad in "" "None" "none 1" "all 2" "random" "random 1" "random 1 101" \
	   "random x 5" "random 1 5 7" "random -1 5" "random 1 -5" "random 1 5x" \
	   "random 99999999999999999999 5" "torn" "torn 1 2" "torn -1" "torn 0x10" \
	   "tornado 1" "random 1 4294967346" "random +1 +50" "random 1 +50" \
	   "torn +3" "random 0000000000000000000000070" \
	   "random 000000000000000000001 5" "random 1 5 +"; do
	write_refused "reject powercut_policy '$bad'" "$POL" "$bad"
done
expect bad/policy-unchanged "random 9 30" "$(cat "$POL")"
expect bad/power-unchanged on "$(cat "$PWR")"
check bad/cut power off
write_refused "reject power 'off'" "$PWR" off
expect bad/still-off off "$(cat "$PWR")"
expect bad/one-cut 1 "$(stat_value "$SBD_SYS"/cache_stats cuts)"
check bad/policy-change-while-off sh -c "echo all > $POL"
check bad/on power on
