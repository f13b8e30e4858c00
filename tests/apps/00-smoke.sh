# SPDX-License-Identifier: GPL-2.0
# Smoke: the full root works with sbd.  sqlite3, git and redis each
# write through ext4 on an sbd disk with a write cache and read back
# what they wrote after a remount; then one short sbd-explore run on a
# sqlite workload.

# Requires: sbd.ko; the root's sqlite3, git, redis-server, redis-cli,
# mkfs.ext4; sbd-explore.
# QUICK=1: in the quick run (QUICK=1 scripts/run-apps.sh).

check load load_sbd cache_mb=32 || return
check mkfs mkfs.ext4 -q /dev/sbd0 || return
check mount mount /dev/sbd0 "$MNT" || return

# remount: everything the applications wrote goes to the disk and is
# read back from it, not from the page cache.
remount() { umount "$MNT" && mount /dev/sbd0 "$MNT"; }

sqlite_rw() {
	sqlite3 "$MNT/t.db" "create table t(x); insert into t values(1), (2), (39);" &&
		remount && [ "$(sqlite3 "$MNT/t.db" "select sum(x) from t")" = 42 ]
}
check sqlite3 sqlite_rw

git_rw() {
	git init -q "$MNT/repo" && cd "$MNT/repo" &&
		seq 1 1000 > numbers && git add numbers &&
		git -c user.name=sbd -c user.email=sbd@localhost commit -q -m numbers &&
		cd / && remount && cd "$MNT/repo" &&
		git fsck --full --strict && [ "$(git log --format=%s)" = numbers ] &&
		git diff --quiet HEAD
}
check git git_rw
cd /tests || return

redis_rw() {
	mkdir -p "$MNT/redis" &&
		redis-server --port 0 --unixsocket "$TMP/redis.sock" --dir "$MNT/redis" \
			--daemonize yes --pidfile "$TMP/redis.pid" --save "" \
			--appendonly yes --appendfsync always --logfile "$TMP/redis.log" || return
	for _i in $(seq 50); do
		[ -S "$TMP/redis.sock" ] && break
		sleep 0.2
	done
	_pid=$(cat "$TMP/redis.pid")
	redis-cli -s "$TMP/redis.sock" set answer 42 | grep -qx OK &&
		[ "$(redis-cli -s "$TMP/redis.sock" get answer)" = 42 ] &&
		redis-cli -s "$TMP/redis.sock" shutdown save >/dev/null 2>&1
	for _i in $(seq 50); do
		kill -0 "$_pid" 2>/dev/null || break
		sleep 0.2
	done
	! kill -0 "$_pid" 2>/dev/null && remount &&
		redis-check-rdb "$MNT/redis/dump.rdb" >/dev/null &&
		redis-check-aof "$MNT/redis/appendonlydir/appendonly.aof.manifest" >/dev/null ||
		{ tail -n 5 "$TMP/redis.log"; return 1; }
}
check redis redis_rw

# The explorer makes its own filesystem: the disk must not be mounted.
check umount umount "$MNT" || return
cd "$TMP" || return
check explore-sqlite sbd-explore --fs ext4 \
	--workload 'sqlite3 t.db "create table t(x); insert into t values(1);"' \
	--check 'sqlite3 t.db "pragma integrity_check" | grep -qx ok' \
	--max-points 3 --random 1 --torn 1 -q
cd /tests || return
