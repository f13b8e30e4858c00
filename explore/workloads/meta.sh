# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# @meta, sbd-explore's metadata-heavy workload (the contract: README
# here): a random one, seeded by --seed, of --ops operations: creates,
# appends, truncates, renames (across directories too), hard and
# symbolic links, unlinks, mkdir and rmdir in a few directories, with an
# fsync of a file or a directory now and then.  It writes no marks:
# fsck is its oracle (no check of its own).

sbd_workload meta wl_meta

wl_meta() {
	_r=$SBD_SEED _i=0
	mkdir -p meta/d0 meta/d1 meta/d2 meta/d3 || return
	while [ $_i -lt "$SBD_OPS" ]; do
		_i=$((_i + 1))
		_r=$(((_r * 1103515245 + 12345) % 2147483648))
		_d=meta/d$((_r / 7 % 4)) _e=meta/d$((_r / 29 % 4))
		_f=$_d/n$((_r / 131 % 24)) _g=$_e/n$((_r / 3203 % 24))
		case $((_r / 65536 % 12)) in
		0 | 1) head -c $((_r % 20000)) /dev/urandom > "$_f" ;;
		2) [ ! -f "$_f" ] || head -c $((_r % 9000 + 1)) /dev/urandom >> "$_f" ;;
		3) [ ! -f "$_f" ] || truncate -s $((_r % 30000)) "$_f" ;;
		4) [ ! -e "$_f" ] || mv -f "$_f" "$_g" ;;
		5) [ ! -f "$_f" ] || [ -e "$_g" ] || ln "$_f" "$_g" ;;
		6) [ -e "$_g" ] || ln -s "../${_f#meta/}" "$_g" ;;
		7) rm -rf "$_f" ;;
		8) [ -e "$_f" ] || mkdir "$_f" ;;
		9) [ ! -f "$_f" ] || sync "$_f" ;;
		10) sync "$_d" ;;
		11) [ ! -d "$_f" ] || rmdir "$_f" ;;
		esac 2> /dev/null
	done
	sync meta/d0 meta/d1 meta/d2 meta/d3
}
