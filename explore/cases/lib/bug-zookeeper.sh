# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # level, want: set by check_begin (common.sh)
# bug-zookeeper.sh: a standalone ZooKeeper server (Debian's zookeeper
# package, run with java directly, not as a service) with its dataDir on
# the disk under test.  Step I creates znode /kI (bug-zookeeper.py); the
# check starts the server on the crash state (it loads the newest valid
# snapshot and replays the transaction log, as after a reboot) and reads
# the znodes back.  The server listens on a loopback port and is always
# stopped before the script ends.
. "$SBD_CASES/lib/common.sh"

ZK_CP=/etc/zookeeper/conf:/usr/share/java/zookeeper.jar

zk_start() {
	scratch
	trap 'zk_stop' EXIT
	# A free loopback port.
	ZK_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	cat > "$SCRATCH/zoo.cfg" <<-CFG
	tickTime=2000
	dataDir=$PWD/data
	clientPort=$ZK_PORT
	clientPortAddress=127.0.0.1
	admin.enableServer=false
	CFG
	java -cp "$ZK_CP" -Dzookeeper.log.dir="$SCRATCH" org.apache.zookeeper.server.ZooKeeperServerMain \
		"$SCRATCH/zoo.cfg" > "$SCRATCH/zk.log" 2>&1 &
	ZK_PID=$!
	# Loading the snapshot and the log is part of the start.
	await_server zookeeper "$ZK_PID" zk_serves "$ZK_PORT" || {
		# The server logs through slf4j, which has no binding here:
		# say what it found instead.
		kill "$ZK_PID" 2> /dev/null
		wait "$ZK_PID" 2> /dev/null
		echo "zookeeper did not start (exit $?): $(grep -E 'ERROR|Exception' "$SCRATCH/zk.log" | head -n 2 | tr '\n' ' ')" \
			"data/version-2: $(cd data/version-2 2> /dev/null && stat -c '%n %s bytes' -- * | tr '\n' ',')"
		ZK_PID=""
		return 1
	}
}

# zk_serves PORT: ZooKeeper answers "srvr" with its mode.
zk_serves() {
	python3 -c 'import socket, sys; s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1); s.sendall(b"srvr"); sys.exit(b"Mode" not in s.recv(4096))' "$1"
}

zk_stop() {
	if [ -n "${ZK_PID:-}" ]; then
		kill "$ZK_PID" 2> /dev/null
		wait "$ZK_PID" 2> /dev/null
		ZK_PID=""
	fi
	[ -z "${SCRATCH:-}" ] || rm -rf "$SCRATCH"
	SCRATCH=""
}

zk_workload() {
	mkdir data && sync . || exit 1
	mark init || exit 1
	zk_start || exit 1
	{ python3 "$SBD_CASES/lib/bug-zookeeper.py" workload "127.0.0.1:$ZK_PORT" "$OPS" 2>&1 || echo "exit $?"; } |
		while read -r i; do
			case $i in
			[0-9]*) mark "n:$i" || exit 1 ;;
			*) echo "bug-zookeeper.py: $i"; exit 1 ;;
			esac
		done || exit 1
	zk_stop
}

zk_check() { # durable|consistent
	check_begin "$1" data
	zk_start || exit 1
	n=$(python3 "$SBD_CASES/lib/bug-zookeeper.py" check "127.0.0.1:$ZK_PORT" 2>&1) ||
		{ echo "$n" | tail -n 3; exit 1; }
	zk_stop
	judge "$level" "$n" "$want"
}
