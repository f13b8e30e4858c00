# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # level, want: set by check_begin (common.sh)
# kv.sh: key-value stores driven by kv.py (LMDB, LevelDB).  The Python
# program prints each step once its put returned; the shell marks it.
. "$SBD_CASES/lib/common.sh"

kv_workload() { # ENGINE OPTION
	mkdir db && sync . || exit 1
	scratch
	{ python3 "$SBD_CASES/lib/kv.py" workload "$1" "$2" "$OPS" || echo "exit $?"; } |
		mark_steps kv.py
}

kv_check() { # ENGINE durable|consistent
	check_begin "$2" db
	n=$(python3 "$SBD_CASES/lib/kv.py" check "$1" 2>&1) || { echo "$n" | tail -n 3; exit 1; }
	judge "$level" "$n" "$want"
}
