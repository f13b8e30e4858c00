# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # level, want: set by check_begin (common.sh)
# bug-etcd.sh: a one-member etcd cluster (Debian's etcd-server, run
# directly, not as a service) with its data directory on the disk under
# test.  Step I is "etcdctl put kI vI", answered OK; the check starts
# etcd on the crash state (it replays its write-ahead log, as after a
# reboot) and reads the keys back.  etcd listens on loopback ports and
# is always stopped before the script ends.
. "$SBD_CASES/lib/common.sh"

etcd_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

etcd_start() {
	scratch
	trap 'etcd_stop' EXIT
	ETCD_URL=http://127.0.0.1:$(etcd_port)
	_peer=http://127.0.0.1:$(etcd_port)
	etcd --name sbd --data-dir "$PWD/data" --listen-client-urls "$ETCD_URL" \
		--advertise-client-urls "$ETCD_URL" --listen-peer-urls "$_peer" \
		--initial-advertise-peer-urls "$_peer" --initial-cluster "sbd=$_peer" \
		--listen-metrics-urls "" > "$SCRATCH/etcd.log" 2>&1 &
	ETCD_PID=$!
	# Replaying the write-ahead log is part of the start.
	await_server etcd "$ETCD_PID" etcd_healthy || {
		echo "etcd did not start: $(etcd_said)"
		return 1
	}
}

# etcd_healthy: etcd answers its health probe.  A member restarted from
# a write-ahead log with no entries at all has no voter, itself
# included, and nothing to replay that would add one: it can never
# serve, and says so only with "publish error" lines, forever.  It is
# stopped at once rather than waited for.
etcd_healthy() {
	if grep -q 'etcdserver: restarting member .* at commit index 0' "$SCRATCH/etcd.log" &&
		grep -q 'newRaft .*\[peers: \[\], .* lastindex: 0,' "$SCRATCH/etcd.log"; then
		echo "it restarted the member from a write-ahead log with no entries: no voter, it can never serve" \
			> "$SCRATCH/hopeless"
		kill "$ETCD_PID"
		return 1
	fi
	ETCDCTL_API=3 etcdctl --endpoints "$ETCD_URL" --dial-timeout 1s endpoint health
}

# etcd_said: why etcd did not serve: the check's own diagnosis, else
# from its log (JSON or, 3.4's default, capnslog's "E |" lines) its
# errors, else its last words.
etcd_said() {
	{ cat "$SCRATCH/hopeless" 2> /dev/null ||
		grep -E '"level":"(error|fatal|panic)"| [EC] \| |panic:' "$SCRATCH/etcd.log" ||
		tail -n 2 "$SCRATCH/etcd.log"; } | head -n 2 | cut -c1-300 | tr '\n' ' '
}

etcd_stop() {
	[ -n "${ETCD_PID:-}" ] || return 0
	kill "$ETCD_PID" 2> /dev/null
	wait "$ETCD_PID" 2> /dev/null
	ETCD_PID=""
	rm -rf "$SCRATCH"
}

ectl() { ETCDCTL_API=3 etcdctl --endpoints "$ETCD_URL" --command-timeout 60s "$@"; }

etcd_value() { seq -s , 1 $(($1 * 40)) | sed "s/\$/v$1/"; }

# etcd_workload first|later: with "first", etcd's first start (its
# write-ahead log made, the member's bootstrap entries written) is
# explored; with "later" it is part of the set-up, made durable (etcd
# answered its health probe, then the file system is synced) before the
# mark "init".
etcd_workload() {
	mkdir data && chmod 700 data && sync . || exit 1
	[ "$1" = later ] || mark init || exit 1
	etcd_start || exit 1
	[ "$1" = first ] || { sync -f . && mark init; } || exit 1
	each_step etcd_put
	etcd_stop
}

etcd_put() { # I: put kI
	answered_ok "put k$1" ectl put "k$1" "$(etcd_value "$1")"
}

etcd_check() { # durable|consistent
	check_begin "$1" data
	etcd_start || exit 1
	n=$(ectl get --prefix --keys-only k | grep -c '^k[0-9]')
	i=1
	while [ "$i" -le "$n" ]; do
		v=$(ectl get --print-value-only "k$i")
		[ "$v" = "$(etcd_value "$i")" ] ||
			{ echo "k$i: $(echo "$v" | cut -c1-40) (of $n keys)"; exit 1; }
		i=$((i + 1))
	done
	etcd_stop
	judge "$level" "$n" "$want"
}
