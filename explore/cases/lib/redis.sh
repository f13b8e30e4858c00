# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # level, want: set by check_begin (common.sh)
# redis.sh: a Redis server with its append-only file on the disk under
# test.  Step I is "SET kI vI", answered OK; the check starts the server
# on the crash state (it loads the AOF, as after a reboot) and reads the
# keys back.  The server listens on a Unix socket off the disk and is
# always shut down before the script ends: the mount must be free.
. "$SBD_CASES/lib/common.sh"

redis_start() { # APPENDFSYNC
	redis_server --appendonly yes --appendfsync "$1" --aof-use-rdb-preamble no
}

# redis_server OPTION...: start the server with its data in ./data and
# these options besides.
redis_server() {
	scratch
	SOCK=$SCRATCH/redis.sock
	trap 'redis_stop' EXIT
	redis-server --port 0 --unixsocket "$SOCK" --logfile "$SCRATCH/redis.log" \
		--dir "$PWD/data" --save '' "$@" > "$SCRATCH/start.out" 2>&1 &
	REDIS_PID=$!
	await_server redis-server "$REDIS_PID" redis_pong || {
		echo "redis-server did not start: $(cat "$SCRATCH/start.out" "$SCRATCH/redis.log" 2> /dev/null |
			grep -v '^ *$' | tail -n 3 | tr '\n' ' ')"
		return 1
	}
}

redis_pong() { [ "$(redis-cli -s "$SOCK" ping 2> /dev/null)" = PONG ]; }

redis_stop() {
	[ -n "${SOCK:-}" ] || return 0
	redis-cli -s "$SOCK" shutdown nosave > /dev/null 2>&1 || kill "$REDIS_PID" 2> /dev/null
	# Shutting down finishes with the AOF's last fsync: wait for the
	# process to end, so that nothing holds the mount.
	wait "$REDIS_PID" 2> /dev/null
	rm -rf "$SCRATCH"
	SOCK=""
}

redis_workload() { # APPENDFSYNC
	mkdir data && sync . || exit 1
	redis_start "$1" || exit 1
	mark init || exit 1
	each_step redis_set
}

redis_set() { # I: SET kI to a value of I's
	answered_ok "SET k$1" redis-cli -s "$SOCK" set "k$1" "$(seq -s , 1 $(($1 * 50)))v$1"
}

redis_check() { # durable|consistent
	check_begin "$1" data
	redis_start always || exit 1
	# The keys there must be k1..kN, each whole.
	n=$(redis-cli -s "$SOCK" dbsize)
	i=1
	while [ "$i" -le "$n" ]; do
		v=$(redis-cli -s "$SOCK" get "k$i")
		[ "$v" = "$(seq -s , 1 $((i * 50)))v$i" ] ||
			{ echo "k$i: $(echo "$v" | cut -c1-40) (of $n keys)"; exit 1; }
		i=$((i + 1))
	done
	redis_stop
	judge "$level" "$n" "$want"
}
