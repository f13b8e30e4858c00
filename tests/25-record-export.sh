# SPDX-License-Identifier: GPL-2.0
# The export of a recording in dm-log-writes' format: debugfs
# sbd/sbd0/log-writes, and log-writes-points, which names each entry's
# point.  On the runs that 19-record.sh checks against its model
# (tests/tools/sbd-model.c), every prefix of the export that ends at a
# FLUSH, FUA write or mark replays (tests/tools/sbd-logreplay.c) to the
# visit of that point, and the whole log to the end.  Then against the
# kernel's own dm-log-writes target.

# Requires: cache_mb, debugfs; sbd-model, sbd-logreplay (tests/tools); dm-log-writes and dmsetup for the comparison (skipped without).
# QUICK=1: in the quick run (QUICK=1 scripts/run-tests.sh).

mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug

# export_check NAME SIZE: on a stopped recording of a SIZE-byte disk,
# every prefix of the export that ends at a FLUSH, FUA write or mark
# replays to the visit (POINT, none) that log-writes-points names for
# it, and the whole log to the visit (LAST, all).  Leaves it at the end.
export_check() {
	check "$1/export-at-0" sh -c "echo '0 none' > $VISIT" || return
	check "$1/export" cp "$EXPORT" "$TMP/x.log" || return
	check "$1/export-points" cp "$EXPORT-points" "$TMP/x.map" || return
	dd if=/dev/sbd0 of="$TMP/x0.img" bs=64k iflag=direct status=none
	_bad="" _n=0
	while read -r _e _p _kind _rest; do
		case "$_kind $_rest" in
		*again*) continue ;;
		flush* | mark* | *fua*) ;;
		*) continue ;;
		esac
		_n=$((_n + 1))
		sbd-logreplay limit "$TMP/x.log" "$2" $((_e + 1)) "$TMP/r.img" "$TMP/x0.img" &&
			echo "$_p none" > "$VISIT" &&
			dd if=/dev/sbd0 of="$TMP/v.img" bs=64k iflag=direct status=none ||
			{ _bad="$_bad entry $_e (point $_p): a step failed;"; continue; }
		cmp -s "$TMP/r.img" "$TMP/v.img" ||
			_bad="$_bad entry $_e ($_p $_kind $_rest): the replay is not ($_p none);"
	done < "$TMP/x.map"
	_last=$(stat_value "$SBD_SYS"/record_stats points)
	sbd-logreplay limit "$TMP/x.log" "$2" 0 "$TMP/r.img" "$TMP/x0.img" &&
		echo "$_last all" > "$VISIT" &&
		dd if=/dev/sbd0 of="$TMP/v.img" bs=64k iflag=direct status=none &&
		cmp -s "$TMP/r.img" "$TMP/v.img" ||
		_bad="$_bad the whole log is not ($_last all);"
	expect "$1/export-prefixes-replay-to-visits" "" "$_bad"
	echo "@@ | export: $(grep -c . "$TMP/x.map") entries ($(grep -c again "$TMP/x.map") again), $_n prefixes replayed"
	echo end > "$VISIT"
}

# export_run NAME BS NOPS SEED [BLOCKS]: the recording of 19-record.sh's
# model_run NAME (which checks its steps), then its export.
export_run() {
	if ! record_play "$4" "$3" "${5:-0}" nsectors=$((1048576 / $2)) hardsect_size="$2"; then
		fail "$1/export-at-0" "sbd-model's run was not recorded (19-record.sh checks each step)"
		unload_sbd
		return 1
	fi
	export_check "$1" 1048576
	unload_sbd
}

export_run model@512 512 60 11
export_run model@4096 4096 60 12
# Writes on 24 blocks: FUA writes overlap older writes of their epoch.
export_run overlap@512 512 80 14 24
check overlap@512/export-logs-fua-writes-again grep -q again "$TMP/x.map"
export_run overlap@4096 4096 80 15 24
maxbs=$(sbd_max_block)
[ "$maxbs" -le 4096 ] || export_run "model@$maxbs" "$maxbs" 40 13

