# SPDX-License-Identifier: GPL-2.0
# CPU hotplug under I/O.  sbd has one hardware queue per CPU; take CPU1
# offline and online again, over and over, while fio writes and then
# verifies (crc32c) the disk from jobs on every CPU.  The run must
# finish, the data verify and the kernel report nothing.
. ./debug/vm-debug-lib.sh
need_debug_kernel || return

HOTPLUG_CYCLES=${HOTPLUG_CYCLES:-20}
cpu=/sys/devices/system/cpu/cpu1/online
if ! [ -w $cpu ]; then
	fail hotplug-cpu "no hot-pluggable CPU1 ($(nproc) CPUs): boot with VM_CPUS>=2"
	return
fi

check load load_sbd nsectors=65536 || return
expect hw-queues "$(nproc)" "$(ls -d /sys/block/sbd0/mq/[0-9]* | wc -l)"

# Two jobs, each on its own 8 MiB, written and verified several times.
fio --name=hotplug --filename=/dev/sbd0 --rw=randwrite --bs=4k \
	--size=8m --offset_increment=8m --numjobs=2 --loops=6 \
	--ioengine=libaio --iodepth=16 --direct=1 --verify=crc32c \
	--verify_fatal=1 --do_verify=1 --group_reporting \
	> "$TMP/fio.out" 2>&1 &
fio=$!

cycles=0 errors=""
while kill -0 $fio 2>/dev/null && [ $cycles -lt "$HOTPLUG_CYCLES" ]; do
	echo 0 > $cpu || errors="$errors
cycle $cycles: offline failed"
	sleep 0.3
	echo 1 > $cpu || errors="$errors
cycle $cycles: online failed"
	sleep 0.3
	cycles=$((cycles + 1))
done
[ "$(cat $cpu)" = 1 ] || echo 1 > $cpu
wait $fio
rc=$?

if [ $rc = 0 ]; then
	pass "fio-verify ($cycles offline/online cycles during I/O)"
else
	fail fio-verify "fio exited $rc" "$(tail -n 30 "$TMP/fio.out")"
fi
if [ -n "$errors" ]; then
	fail cpu-offline-online "$errors"
elif [ $cycles -ge 3 ]; then
	pass cpu-offline-online
else
	fail cpu-offline-online "fio finished after only $cycles cycles"
fi
expect cpu1-back-online 1 "$(cat $cpu)"
check unload unload_sbd
kmemleak_clean no-leaks-after-hotplug
