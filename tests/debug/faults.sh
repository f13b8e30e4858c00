# SPDX-License-Identifier: GPL-2.0
# Init under injected faults.  Load sbd again and again, failing the
# 1st, then the 2nd, 3rd, ... allocation made on its load path, until a
# load goes through with no fault left to inject.  Every load that fails
# must return an error and leave nothing registered; every load that
# succeeds despite its fault (the kernel retried or fell back) must give
# working disks; no kernel report at any step, and no leak at the end.
#
# Two disks, so that a fault while adding sbd1 finds sbd0 already live
# and visible.  This loop caught sbd's add_disk() partition scan opening
# sbd0 with a close deferred to insmod's return to user space: after a
# failed load the module was freed by then (oops under KASAN on 6.12).
# And, as udev does on a disk's add event, a process (sbd-grab) opens
# sbd0 while the load goes on and holds it for FAULT_HOLD_MS: when sbd1
# then fails, the failed init must not free the module under it (it
# did, until sbd_free_device() waited for the disk's release).  It opens
# sbd0 once /sys/block/sbd1 exists (sbd0 is then fully added, sbd1 is
# being added), with module autoloading off: an open of a disk not yet
# there would otherwise run modprobe for its major, each try taking so
# long that the moment went by (seen: never held in 12 such loads).
#
# Last, a power cut with every allocation sbd makes failing: a cut
# must never fail for want of memory.
#
# How the Nth allocation is chosen: failslab and fail_page_alloc are
# armed for the loading task only (make-it-fail, task-filter) and
# /proc/self/fail-nth makes exactly its Nth eligible allocation fail.
# (Stepping "interval" does not work for this: its counter is global and
# never reset between loads.)  The stacktrace filter makes an allocation
# eligible only when module code (sbd, the only module on the loading
# task's stack) is among its FAULT_DEPTH innermost frames, and kmemleak's
# own bookkeeping is not: exec, insmod and the module loader are left
# alone.  Both injectors count __GFP_NOWARN, highmem and order-0
# allocations too (sbd's store is __GFP_NOWARN, vmalloc adds
# __GFP_HIGHMEM), and faults are dumped with a stack (verbose=2), which
# names the call sbd made.
#
# Every allocation of sbd's own set-up is failed in turn.  Those inside
# device_add_disk() (some 250 per disk: sysfs files, queue and bdi
# registration, ...) are the block layer's, and reach sbd through one
# error path: one in FAULT_ADD_DISK_STRIDE of them is failed, spread
# over both disks' calls, which keeps the loop near 150 loads, not 600.
. ./debug/vm-debug-lib.sh
need_debug_kernel || return

# One-page stores: the point is the set-up code, not 16384 page
# allocations for a 64 MiB store.
FAULT_PARAMS=${FAULT_PARAMS:-nsectors=8 ndevices=2}
FAULT_MAX=${FAULT_MAX:-2000}		# loads at most
FAULT_DEPTH=${FAULT_DEPTH:-32}		# frames searched for sbd (and kmemleak)
FAULT_ADD_DISK_STRIDE=${FAULT_ADD_DISK_STRIDE:-10}
FAULT_DEADLINE=${FAULT_DEADLINE:-3000}	# seconds at most (AREA_TIMEOUT is longer)
FAULT_HOLD_MS=${FAULT_HOLD_MS:-300}	# how long sbd-grab holds sbd0 open
modprobe_path=$(cat /proc/sys/kernel/modprobe)

# shellcheck disable=SC2086 # $FAULT_PARAMS: a list of words, split on purpose
check plain-load load_sbd $FAULT_PARAMS || return
disks=$(ls -d /sys/block/sbd* | wc -l)
check plain-unload unload_sbd || return

# Module code lies between the end of the kernel image and MODULES_END.
kend=$(awk '$3 == "_end" || $3 == "_etext" { print $1; exit }' /proc/kallsyms)
case $kend in
''|0000000000000000)
	fail setup "cannot read the kernel's _end from /proc/kallsyms"; return ;;