# --- The export in dm-log-writes' format, against the kernel's own
# dm-log-writes target stacked on the recording disk (its log on sbd1),
# on a run whose writes overlap: the same writes, FLUSHes, FUA writes
# and marks with the same data, in the same order, but for the FUA
# writes sbd logs again; a replay of sbd's to the Kth FLUSH gives what
# sbd's visit of that point gives, and so does the target's, up to the
# first FLUSH whose epoch has a FUA write that it logged ahead of an
# older write to the same block (the wrong block then stays wrong).
lw_check() {
	check lw/load load_sbd sizes=1M,16M cache_mb=4 || return
	if ! modprobe dm-log-writes 2>/dev/null; then
		skip lw/compare "this kernel has no dm-log-writes module"
		unload_sbd
		return
	fi
	check lw/start sh -c "echo 'start 16' > $REC" || return
	check lw/create dmsetup create --noudevsync lw \
		--table "0 2048 log-writes /dev/sbd0 /dev/sbd1" || return
	dmsetup mknodes lw
	check_output lw/play '^ok played' env SBD_MODEL_DISK=sbd0 SBD_MODEL_DM=lw \
		SBD_MODEL_BLOCKS=24 sbd-model play /dev/mapper/lw 21 60 "$TMP/trace"
	# Removing the target logs what was never flushed, and a last mark.
	check lw/remove dmsetup remove --noudevsync lw
	check lw/stop sh -c "echo stop > $REC"
	check lw/visit-0 sh -c "echo '0 none' > $VISIT"
	check lw/export cp "$EXPORT" "$TMP/sbd.log"
	check lw/export-points cp "$EXPORT-points" "$TMP/sbd.map"
	dd if=/dev/sbd1 of="$TMP/kernel.log" bs=1M iflag=direct status=none
	sbd-logreplay dump "$TMP/kernel.log" | grep -v ' dm-log-writes-end$' |
		cut -d' ' -f2- > "$TMP/kernel.dump"
	sbd-logreplay dump "$TMP/sbd.log" |
		awk 'NR == FNR { if ($NF == "again") again[$1] = 1; next }
		     !($1 in again)' "$TMP/sbd.map" - | cut -d' ' -f2- > "$TMP/sbd.dump"
	check lw/kernel-log-has-entries test "$(grep -c . "$TMP/kernel.dump")" -gt 20
	same lw/same-entries-same-data-but-again "$TMP/kernel.dump" "$TMP/sbd.dump"
	# Replay each to every FLUSH; sbd visits the point of that FLUSH.
	# The FLUSHes whose epoch sbd logged a FUA write again in:
	awk '$NF == "again" { again = 1 } $3 == "flush" { print $2, again + 0; again = 0 }' \
		"$TMP/sbd.map" > "$TMP/flushes"
	_bad="" _k=0 _hit=0 _wrong=0 _first=""
	while read -r _p _again; do
		_k=$((_k + 1))
		sbd-logreplay replay "$TMP/kernel.log" 1048576 $_k "$TMP/k.img" &&
			sbd-logreplay replay "$TMP/sbd.log" 1048576 $_k "$TMP/s.img" &&
			echo "$_p none" > "$VISIT" &&
			dd if=/dev/sbd0 of="$TMP/v.img" bs=64k iflag=direct status=none ||
			{ _bad="$_bad flush $_k (point $_p): a step failed;"; continue; }
		cmp -s "$TMP/s.img" "$TMP/v.img" ||
			_bad="$_bad flush $_k (point $_p): sbd's replay differs from the visit;"
		[ "$_again" = 1 ] && _hit=$((_hit + 1)) && _first=${_first:-$_k}
		if ! cmp -s "$TMP/k.img" "$TMP/v.img"; then
			_wrong=$((_wrong + 1))
			[ -n "$_first" ] ||
				_bad="$_bad flush $_k (point $_p): the target's replay differs, before any FUA write logged early;"
		fi
	done < "$TMP/flushes"
	check lw/some-flushes test $_k -gt 3
	expect lw/replays-and-visits-agree "" "$_bad"
	echo "@@ | dm-log-writes: $(grep -c . "$TMP/kernel.dump") entries, $_k FLUSH points replayed;" \
		"$_hit with a FUA write logged again by sbd, the first at FLUSH ${_first:-none};" \
		"the target's replay differs from the visit at $_wrong"
	echo end > "$VISIT"
	unload_sbd
}
unload_sbd
lw_check
