# SPDX-License-Identifier: GPL-2.0
# Crash-consistency rounds on a disk with a volatile write cache, sourced
# by 22-powercut-fs.sh and vm-crash-soak.sh (after vm-lib.sh, which
# names sbd0's files).
#
# A round: a workload on the filesystem mounted at $MNT creates, renames,
# replaces, deletes and appends to files and, only once an fsync (of the
# file and of its directory) has returned, records what must survive;
# the power is cut at a seeded moment; the filesystem is unmounted, the
# power comes back, the mount replays the journal; every recorded file
# must read back with its checksum and fsck must find nothing.

# cl_workload DIR RECORDS: run until an I/O fails (the cut) or 600 steps.
# RECORDS gets "NAME SHA256" for each durable file; RECORDS.append gets
# "LENGTH SHA256" of the durable prefix of DIR/append.
cl_workload() {
	_d=$1 _rec=$2 _i=0
	: > "$_rec"
	: > "$_rec.append"
	: > "$TMP/cl.append"
	while [ $_i -lt 600 ]; do
		_i=$((_i + 1))
		# A new file: write and fsync it, rename it, fsync the directory.
		head -c $(((_i * 7919) % 23 * 4096 + _i * 37 % 4096 + 1)) \
			/dev/urandom > "$TMP/cl.src"
		_sum=$(sha256sum < "$TMP/cl.src" | cut -c1-64)
		dd if="$TMP/cl.src" of="$_d/t$_i" bs=64k conv=fsync status=none \
			2>/dev/null || return 0
		mv "$_d/t$_i" "$_d/f$_i" 2>/dev/null || return 0
		sync "$_d" 2>/dev/null || return 0
		echo "f$_i $_sum" >> "$_rec"
		# Never synced: whatever the cut leaves of it is fine.
		cp "$TMP/cl.src" "$_d/u$_i" 2>/dev/null || return 0
		rm -f "$_d/u$((_i - 8))"
		# Every 3rd step: replace an older file by rename.  While
		# the rename is in flight either version may survive, so
		# the name is not checked until the new one is durable.
		_old=f$((_i - 2))
		if [ $((_i % 3)) = 0 ] && grep -q "^$_old " "$_rec"; then
			head -c $((_i * 101 % 20000 + 1)) /dev/urandom > "$TMP/cl.src"
			_sum=$(sha256sum < "$TMP/cl.src" | cut -c1-64)
			sed -i "/^$_old /d" "$_rec"
			dd if="$TMP/cl.src" of="$_d/r$_i" bs=64k conv=fsync \
				status=none 2>/dev/null || return 0
			mv "$_d/r$_i" "$_d/$_old" 2>/dev/null || return 0
			sync "$_d" 2>/dev/null || return 0
			echo "$_old $_sum" >> "$_rec"
		fi
		# Every 5th step: delete one (unrecorded first).
		if [ $((_i % 5)) = 0 ]; then
			sed -i "/^f$((_i - 4)) /d" "$_rec"
			rm -f "$_d/f$((_i - 4))"
		fi
		# Append and fsync: the prefix up to here must survive.  What
		# was appended is summed from a copy kept in tmpfs: reading
		# the file back could meet the cut (EIO) and record garbage.
		if [ $_i -le 150 ]; then
			head -c 3000 /dev/urandom > "$TMP/cl.chunk" &&
				cat "$TMP/cl.chunk" >> "$_d/append" 2>/dev/null &&
				sync "$_d/append" 2>/dev/null || return 0
			cat "$TMP/cl.chunk" >> "$TMP/cl.append"
			echo "$(stat -c %s "$TMP/cl.append")" \
				"$(sha256sum < "$TMP/cl.append" | cut -c1-64)" > "$_rec.append"
		fi
	done
}

# cl_verify DIR RECORDS: print one line per durable file that is wrong.
cl_verify() {
	while read -r _name _sum; do
		if [ ! -f "$1/$_name" ]; then
			echo "$_name: missing (fsynced, sha256 $_sum)"
		elif [ "$(sha256sum < "$1/$_name" | cut -c1-64)" != "$_sum" ]; then
			echo "$_name: wrong content (fsynced, sha256 $_sum)"
		fi
	done < "$2"
	read -r _len _sum < "$2.append" || return 0
	if [ "$(head -c "$_len" "$1/append" 2>/dev/null | sha256sum | cut -c1-64)" != "$_sum" ]; then
		echo "append: the first $_len fsynced bytes are not intact (size now $(stat -c %s "$1/append" 2>&1))"
	fi
}

cl_fsck() {
	case $1 in
	ext4) e2fsck -fn /dev/sbd0 ;;
	xfs)  xfs_repair -n /dev/sbd0 ;;
	esac
}

# cl_round NAME FS SEED POLICY: one round on /dev/sbd0, which holds an
# FS filesystem and is not mounted.  The cut comes 1.0 to 2.9 s (from SEED;
# up to 1 + CL_CUT_SPREAD/10 s when set) after the workload recorded its
# first durable file: the longer, the more files are durable by then
# (1 or 2 at the default, which keeps a round short).  Returns non-zero
# (after reporting) if the disk is not left usable for another round.
cl_round() {
	_t=$1 _fs=$2 _seed=$3 _policy=$4
	echo "@@ | $_t: seed $_seed, policy '$_policy'"
	echo "$_policy" > "$SBD_SYS"/powercut_policy
	check "$_t/mount" mount -t "$_fs" /dev/sbd0 "$MNT" || return
	rm -rf "$MNT/w"
	mkdir "$MNT/w" && sync "$MNT"
	: > "$TMP/records"
	cl_workload "$MNT/w" "$TMP/records" &
	_pid=$!
	# Once the first file is durable, however long that takes on a busy
	# machine (the area's time limit bounds it), wait 1.0-2.9 s.
	while [ ! -s "$TMP/records" ] && kill -0 $_pid 2>/dev/null; do
		sleep 0.1
	done
	_delay=$((_seed % ${CL_CUT_SPREAD:-20} + 10))
	sleep "$((_delay / 10)).$((_delay % 10))"
	check "$_t/cut" sh -c "echo off > $SBD_SYS/power"
	# The workload stops at its first failed I/O; give it 60 s.
	_n=0
	while kill -0 $_pid 2>/dev/null && [ $_n -lt 600 ]; do
		sleep 0.1
		_n=$((_n + 1))
	done
	kill $_pid 2>/dev/null
	wait $_pid
	_durable=$(wc -l < "$TMP/records")
	check "$_t/umount-while-off" umount "$MNT"
	check "$_t/power-on" sh -c "echo on > $SBD_SYS/power" || return
	check "$_t/mount-replays-journal" mount -t "$_fs" /dev/sbd0 "$MNT" || return
	_bad=$(cl_verify "$MNT/w" "$TMP/records")
	echo "@@ | $_t: $_durable files recorded as durable"
	check "$_t/workload-made-progress" test "$_durable" -gt 0
	expect "$_t/fsynced-data-intact" "" "$_bad"
	check "$_t/umount" umount "$MNT" || return
	check "$_t/fsck-clean" cl_fsck "$_fs"
}
