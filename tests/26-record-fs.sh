# SPDX-License-Identifier: GPL-2.0
# Filesystems' crash states, visited: on ext4 and on xfs, a recorded
# workload marks each file durable ("fN:SHA16") once its fsync and its
# directory's returned, replacing some by rename; then every FLUSH and
# mark point is visited, the filesystem mounted (journal replay), every
# file marked at or before the point checked, unmounted and fsck'd; the
# return, by hash.

# Requires: cache_mb, debugfs; ext4, xfs.
# QUICK=1: in the quick run (QUICK=1 scripts/run-tests.sh).

mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug

# fs_workload DIR N: N steps of the workload in DIR.
fs_workload() {
	_i=0
	while [ $_i -lt "$2" ]; do
		_i=$((_i + 1))
		_f=f$_i
		# Every 3rd step replaces an older file by rename instead.
		[ $((_i % 3)) = 0 ] && _f=f$((_i - 2))
		head -c $((_i * 7919 % 23 * 4096 + _i * 37 % 4096 + 1)) /dev/urandom \
			> "$TMP/src"
		dd if="$TMP/src" of="$1/t$_i" bs=64k conv=fsync status=none &&
			mv "$1/t$_i" "$1/$_f" && sync "$1" || return
		echo "$_f:$(sha256sum < "$TMP/src" | cut -c1-16)" > "$MARK" || return
		# Never synced: whatever a crash leaves of it is fine.
		cp "$TMP/src" "$1/u$_i"
	done
}

# fs_explore FS SECTORS EVERY TORN MKFS...: policy none at each point,
# and "torn P" too if TORN is 1; of the FLUSH points, one in EVERY (mark
# points always).  (tests/20-explore.sh explores with sbd-explore.)
fs_explore() {
	_fs=$1 _sectors=$2 _every=$3 _torn=$4
	shift 4
	check "$_fs/load" load_sbd nsectors="$_sectors" cache_mb=16 || return
	if ! check "$_fs/mkfs" "$@" /dev/sbd0 ||
	   ! check "$_fs/mount" mount -t "$_fs" /dev/sbd0 "$MNT"; then
		unload_sbd
		return
	fi
	mkdir "$MNT/w" && sync "$MNT"
	check "$_fs/start" sh -c "echo 'start 64' > $REC"
	check "$_fs/workload" fs_workload "$MNT/w" 6
	check "$_fs/umount" umount "$MNT"
	check "$_fs/stop" sh -c "echo stop > $REC"
	_end=$(dev_sum)
	cp "$POINTS" "$TMP/listing"
	awk -v every="$_every" '$2 == "mark" || ($2 == "flush" && ++n % every == 0) { print $1 }' \
		"$TMP/listing" > "$TMP/visit"
	_bad="" _states=0 _t0=$(date +%s)
	while read -r _p; do
		_pols=none
		[ "$_torn" = 0 ] || _pols="none torn"
		for _pol in $_pols; do
			[ "$_pol" = none ] || _pol="torn $_p"
			_s="$_p $_pol"
			_states=$((_states + 1))
			if ! echo "$_s" > "$VISIT"; then
				_bad="$_bad
$_s: visit refused"
				continue
			fi
			if ! mount -t "$_fs" /dev/sbd0 "$MNT"; then
				_bad="$_bad
$_s: mount failed"
				continue
			fi
			# Each file marked by then: its last mark's data, or
			# the next version's, written (and made durable, by
			# a flush that came before its mark) after that mark.
			awk -v p="$_p" '$2 != "mark" { next }
				{ split($3, a, ":") }
				$1 <= p { s[a[1]] = a[2] }
				$1 > p && (a[1] in s) && !(a[1] in n) { n[a[1]] = a[2] }
				END { for (f in s) print f, s[f], (f in n) ? n[f] : s[f] }' \
				"$TMP/listing" > "$TMP/want"
			while read -r _f _sum _next; do
				_got=$(sha256sum < "$MNT/w/$_f" | cut -c1-16)
				[ "$_got" = "$_sum" ] || [ "$_got" = "$_next" ] ||
					_bad="$_bad
$_s: $_f (marked durable, $_sum) is not intact"
			done < "$TMP/want"
			umount "$MNT"
			case $_fs in
			ext4) _out=$(e2fsck -fn /dev/sbd0 2>&1) ;;
			xfs) _out=$(xfs_repair -n /dev/sbd0 2>&1) ;;
			esac || _bad="$_bad
$_s: fsck: $(printf '%s\n' "$_out" | tail -n 5)"
		done
	done < "$TMP/visit"
	check "$_fs/return" sh -c "echo end > $VISIT"
	expect "$_fs/end-by-hash" "$_end" "$(dev_sum)"
	check "$_fs/some-marks" test "$(grep -c ' mark ' "$TMP/listing")" = 6
	expect "$_fs/every-state-mounts-intact-fsck-clean" "" "$_bad"
	echo "@@ | $_fs: $(grep -c . "$TMP/listing") points, $_states states checked in $(($(date +%s) - _t0)) s"
	unload_sbd
}
fs_explore ext4 65536 1 1 mkfs.ext4 -q -F -E nodiscard
fs_explore xfs 655360 3 0 mkfs.xfs -q -f -K