esac
# kmemleak_allocators: "START END", the text from kmemleak's lowest to
# just past its highest function that allocates its own bookkeeping.
# kmemleak makes one such allocation for every allocation it tracks, and
# falls back to a reserve pool when it fails: left eligible, they would
# be half of all fault points, each absorbed, none of them in sbd's code.
kmemleak_allocators() {
	sort /proc/kallsyms | awk '
		$2 ~ /^[tT]$/ && $3 ~ /^(mem_pool_alloc|__alloc_object|__create_object|create_object|add_scan_area)$/ {
			if (lo == "") lo = $1
			hi = $1; next
		}
		hi != "" && $1 > hi { print lo, $1; exit }'
}
reject=$(kmemleak_allocators)
[ -n "$reject" ] || { fail setup "kmemleak's allocators not found in /proc/kallsyms"; return; }
for a in failslab fail_page_alloc; do
	d=$DBG/$a
	echo "0x${reject% *}" > "$d"/reject-start
	echo "0x${reject#* }" > "$d"/reject-end
	echo 0 > "$d"/probability		# only fail-nth injects
	echo 0 > "$d"/space
	echo 1 > "$d"/interval
	echo 1 > "$d"/times		# reads 0 once a fault was injected
	echo 2 > "$d"/verbose
	echo Y > "$d"/task-filter
	echo "$FAULT_DEPTH" > "$d"/stacktrace-depth
	echo "0x$kend" > "$d"/require-start
	echo 0xffffffffff000000 > "$d"/require-end
	echo N > "$d"/ignore-gfp-wait
done
echo N > "$DBG"/fail_page_alloc/ignore-gfp-highmem
echo 0 > "$DBG"/fail_page_alloc/min-order

# fault_site: from the fault's stack in dmesg, "CALLEE <- SBD_FUNCTION",
# the kernel function sbd called and the sbd function that called it.
# Frames marked "?" are stale words on the stack, not callers: skipped.
fault_site() {
	dmesg_since mark | awk '
		/^Call Trace:/ { on = 1; prev = ""; next }
		on && /^ *[A-Za-z_][A-Za-z0-9_.]*\+0x.*\[sbd\]/ {
			f = $0; sub(/^ */, "", f); sub(/\+.*/, "", f)
			print prev " <- " f; exit
		}
		on && /^ *[A-Za-z_][A-Za-z0-9_.]*\+0x/ {
			p = $0; sub(/^ */, "", p); sub(/\+.*/, "", p)
			prev = p
		}'
}

n=0 step=1 points=0 failed_loads=0 failed_live=0 failed_held=0 absorbed=0
finished=no
deadline_hit=no
errors="" reports=""
: > "$TMP/sites"
t0=$(date +%s)
while [ $n -lt "$FAULT_MAX" ]; do
	n=$((n + step))
	dmesg_mark
	echo 1 > "$DBG"/failslab/times
	echo 1 > "$DBG"/fail_page_alloc/times
	echo > /proc/sys/kernel/modprobe
	timeout 60 sbd-grab /dev/sbd0 "$FAULT_HOLD_MS" /sys/block/sbd1 \
		> "$TMP/grab" 2>&1 &
	grab=$!
	out=$(sh -c "echo 1 > /proc/self/make-it-fail &&
		     echo $n > /proc/self/fail-nth &&
		     exec insmod $SBD_KO $FAULT_PARAMS" 2>&1)
	rc=$?
	# Loaded: let sbd-grab open and close sbd0 before the rmmod below.
	# Failed: a correct sbd waited for its close; else it is still
	# holding a disk of a freed module, and closes it now.
	[ $rc = 0 ] || kill $grab 2>/dev/null
	wait $grab 2>/dev/null
	echo "$modprobe_path" > /proc/sys/kernel/modprobe
	[ $rc = 0 ] || ! grep -q held "$TMP/grab" ||
		failed_held=$((failed_held + 1))
	inj=""
	[ "$(cat "$DBG"/failslab/times)" = 0 ] && inj=failslab
	[ "$(cat "$DBG"/fail_page_alloc/times)" = 0 ] && inj="$inj${inj:+,}fail_page_alloc"
	if [ $rc != 0 ]; then
		failed_loads=$((failed_loads + 1))
		# sbd0 had gone live (its "added" line) before the load failed.
		! dmesg_since mark | grep -q 'sbd: sbd0: [0-9]* bytes' ||
			failed_live=$((failed_live + 1))
		[ -n "$inj" ] ||
			errors="$errors
load $n failed with no fault injected: $out"
		left=$(leftovers)
		[ -z "$left" ] || errors="$errors
load $n failed ($out) but left behind: $left"
	elif [ -z "$inj" ]; then
		finished=yes
	else
		absorbed=$((absorbed + 1))
		# The fault was absorbed: the disk must work all the same.
		for d in $(cd /sys/block && ls -d sbd*); do
			dd if=/dev/"$d" of=/dev/null bs=4096 count=1 iflag=direct \
				status=none 2>/dev/null ||
				errors="$errors
load $n succeeded after a $inj fault but /dev/$d does not read"
		done
	fi
	if [ -e /sys/module/sbd ]; then
		unload_sbd || errors="$errors
load $n: rmmod failed"
		left=$(leftovers)
		[ -z "$left" ] || errors="$errors
load $n: after rmmod: $left"
	fi
	if [ -n "$inj" ]; then
		points=$((points + 1))
		site=$(fault_site)
		if [ -z "$site" ]; then
			if dmesg_since mark | grep -q 'sbd: .*cannot allocate'; then
				site="__vmalloc (the store, __GFP_NOWARN) <- sbd"
			else
				site="(a __GFP_NOWARN allocation: no stack dumped)"
			fi
		fi
		# Inside device_add_disk() (the last step of the load), sample.
		case $site in device_add_disk*) step=$FAULT_ADD_DISK_STRIDE ;; esac
		if [ $rc = 0 ]; then res=absorbed; else res=failed; fi
		echo "$site [$inj, $res]" >> "$TMP/sites"
		echo "fault $n: $site [$inj] -> ${out:-loaded}"
	fi
	bad=$(injected_fault_reports)
	[ -z "$bad" ] || reports="$reports
