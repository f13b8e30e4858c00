#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-bench.sh SIZE_MB ROUNDS RUNTIME RAMP TUNE [ONLY [DEVS [LBS [SIZES [PROFILE]]]]]:
# the in-VM side of
# scripts/bench.sh (not a test: vm-run-areas.sh runs only tests/NN-*.sh).
#
# Loads sbd, brd, null_blk (memory-backed, and "nullb-floor" with no
# memory: blk-mq's request path and nothing else) and zram at SIZE_MB MiB
# each (plus any extra sbd builds packed as /bench/ko/NAME.ko, disk
# /dev/NAME0, loaded with the parameters in NAME.params), fills every
# device with the same random data, then runs each fio workload on each
# device, ROUNDS times, the devices interleaved (and rotated) inside each
# round.  "sbd" runs with the queue settings it loads with; "sbd-tuned"
# is the same disk with TUNE ("iostats=0 nomerges=2") written to sysfs.
# Lines starting "@@ bench" reach the host, which does the arithmetic:
#   @@ bench setting DEV KEY=VALUE...
#   @@ bench result ROUND DEV WORKLOAD VALUE      (IOPS, or MiB/s for 1M)
#   @@ bench memcpy ROUND HOT_MIBS STREAM_MIBS MOVSB_MIBS
#   @@ bench lbs ROUND BLOCK_SIZE WORKLOAD VALUE (sbd alone, see LBS below)
#   @@ bench size DEV SIZE_MB LOAD_MS USED_AFTER_LOAD_MB USED_AFTER_FILL_MB
#   @@ bench profile DEV WORKLOAD FUNCTION CALLS_PER_IO
#   @@ bench profile-total DEV WORKLOAD CALLS_PER_IO EVENTS_LOST
. ./vm-lib.sh
SIZE_MB=${1:-512}
ROUNDS=${2:-3}
RUNTIME=${3:-5}
RAMP=${4:-1}
TUNE=${5:-iostats=0 nomerges=2}
TUNE=$(echo "$TUNE" | tr ',' ' ')
# ONLY: comma-separated workload names; DEVS: comma-separated device
# labels (both "all" for everything; for experiments).
ONLY=$(echo "${6:-all}" | tr ',' '|')
DEVPAT=$(echo "${7:-all}" | tr ',' '|')
say() { echo "@@ bench $*"; }
note() { echo "@@ bench note $*"; }
mkdir -p "$TMP"

say "info kernel $(uname -r) cpus $(nproc) fio $(fio --version) size_mb $SIZE_MB rounds $ROUNDS runtime $RUNTIME ramp $RAMP"

# ---- load time and memory against size --------------------------------------
# SIZES: comma-separated disk sizes in MiB, or "none".  First, while
# nothing else holds memory: sbd and brd alone at each size, the time
# insmod/modprobe takes and the memory in use (MemTotal - MemAvailable,
# against before the load) after loading and after writing the whole
# disk once.  sbd allocates and zeroes its whole store at load; brd
# allocates a page when it is first written.
mem_used_mb() {
	awk '/^MemTotal:/ { t = $2 } /^MemAvailable:/ { a = $2 }
		END { printf "%d", (t - a) / 1024 }' /proc/meminfo
}
# Guest time in ms (10 ms steps): busybox date has no %N.
now_ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }
for mb in $(echo "${9:-none}" | tr ',' ' '); do
	[ "$mb" = none ] && break
	avail=$(awk '/^MemAvailable:/ { printf "%d", $2 / 1024 }' /proc/meminfo)
	if [ $((mb + 512)) -gt "$avail" ]; then
		note "size $mb MiB skipped: $avail MiB available"
		continue
	fi
	for dev in sbd brd; do
		sync; echo 3 > /proc/sys/vm/drop_caches
		base=$(mem_used_mb)
		t0=$(now_ms)
		if [ $dev = sbd ]; then
			insmod "$SBD_KO" nsectors=$((mb * 2048)) hardsect_size=512 && node=/dev/sbd0
		else
			modprobe brd rd_nr=1 rd_size=$((mb * 1024)) max_part=0 && node=/dev/ram0
		fi || { note "size $mb: $dev failed to load"; continue; }
		t1=$(now_ms)
		loaded=$(( $(mem_used_mb) - base ))
		dd if=/dev/zero of="$node" bs=1M count="$mb" oflag=direct 2>/dev/null ||
			note "size $mb: filling $dev failed"
		filled=$(( $(mem_used_mb) - base ))
		say "size $dev $mb $((t1 - t0)) $loaded $filled"
		if [ $dev = sbd ]; then rmmod sbd; else rmmod brd; fi
	done
