# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # level, want: set by check_begin (common.sh)
# bug-redis-acl.sh: Redis's ACL file (aclfile) on the disk under test.
# Step I adds user uI with ACL SETUSER and then saves the ACL file with
# ACL SAVE, answered OK; the check starts the server on the crash state
# (it loads the ACL file, as after a reboot) and lists the users.  The
# server runs as lib/redis.sh's does: a Unix socket off the disk, always
# shut down before the script ends.
. "$SBD_CASES/lib/redis.sh"

acl_start() {
	redis_server --appendonly no --aclfile "$PWD/data/users.acl"
}

acl_workload() {
	# The set-up: an empty ACL file (the server needs it to start),
	# made durable by other means.
	mkdir data && : > data/users.acl && sync . data/users.acl || exit 1
	acl_start || exit 1
	mark init || exit 1
	each_step acl_add
}

acl_add() { # I: add user uI and save the ACL file
	answered_ok "ACL SETUSER u$1" redis-cli -s "$SOCK" acl setuser "u$1" on ">pw$1" "~k$1:*" +get &&
		answered_ok "ACL SAVE (step $1)" redis-cli -s "$SOCK" acl save
}

acl_check() { # durable|consistent
	check_begin "$1" data/users.acl
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