--- load $n (fault: ${inj:-none}):
$(printf '%s\n' "$bad" | head -5)
$(dmesg_since mark | grep -F -A30 "$(printf '%s\n' "$bad" | head -1)" | head -40)"
	[ $finished = no ] || break
	if [ $(($(date +%s) - t0)) -gt "$FAULT_DEADLINE" ]; then
		deadline_hit=yes
		break
	fi
done
for a in failslab fail_page_alloc; do
	echo 0 > "$DBG"/$a/verbose
	echo 1 > "$DBG"/$a/times
done
# The expected allocation-failure traces stay out of the area's dmesg
# check; real reports were collected step by step above.
dmesg_checked

if [ $finished = yes ]; then
	pass "reached-a-clean-load (after $points injected faults, $(($(date +%s) - t0))s)"
elif [ $deadline_hit = yes ]; then
	# Out of time (FAULT_DEADLINE, which run-tests.sh derives from what
	# is left of CI's budget): what ran is checked below; the rest of
	# the loop is for scripts/run-debug-tests.sh.
	skip reached-a-clean-load "FAULT_DEADLINE=${FAULT_DEADLINE}s reached at load $n, after $points injected faults"
else
	fail reached-a-clean-load "no fault-free load within $n loads" "$errors"
fi
if [ -z "$errors" ]; then
	pass failed-loads-leave-nothing
else
	fail failed-loads-leave-nothing "$errors"
fi
if [ -z "$reports" ]; then
	pass no-kernel-reports
else
	fail no-kernel-reports "kernel reports while loading under faults:" "$reports"
fi
# Distinct failure points, grouped by the call sbd made.
pass "failure-points: $points ($failed_loads failed loads, $absorbed absorbed)"
sort "$TMP/sites" | uniq -c | sort -rn | sed 's/^/@@ |   /'
[ $points -gt 0 ] || fail failure-points-exercised "no fault was ever injected"
if [ "$disks" -gt 1 ]; then
	if [ $failed_live -gt 0 ]; then
		pass "failed-with-a-disk-live ($failed_live loads)"
	elif [ $deadline_hit = yes ]; then
		skip failed-with-a-disk-live "the loop stopped at its deadline before"
	else
		fail failed-with-a-disk-live "no load failed after sbd0 went live"
	fi
fi
if [ "$disks" -gt 1 ]; then
	# Whether sbd-grab wins the race to open sbd0 before the failed
	# init deletes it is up to the scheduler: a count, never a verdict.
	if [ $failed_held -gt 0 ]; then
		pass "failed-with-a-disk-held-open ($failed_held loads)"
	else
		skip failed-with-a-disk-held-open "sbd-grab never had sbd0 open when a load failed"
	fi
fi
kmemleak_clean no-leaks-after-failed-loads

# A cut with every allocation made with sbd on the stack failing (the
# same filters as above, probability 100): sbd allocates what a cut
# needs at load, so the cut must go through.
PWR=/sys/block/sbd0/sbd/power
if check cut/load load_sbd nsectors=16384 cache_mb=4 &&
   check cut/write dd if=/dev/urandom of=/dev/sbd0 bs=64k count=4 \
	oflag=direct status=none; then
	for a in failslab fail_page_alloc; do
		echo 100 > "$DBG"/$a/probability
		echo -1 > "$DBG"/$a/times
	done
	check cut/under-faults sh -c "echo 1 > /proc/self/make-it-fail &&
				      echo off > $PWR"
	for a in failslab fail_page_alloc; do
		echo 0 > "$DBG"/$a/probability
		echo 1 > "$DBG"/$a/times
	done
	expect cut/power-off off "$(cat $PWR)"
	check cut/power-on sh -c "echo on > $PWR"
	check cut/unload unload_sbd
fi
