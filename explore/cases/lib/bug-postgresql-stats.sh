# SPDX-License-Identifier: GPL-2.0
# bug-postgresql-stats.sh: PostgreSQL's cumulative statistics across a
# clean shutdown.  Step I starts the server, inserts row I into t in its
# own transaction, and shuts the server down cleanly (pg_ctl stop -m
# fast): the shutdown writes pg_stat/pgstat.stat, which holds t's
# n_tup_ins.  The marks: "up:I" before the server starts for step I+1
# (from there it may be running, and a crash resets the statistics, as
# documented), "n:I" once pg_ctl stop returned after step I.  The check
# starts the server on the crash state and wants rows 1..I, and, when
# the last mark is n:I (the cluster was shut down cleanly), n_tup_ins of
# t at least I.
. "$SBD_CASES/lib/postgresql.sh"

pgstats_workload() {
	[ -n "$PG_BIN" ] || { echo "no PostgreSQL server in /usr/lib/postgresql"; exit 2; }
	mkdir data && chown postgres data && chmod 700 data || exit 1
	pg initdb -k -A trust -U postgres -D "$PWD/data" > /dev/null || exit 1
	pg_start on on on || exit 1
	pg_sql "create table t(i int primary key, v text not null)" || exit 1
	pg_stop
	sync -f . || exit 1
	mark init || exit 1
	i=1
	while [ "$i" -le "$OPS" ]; do
		mark "up:$((i - 1))" || exit 1
		pg_start on on on || exit 1
		pg_sql "insert into t values ($i, $(pg_value "$i"))" || exit 1
		pg pg_ctl -D "$PWD/data" -w -t 600 -m fast stop > /dev/null || exit 1
		# shellcheck disable=SC2034 # PG_UP: read by pg_stop (lib/postgresql.sh)
		PG_UP=0
		rm -rf "$SCRATCH"
		mark "n:$i" || exit 1
		i=$((i + 1))
	done
}

pgstats_check() {
	case ${SBD_MARK_NAME:-} in
	init) want=0 clean=yes ;;
	n:*) want=${SBD_MARK_NAME#n:} clean=yes ;;
	up:*) want=${SBD_MARK_NAME#up:} clean=no ;;
	*) exit 0 ;;
	esac
	[ -d data ] || { echo "data: missing (the set-up was durable)"; exit 1; }
	state=$(LC_ALL=C pg pg_controldata -D "$PWD/data" 2>&1 | sed -n 's/^Database cluster state: *//p')
	if [ $clean = yes ] && [ "$state" != "shut down" ]; then
		echo "pg_control: \"$state\", but the server had been shut down cleanly (mark $SBD_MARK_NAME)"
		exit 1
	fi
	file=missing
	[ ! -f data/pg_stat/pgstat.stat ] || file="$(stat -c %s data/pg_stat/pgstat.stat) bytes"
	pg_start on on on || exit 1
	r=$(pg_sql "select count(*), coalesce(max(i), 0), count(*) filter (where v <> $(pg_value i)),
		(select coalesce(n_tup_ins, 0) from pg_stat_user_tables where relname = 't') from t" 2>&1) ||
		{ echo "select: $(echo "$r" | head -n 2 | tr '\n' ' ')"; exit 1; }
	corrupt=$(grep -c 'corrupted statistics file' "$SCRATCH/log")
	pg_stop
	IFS='|' read -r rows last bad ins <<-EOF
	$r
	EOF
	[ "$rows" = "$last" ] || { echo "rows: $rows, but the last is $last: a transaction is missing"; exit 1; }
	[ "$bad" = 0 ] || { echo "$bad rows with a wrong value"; exit 1; }
	judge durable "$last" "$want" || exit 1
	if [ $clean = yes ] && [ "${ins:-0}" -lt "$want" ]; then
		echo "statistics lost across a clean shutdown: n_tup_ins of t is ${ins:-none}, $want rows were inserted (pg_stat/pgstat.stat: $file; 'corrupted statistics file' logged $corrupt times)"
		exit 1
	fi
}