done

# ---- devices ------------------------------------------------------------
# DEVS: "LABEL:/dev/NODE" words, in benchmark order.
DEVS=""
add_dev() {
	[ "$DEVPAT" = all ] || echo "$1" | grep -qxE "$DEVPAT" || return 0
	DEVS="$DEVS $1:$2"
}
nsect=$((SIZE_MB * 2048))

insmod "$SBD_KO" nsectors=$nsect hardsect_size=512 || note "sbd failed to load"
[ -b /dev/sbd0 ] && add_dev sbd /dev/sbd0 && add_dev sbd-tuned /dev/sbd0
for ko in /bench/ko/*.ko; do
	[ -f "$ko" ] || continue
	n=$(basename "$ko" .ko)
	params=$(tr ',' ' ' < "/bench/ko/$n.params" 2>/dev/null)
	note "$n loaded with: nsectors=$nsect hardsect_size=512 $params"
	# shellcheck disable=SC2086 # module parameters, one word each
	insmod "$ko" nsectors=$nsect hardsect_size=512 $params || note "$n failed to load"
	[ -b "/dev/${n}0" ] && add_dev "$n" "/dev/${n}0"
done
modprobe brd rd_nr=1 rd_size=$((SIZE_MB * 1024)) max_part=0 || note "brd failed to load"
[ -b /dev/ram0 ] && add_dev brd /dev/ram0

# null_blk: size in MiB only through configfs.  queue_mode=2 (blk-mq),
# memory_backed, 512-byte blocks, irqmode=0 (complete inline, like sbd
# and brd; the default is a softirq), one submit queue per CPU.
modprobe null_blk nr_devices=0 queue_mode=2 || note "null_blk failed to load"
mount -t configfs configfs /sys/kernel/config 2>/dev/null
nb=/sys/kernel/config/nullb/nullb0
if mkdir "$nb" 2>/dev/null; then
	echo 2 > $nb/queue_mode
	echo "$SIZE_MB" > $nb/size
	echo 512 > $nb/blocksize
	echo 1 > $nb/memory_backed
	echo 0 > $nb/irqmode
	nproc > $nb/submit_queues
	echo 128 > $nb/hw_queue_depth
	echo 1 > $nb/power || note "null_blk power=1 failed"
fi
[ -b /dev/nullb0 ] && add_dev null_blk /dev/nullb0
# The floor: the same null_blk with no memory behind it (reads return
# whatever, writes go nowhere): the cheapest a blk-mq driver can be.
nf=/sys/kernel/config/nullb/nullb1
if mkdir "$nf" 2>/dev/null; then
	for kv in queue_mode=2 size=$SIZE_MB blocksize=512 memory_backed=0 \
		irqmode=0 submit_queues=$(nproc) hw_queue_depth=128; do
		echo "${kv#*=}" > "$nf/${kv%%=*}"
	done
	echo 1 > $nf/power || note "null_blk floor power=1 failed"
fi
[ -b /dev/nullb1 ] && add_dev nullb-floor /dev/nullb1

# zram: default compressor; its logical block is fixed at 4096 bytes.
modprobe zram num_devices=1 || note "zram failed to load"
echo "${SIZE_MB}M" > /sys/block/zram0/disksize 2>/dev/null
[ -b /dev/zram0 ] && add_dev zram /dev/zram0

# rq-based devices get scheduler "none" (sbd's default already); the
# bio-based ones (brd, zram) have none at all.
for d in $DEVS; do
	b=$(basename "${d#*:}")
	[ -w /sys/block/"$b"/queue/scheduler ] && echo none > /sys/block/"$b"/queue/scheduler 2>/dev/null
done

# ---- settings -------------------------------------------------------------
KEYS="scheduler iostats nomerges add_random rq_affinity wbt_lat_usec nr_requests max_sectors_kb logical_block_size"
qget() {
	v=$(cat "/sys/block/$1/queue/$2" 2>/dev/null) || v=n/a
	case $2 in scheduler) v=$(echo "$v" | sed 's/.*\[\(.*\)\].*/\1/; s/ .*//') ;; esac
	[ -n "$v" ] || v=n/a
	echo "$v"
}
# Settings each label runs with: "sbd" restores what sbd loaded with.
SBD_SHIPPED=""
for k in iostats nomerges add_random wbt_lat_usec; do SBD_SHIPPED="$SBD_SHIPPED $k=$(qget sbd0 $k)"; done
settings_for() {
	case $1 in
	sbd) echo "$SBD_SHIPPED" ;;
	sbd-tuned) echo "$TUNE" ;;
	*) echo "" ;;
	esac
}
apply() {
	b=$(basename "$2")
	for kv in $(settings_for "$1"); do
		echo "${kv#*=}" > "/sys/block/$b/queue/${kv%%=*}" 2>/dev/null ||
			note "cannot set $kv on $b"
	done
}
report_settings() {
	for d in $DEVS; do
		l=${d%%:*} n=${d#*:}
		b=$(basename "$n")
		apply "$l" "$n"
		line="setting $l dev=$b"
		for k in $KEYS; do line="$line $k=$(qget "$b" "$k")"; done
		line="$line hw_queues=$(ls -d /sys/block/"$b"/mq/* 2>/dev/null | wc -l)"
		say "$line"
	done
}
report_settings

# ---- the same random data on every device ----------------------------------
head -c $((SIZE_MB << 20)) /dev/urandom > "$TMP/random.bin"
head -c $((4 << 20)) "$TMP/random.bin" | sha256sum > "$TMP/want"
for d in $DEVS; do
	l=${d%%:*} n=${d#*:}
	case $l in sbd-tuned | nullb-floor) continue ;; esac
	dd if="$TMP/random.bin" of="$n" bs=1M oflag=direct 2>/dev/null || note "fill $l failed"
	got=$(head -c $((4 << 20)) "$n" | sha256sum)
	[ "$got" = "$(cat "$TMP/want")" ] || note "fill $l: read-back differs"
done
rm -f "$TMP/random.bin"
note "filled with $SIZE_MB MiB of random data; zram mm_stat: $(cat /sys/block/zram0/mm_stat 2>/dev/null)"

# ---- io_uring -------------------------------------------------------------
URING=no
if fio --name=probe --filename="${DEVS##*:}" --ioengine=io_uring --direct=1 \
	--rw=randread --bs=4k --size=1m --io_size=1m > "$TMP/probe" 2>&1; then
	URING=yes
fi
say "info io_uring $URING io_uring_disabled=$(cat /proc/sys/kernel/io_uring_disabled 2>/dev/null || echo n/a)"
[ $URING = yes ] || note "io_uring probe: $(tail -n 2 "$TMP/probe" | tr '\n' ' ')"

# ---- workloads --------------------------------------------------------------
# NAME|ENGINE|fio arguments
WORKLOADS="randread-qd1|libaio|--rw=randread --bs=4k --iodepth=1
randread-qd1-uring|io_uring|--rw=randread --bs=4k --iodepth=1
randread-qd32|libaio|--rw=randread --bs=4k --iodepth=32
randwrite-qd1|libaio|--rw=randwrite --bs=4k --iodepth=1
randwrite-qd1-uring|io_uring|--rw=randwrite --bs=4k --iodepth=1
randwrite-qd32|libaio|--rw=randwrite --bs=4k --iodepth=32
randrw70-2j-qd16|libaio|--rw=randrw --rwmixread=70 --bs=4k --iodepth=16 --numjobs=2
seqread-1m-qd8|libaio|--rw=read --bs=1m --iodepth=8
seqwrite-1m-qd8|libaio|--rw=write --bs=1m --iodepth=8
randread-qd32-uring-batch|io_uring|--rw=randread --bs=4k --iodepth=32 --iodepth_batch_submit=16 --iodepth_batch_complete_min=1 --registerfiles=1 --fixedbufs=1
randwrite-qd32-uring-batch|io_uring|--rw=randwrite --bs=4k --iodepth=32 --iodepth_batch_submit=16 --iodepth_batch_complete_min=1 --registerfiles=1 --fixedbufs=1
randread-2j-qd16-uring-batch|io_uring|--rw=randread --bs=4k --iodepth=16 --numjobs=2 --iodepth_batch_submit=16 --iodepth_batch_complete_min=1 --registerfiles=1 --fixedbufs=1
randread-qd32-uring-reap16|io_uring|--rw=randread --bs=4k --iodepth=32 --iodepth_batch_submit=16 --iodepth_batch_complete_min=16 --registerfiles=1 --fixedbufs=1
randwrite-qd32-uring-reap16|io_uring|--rw=randwrite --bs=4k --iodepth=32 --iodepth_batch_submit=16 --iodepth_batch_complete_min=16 --registerfiles=1 --fixedbufs=1
randwrite-qd1-fsync32|libaio|--rw=randwrite --bs=4k --iodepth=1 --fsync=32
seqwrite-1m-qd8-fsync8|libaio|--rw=write --bs=1m --iodepth=8 --fsync=8"
ALL_WORKLOADS=$WORKLOADS
[ "$ONLY" = all ] || WORKLOADS=$(echo "$WORKLOADS" | grep -E "^($ONLY)\|")
# ONLY=none: no fio rounds (for a run of only the size or LBS tables).
[ "$ONLY" = none ] && ROUNDS=0

# One fio process per round: fio takes seconds to start under TCG, so
# every (workload, device) pair of the round is a stonewalled job of the
# same job file.  Each job's exec_prerun writes its device's sysfs
# settings first (this is how "sbd" and "sbd-tuned" share one disk).
for d in $DEVS; do
	l=${d%%:*} n=${d#*:}
	{
		echo "#!/bin/sh"
		for kv in $(settings_for "$l"); do
			echo "echo ${kv#*=} > /sys/block/$(basename "$n")/queue/${kv%%=*} 2>/dev/null"
		done
		echo "exit 0"
	} > "$TMP/apply-$l.sh"
	chmod +x "$TMP/apply-$l.sh"
done

# shellcheck disable=SC2086 # $DEVS: a list of words, split on purpose
ndev=$(echo $DEVS | wc -w)
r=1
while [ $r -le "$ROUNDS" ]; do
	say "memcpy $r $(/bench/memcpy-bench 2 256 | sed 's/^memcpy hot //; s/ stream / /; s/ movsb / /')"
	job=$TMP/round$r.fio
	{
		echo "[global]"
		echo "direct=1"
		echo "size=${SIZE_MB}m"
		echo "time_based"
		echo "runtime=$RUNTIME"
		echo "ramp_time=$RAMP"
		echo "norandommap"
		echo "randrepeat=0"
		echo "group_reporting"
		echo "$WORKLOADS" | while IFS='|' read -r name engine args; do
			[ "$engine" = io_uring ] && [ $URING = no ] && continue
			# Rotate the device order from round to round.
			i=0
			while [ $i -lt "$ndev" ]; do
				# shellcheck disable=SC2086 # $DEVS: a list of words, split on purpose
				set -- $DEVS
				k=$(( (i + r) % ndev + 1 ))
				eval "d=\${$k}"
				echo "[${d%%:*}@$name]"
				echo "stonewall"
				echo "new_group"
				echo "filename=${d#*:}"
				echo "ioengine=$engine"
				echo "exec_prerun=$TMP/apply-${d%%:*}.sh"
				for a in $args; do echo "${a#--}"; done
				i=$((i + 1))
			done
		done
	} > "$job"
	(cd "$TMP" && fio --output-format=terse --terse-version=3 "$job") \
		> "$TMP/fio.out" 2> "$TMP/fio.err" ||
		note "fio round $r: exit $?: $(tail -n 3 "$TMP/fio.err" | tr '\n' ' ')"
	# terse v3: 3 job name (DEVICE@WORKLOAD), 5 error, 7/8 read KiB/s
	# and IOPS, 48/49 write KiB/s and IOPS; one line per group.
	awk -F';' -v r=$r '$1 == 3 {
		split($3, j, "@")
		if ($5 != 0) { print "@@ bench note fio " $3 " error " $5; next }
		if (j[2] ~ /^seq/) v = sprintf("%.1f", ($7 + $48) / 1024)
		else v = sprintf("%d", $8 + $49)
		print "@@ bench result " r " " j[1] " " j[2] " " v
	}' "$TMP/fio.out"
	r=$((r + 1))
done
# ---- is the plug path taken? ------------------------------------------------
# blk-mq hands a driver's .queue_rqs a whole plugged list only when the
# submitter plugged several requests.  In 1 s of each batched io_uring
# workload on sbd, and of the same workload through libaio (whose
# io_submit() plugs when handed more than 2 I/Os), count plugged lists
# started (block_plug) against requests issued (block_rq_issue), the
# tasks that issued them, and how many I/Os each io_uring_enter() or
# io_submit() carried.  block_unplug is no measure: it fires only when a
# plug goes through the dispatch list (a scheduler, several queues, or a
# flush from schedule()), not when blk-mq issues the plugged requests
# directly or through .queue_rqs.
tr=/sys/kernel/tracing
[ -d $tr/events ] || mount -t tracefs nodev $tr 2>/dev/null
PROBE_EVENTS="block/block_plug block/block_rq_issue syscalls/sys_enter_io_uring_enter syscalls/sys_enter_io_submit"
probe_events() { # 0 or 1
	for e in $PROBE_EVENTS; do
		[ ! -w "$tr/events/$e/enable" ] || echo "$1" > "$tr/events/$e/enable"
	done
}
probe_plug() { # NAME ENGINE ARGS...
	name=$1 engine=$2
	shift 2
	echo > $tr/trace
	probe_events 1
	fio --name=probe --filename=/dev/sbd0 --ioengine="$engine" --direct=1 \
		--time_based --runtime=1 --size="${SIZE_MB}m" "$@" > /dev/null 2>&1
	probe_events 0
	plugs=$(grep -c 'block_plug:' $tr/trace)
	rqs=$(grep -c 'block_rq_issue:' $tr/trace)
	issuers=$(awk '/block_rq_issue:/ { t = $1; sub(/-[0-9]+$/, "", t); n[t]++ }
		END { for (t in n) printf " %s x%d", t, n[t] }' $tr/trace)
	# I/Os handed to the kernel per call, as the tracepoint prints them.
	calls=$(grep -o '\(to_submit\|nr\): [0-9a-fx]*' $tr/trace | awk '{ n[$2]++ }
		END { for (v in n) printf " %s x%d", v, n[v] }')
	note "plug probe $name ($engine) on sbd0: $plugs plugged lists for $rqs requests issued (by$issuers); I/Os per submit call:${calls:- not traced}"
}
if [ $URING = yes ] && [ -b /dev/sbd0 ] && [ -w $tr/events/block/block_plug/enable ]; then
	# Room for every event of 1 s (about 50 bytes each), none overwritten.
	echo 16384 > $tr/buffer_size_kb
	echo "$WORKLOADS" | grep 'uring-batch\|uring-reap' | while IFS='|' read -r name engine args; do
		# shellcheck disable=SC2086 # fio arguments, one word each
		probe_plug "$name" "$engine" $args
		# shellcheck disable=SC2046 # the same arguments
		probe_plug "$name" libaio $(echo "$args" | sed 's/--registerfiles=1//; s/--fixedbufs=1//')
	done
else
	note "plug probe skipped (io_uring $URING, tracefs block_plug missing or no sbd0)"
fi

# ---- kernel function calls per I/O -----------------------------------------
# PROFILE: a workload name (e.g. randread-qd1) or "none".  For each of
# sbd, brd, null_blk, the floor and the no-copy sbd: which kernel
# functions one I/O calls, and how often, from the function tracer
# (every function, no filter).  fio runs the workload in the background;
# once it is past its start-up, the tracer follows fio's processes for
# one second.  Only the task that submits I/O is counted, outside
# interrupts, and every count is divided by that task's submit_bio()
# calls, one per I/O.  Function counts, not instructions: under -icount
# the IOPS tables give instructions per I/O.
PROFILE=${10:-none}
# prof_window NODE ENGINE ARGS...: "@@ bench profile" lines for $l.
prof_window() {
	node=$1 engine=$2
	shift 2
	echo 0 > $tr/tracing_on
	echo > $tr/trace
	fio --name=prof --filename="$node" --ioengine="$engine" --direct=1 \
		--time_based --runtime=60 --size="${SIZE_MB}m" "$@" > /dev/null 2>&1 &
	fpid=$!
	sleep 5
	pidof fio > $tr/set_ftrace_pid
	echo 1 > $tr/tracing_on
	sleep 1
	echo 0 > $tr/tracing_on
	kill "$fpid"
	wait "$fpid"
	lost=$(cat $tr/per_cpu/cpu*/stats | awk '/^overrun:/ { s += $2 } END { print s + 0 }')
	# "  fio-123  [001] d..1.  12.345678: func <-parent": the task that
	# called submit_bio() most; flags without h/s/H/z (no interrupt).
	awk -v d="$l" -v w="$PROFILE" -v lost="$lost" '
		$4 !~ /:$/ { next }
		{ f = $5; sub(/\(.*/, "", f) }
		f == "submit_bio" { ios[$1]++ }
		substr($3, 3, 1) !~ /[hsHz]/ { n[$1 " " f]++ }
		END {
			for (t in ios) if (ios[t] > best) { best = ios[t]; task = t }
			if (!best) { printf "@@ bench note profile %s: no submit_bio traced\n", d; exit }
			for (k in n) {
				split(k, a, " ")
				if (a[1] != task) continue
				per = n[k] / best
				total += per
				if (per >= 0.1) printf "@@ bench profile %s %s %s %.2f\n", d, w, a[2], per
			}
			printf "@@ bench profile-total %s %s %.1f %d\n", d, w, total, lost
			printf "@@ bench note profile %s: %d I/Os traced\n", d, best
		}' $tr/trace
}
if [ "$PROFILE" != none ] && [ -w $tr/set_ftrace_pid ]; then
	line=$(echo "$ALL_WORKLOADS" | grep "^$PROFILE|" | head -1)
	pengine=$(echo "$line" | cut -d'|' -f2)
	pargs=$(echo "$line" | cut -d'|' -f3)
	echo 65536 > $tr/buffer_size_kb
	# 6.16 and later may print each function's arguments: names only.
	[ ! -w $tr/options/func-args ] || echo 0 > $tr/options/func-args
	echo function > $tr/current_tracer
	for d in $DEVS; do
		l=${d%%:*} n=${d#*:}
		case $l in sbd | brd | null_blk | nullb-floor | sbdn) ;; *) continue ;; esac
		apply "$l" "$n"
		# shellcheck disable=SC2086 # fio arguments, one word each
		prof_window "$n" "$pengine" $pargs
	done
	echo nop > $tr/current_tracer
	echo > $tr/set_ftrace_pid
	echo 1408 > $tr/buffer_size_kb
fi

# ---- sbd by logical block size ---------------------------------------------
# LBS: comma-separated hardsect_sizes ("4096,16384,65536"; above the page
# size only on 6.15 and later), or "none".  sbd alone, reloaded with each
# and filled with random data, runs fio at its block size (QD1, QD32)
# and 1 MiB sequential, ROUNDS times; the 4096 figure is the baseline.
LBS=$(echo "${8:-none}" | tr ',' ' ')
[ "$LBS" = none ] && LBS=""
LBS_WORKLOADS="randread-bs-qd1|--rw=randread --iodepth=1
randread-bs-qd32|--rw=randread --iodepth=32
randwrite-bs-qd1|--rw=randwrite --iodepth=1
randwrite-bs-qd32|--rw=randwrite --iodepth=32
seqread-1m-qd8|--rw=read --bs=1m --iodepth=8
seqwrite-1m-qd8|--rw=write --bs=1m --iodepth=8"
for bs in $LBS; do
	rmmod sbd 2>/dev/null
	if ! insmod "$SBD_KO" nsectors=$((nsect * 512 / bs)) hardsect_size="$bs"; then
		note "sbd hardsect_size=$bs failed to load"
		continue
	fi
	dd if=/dev/urandom of=/dev/sbd0 bs=1M count="$SIZE_MB" iflag=fullblock \
		oflag=direct 2>/dev/null ||
		note "fill sbd hardsect_size=$bs failed"
	r=1
	while [ $r -le "$ROUNDS" ]; do
		job=$TMP/lbs$bs-$r.fio
		{
			printf '[global]\ndirect=1\nsize=%sm\ntime_based\n' "$SIZE_MB"
			printf 'runtime=%s\nramp_time=%s\nnorandommap\n' "$RUNTIME" "$RAMP"
			printf 'randrepeat=0\ngroup_reporting\nfilename=/dev/sbd0\n'
			printf 'ioengine=libaio\nbs=%s\n' "$bs"
			echo "$LBS_WORKLOADS" | while IFS='|' read -r name args; do
				printf '[%s]\nstonewall\nnew_group\n' "$name"
				for a in $args; do echo "${a#--}"; done
			done
		} > "$job"
		(cd "$TMP" && fio --output-format=terse --terse-version=3 "$job") \
			> "$TMP/fio.out" 2> "$TMP/fio.err" ||
			note "fio lbs $bs round $r: exit $?: $(tail -n 3 "$TMP/fio.err" | tr '\n' ' ')"
		awk -F';' -v r=$r -v bs="$bs" '$1 == 3 {
			if ($5 != 0) { print "@@ bench note fio lbs " bs " " $3 " error " $5; next }
			if ($3 ~ /^seq/) v = sprintf("%.1f", ($7 + $48) / 1024)
			else v = sprintf("%d", $8 + $49)
			print "@@ bench lbs " r " " bs " " $3 " " v
		}' "$TMP/fio.out"
		r=$((r + 1))
	done
done

for f in /sys/block/*/*/cache_stats; do
	[ -f "$f" ] && note "$(echo "$f" | cut -d/ -f4) cache_stats: $(tr '\n' ' ' < "$f")"
done
# Unload the variants: some say at unload what they counted.
for ko in /bench/ko/*.ko; do
	[ -f "$ko" ] || continue
	n=$(basename "$ko" .ko)
	rmmod "$n" 2>/dev/null || note "rmmod $n failed"
	dmesg | grep "$n: bench:" | sed 's/^\[[^]]*\] //' | while read -r l; do note "$l"; done
done
say "dmesg $(dmesg | grep -cE "$DMESG_BAD") warnings"
dmesg | grep -E -A8 "$DMESG_BAD" | head -20 | sed 's/^/@@ bench note dmesg: /'
