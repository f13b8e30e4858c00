# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # level, want: set by check_begin (common.sh)
# sqlite.sh: SQLite, its sqlite3 shell and Python's sqlite3 module (the
# same library).  Step I inserts row I, a
# value of 1,000 to 6,000 bytes (overflow pages) that is a function of I,
# in its own transaction, with the journal mode and synchronous level of
# the case.
. "$SBD_CASES/lib/common.sh"

# sqlite_value EXPR: the SQL for row EXPR's value.
sqlite_value() {
	echo "substr(replace(hex(zeroblob(3000)), '00', ($1) || '.'), 1, 1000 + ($1) * 397 % 5000)"
}

sqlite_workload() { # JOURNAL_MODE SYNCHRONOUS
	sqlite3 db "pragma journal_mode=$1; create table t(i integer primary key, v text not null);" \
		> /dev/null || exit 1
	# The database file's directory entry: the set-up, not a step.
	sync db . || exit 1
	mark init || exit 1
	# The steps on one connection (sqlite.py says why), through
	# Python's sqlite3 module: the same library as the sqlite3 shell.
	{ python3 "$SBD_CASES/lib/sqlite.py" "$1" "$2" "$OPS" "$(sqlite_value @)" || echo "exit $?"; } |
		mark_steps sqlite.py
}

sqlite_check() { # durable|consistent
	check_begin "$1" db
	r=$(sqlite3 db "pragma integrity_check;" 2>&1)
	[ "$r" = ok ] || { echo "integrity_check: $(echo "$r" | head -n 3 | tr '\n' ' ')"; exit 1; }
	r=$(sqlite3 -separator ' ' db \
		"select count(*), coalesce(max(i), 0), sum(v != $(sqlite_value i)) from t;" 2>&1) ||
		{ echo "select: $r"; exit 1; }
	read -r rows last bad <<-EOF
	$r
	EOF
	[ "$rows" = "$last" ] || { echo "rows: $rows, but the last is $last: a transaction is missing"; exit 1; }
	[ "${bad:-0}" = 0 ] || { echo "$bad rows with a wrong value"; exit 1; }
	judge "$level" "$last" "$want"
}
