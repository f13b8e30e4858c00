# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # level, want: set by check_begin (common.sh)
# postgresql.sh: a PostgreSQL cluster (initdb -k: page checksums) on the
# disk under test.  Step I inserts row I (a value of 1,000 to 6,000
# bytes, a function of I) in its own transaction with psql; the check
# starts the server on the crash state, which runs crash recovery, and
# reads the table back.  The server runs as postgres, listens on a
# socket off the disk and is always stopped before the script ends.
. "$SBD_CASES/lib/common.sh"

PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2> /dev/null | sort -V | tail -n 1)

pg() { _p=$1; shift; runuser -u postgres -- "$PG_BIN/$_p" "$@"; }
pg_sql() { runuser -u postgres -- "$PG_BIN/psql" -X -q -A -t -h "$SCRATCH" -d postgres -v ON_ERROR_STOP=1 -c "$1"; }

pg_start() { # FSYNC SYNCHRONOUS_COMMIT FULL_PAGE_WRITES
	scratch
	chmod 777 "$SCRATCH"
	trap 'pg_stop' EXIT
	# A time limit on a hang (recovery included), not a measurement.
	pg pg_ctl -D "$PWD/data" -w -t 600 -l "$SCRATCH/log" -o "-k $SCRATCH -c listen_addresses='' \
		-c fsync=$1 -c synchronous_commit=$2 -c full_page_writes=$3 -c shared_buffers=16MB \
		-c max_wal_size=64MB -c checkpoint_timeout=1h" start > /dev/null 2>&1 || {
		echo "postgres did not start: $(grep -v '^ *$' "$SCRATCH/log" | tail -n 3 | tr '\n' ' ')"
		return 1
	}
	PG_UP=1
}

pg_stop() {
	[ "${PG_UP:-0}" = 1 ] || return 0
	pg pg_ctl -D "$PWD/data" -w -t 600 -m fast stop > /dev/null 2>&1
	PG_UP=0
	rm -rf "$SCRATCH"
}

pg_value() {
	echo "substr(repeat(($1)::text || '.', 3000), 1, 1000 + ($1) * 397 % 5000)"
}

postgresql_workload() { # FSYNC SYNCHRONOUS_COMMIT FULL_PAGE_WRITES
	[ -n "$PG_BIN" ] || { echo "no PostgreSQL server in /usr/lib/postgresql"; exit 2; }
	mkdir data && chown postgres data && chmod 700 data || exit 1
	pg initdb -k -A trust -U postgres -D "$PWD/data" > /dev/null || exit 1
	pg_start "$@" || exit 1
	pg_sql "create table t(i int primary key, v text not null)" || exit 1
	sync -f . || exit 1
	mark init || exit 1
	each_step pg_insert
}

pg_insert() { # I: insert row I
	pg_sql "insert into t values ($1, $(pg_value "$1"))"
}

postgresql_check() { # durable|consistent
	check_begin "$1" data
	pg_start on on on || exit 1
	r=$(pg_sql "select count(*), coalesce(max(i), 0), count(*) filter (where v <> $(pg_value i)) from t" 2>&1) ||
		{ echo "select: $(echo "$r" | head -n 2 | tr '\n' ' ')"; exit 1; }
	pg_stop
	IFS='|' read -r rows last bad <<-EOF
	$r
	EOF
	[ "$rows" = "$last" ] || { echo "rows: $rows, but the last is $last: a transaction is missing"; exit 1; }
	[ "$bad" = 0 ] || { echo "$bad rows with a wrong value"; exit 1; }
	judge "$level" "$last" "$want"
}
