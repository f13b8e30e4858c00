# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # level, want: set by check_begin (common.sh)
# bug-leveldb-log.sh: LevelDB bulk loads closed by a synchronous write
# (bug-leveldb-log.py); the shell marks each step once its synchronous
# write returned.
. "$SBD_CASES/lib/common.sh"

ldblog_workload() {
	mkdir db && sync . || exit 1
	{ python3 "$SBD_CASES/lib/bug-leveldb-log.py" workload "$OPS" || echo "exit $?"; } |
		mark_steps bug-leveldb-log.py
}

ldblog_check() { # durable|consistent
	check_begin "$1" db
	n=$(python3 "$SBD_CASES/lib/bug-leveldb-log.py" check 2>&1) || { echo "$n" | tail -n 3; exit 1; }
	judge "$level" "$n" "$want"
}
