# SPDX-License-Identifier: GPL-2.0
# bug-redis-acl.sh: Redis's ACL file (aclfile) on the disk under test.
# Step I adds user uI with ACL SETUSER and then saves the ACL file with
# ACL SAVE, answered OK; the check starts the server on the crash state
# (it loads the ACL file, as after a reboot) and lists the users.  The
# server runs as lib/redis.sh's does: a Unix socket off the disk, always
# shut down before the script ends.
. "$SBD_CASES/lib/redis.sh"

acl_start() {
	scratch
	SOCK=$SCRATCH/redis.sock
	trap 'redis_stop' EXIT
	redis-server --daemonize yes --port 0 --unixsocket "$SOCK" \
		--pidfile "$SCRATCH/redis.pid" --logfile "$SCRATCH/redis.log" \
		--dir "$PWD/data" --save '' --appendonly no \
		--aclfile "$PWD/data/users.acl" > "$SCRATCH/start.out" 2>&1 ||
		{ echo "redis-server: $(tail -n 3 "$SCRATCH/start.out")"; exit 2; }
	# A time limit on a hang, not a measurement.
	t=0
	until [ "$(redis-cli -s "$SOCK" ping 2> /dev/null)" = PONG ]; do
		t=$((t + 1))
		if [ $t -gt 600 ] || ! kill -0 "$(cat "$SCRATCH/redis.pid" 2> /dev/null)" 2> /dev/null; then
			[ $t -le 600 ] || echo "redis-server: no answer in 60 s"
			echo "redis-server did not start: $(grep -v '^ *$' "$SCRATCH/redis.log" | tail -n 3 | tr '\n' ' ')"
			return 1
		fi
		sleep 0.1
	done
}

acl_workload() {
	# The set-up: an empty ACL file (the server needs it to start),
	# made durable by other means.
	mkdir data && : > data/users.acl && sync . data/users.acl || exit 1
	acl_start || exit 1
	mark init || exit 1
	i=1
	while [ "$i" -le "$OPS" ]; do
		r=$(redis-cli -s "$SOCK" acl setuser "u$i" on ">pw$i" "~k$i:*" +get) || exit 1
		[ "$r" = OK ] || { echo "ACL SETUSER u$i: $r"; exit 1; }
		r=$(redis-cli -s "$SOCK" acl save) || exit 1
		[ "$r" = OK ] || { echo "ACL SAVE (step $i): $r"; exit 1; }
		mark "n:$i" || exit 1
		i=$((i + 1))
	done
}

acl_check() { # durable|consistent
	level=$1 want=$(committed)
	[ "$want" != none ] || exit 0
	[ -f data/users.acl ] || { echo "data/users.acl: missing (the set-up was durable)"; exit 1; }
	# A file the server refuses is a failure: it does not start.
	acl_start || exit 1
	users=$(redis-cli -s "$SOCK" acl users) || { echo "ACL USERS failed"; exit 1; }
	redis_stop
	# The users there must be u1..uN (and default), each with its rules.
	n=$(echo "$users" | grep -c '^u[0-9]*$')
	i=1
	while [ "$i" -le "$n" ]; do
		echo "$users" | grep -qx "u$i" ||
			{ echo "users: $(echo "$users" | tr '\n' ' ')- u$i is missing"; exit 1; }
		i=$((i + 1))
	done
	judge "$level" "$n" "$want"
}
