# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# @db, sbd-explore's application example, its two buggy variants and
# their check (the contract: README here).
#
# @db: a one-file "database" updated by write-to-temp, fsync, rename
# over the old one, fsync of the directory; "db:N" marks version N
# committed, db:0 the first one, made and synced whole.  @db-nodirsync
# leaves out the directory's fsync, @db-nofsync the file's: both are
# bugs a crash can show.  A version's content is a function of N.  The
# check wants a complete version, N or later; before db:0 nothing was
# promised, and any state passes it.

sbd_workload db wl_db db
sbd_workload db-nodirsync wl_db_nodirsync db
sbd_workload db-nofsync wl_db_nofsync db
sbd_check db ck_db

db_uint() { case $1 in '' | *[!0-9]*) return 1 ;; esac; }
db_gen() { echo "db $1"; seq 1 $(($1 % 7 * 150 + 300)) | sed "s/\$/ row of version $1/"; }
# db_run ok|nodirsync|nofsync: --ops versions, committed as that says.
db_run() {
	mkdir -p db && db_gen 0 > db/data && sync db/data db . && sbd_mark db:0 || return
	_i=0
	while [ $_i -lt "$SBD_OPS" ]; do
		_i=$((_i + 1))
		db_gen $_i > db/data.tmp || return
		[ "$1" = nofsync ] || sync db/data.tmp || return
		mv db/data.tmp db/data || return
		[ "$1" = nodirsync ] || sync db || return
		sbd_mark "db:$_i" || return
	done
}
wl_db() { db_run ok; }
wl_db_nodirsync() { db_run nodirsync; }
wl_db_nofsync() { db_run nofsync; }
ck_db() {
	_want=${SBD_MARK_NAME#db:}
	# No version committed yet: the file may be missing or partial.
	case $_want in '' | *[!0-9]*) return 0 ;; esac
	if [ ! -f db/data ]; then
		echo "db/data: missing (version $_want committed)"
		return 1
	fi
	read -r _w _got < db/data 2> /dev/null
	if [ "${_w:-}" != db ] || ! db_uint "${_got:-}"; then
		echo "db/data: not a version (first line: '${_w:-} ${_got:-}', $(stat -c %s db/data) bytes; version $_want committed)"
		return 1
	fi
	if [ "$_got" -lt "$_want" ]; then
		echo "db/data: version $_got, but version $_want was committed"
		return 1
	fi
	if ! db_gen "$_got" | cmp -s - db/data; then
		echo "db/data: version $_got is corrupt ($(stat -c %s db/data) bytes)"
		return 1
	fi
}
