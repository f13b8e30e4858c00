# SPDX-License-Identifier: GPL-2.0
# First area of the debug tier: check that this is the debug kernel,
# then let kmemleak forget what boot left unreferenced, so that the
# later kmemleak checks see only what happened while sbd was tested.
. ./debug/vm-debug-lib.sh
need_debug_kernel || return

# A report during boot would switch lockdep off, or be blamed on sbd
# later: the boot must be clean (the banners of RCU's lockdep checks and
# of kmemleak, and kmemleak's scan of boot-time objects, aside).
_boot_reports=$(grep -E "$DMESG_BAD" /boot.dmesg | grep -vE \
	'RCU lockdep checking is enabled|kmemleak: (Kernel memory leak detector initialized|Automatic memory scanning|[0-9]+ new suspected memory leaks)')
if [ -z "$_boot_reports" ]; then
	pass boot-dmesg-clean
else
	_first=$(printf '%s\n' "$_boot_reports" | head -1 | sed 's/^\[[^]]*\] *//')
	fail boot-dmesg-clean "kernel reports during boot:" "$_boot_reports" \
		"the first, with what follows it:" \
		"$(grep -F -A20 -m1 -e "$_first" /boot.dmesg | head -40)"
fi
check lockdep-on grep -Eq 'debug_locks: +1' /proc/lockdep_stats
check kasan-on sh -c 'zcat /proc/config.gz | grep -qx CONFIG_KASAN_VMALLOC=y'
_boot=$(kmemleak_report 2>&1 | grep -c 'unreferenced object')
echo clear > "$KMEMLEAK"
pass "baseline ($_boot boot-time objects set aside)"
# The scan's "N new suspected memory leaks" line is about boot, not sbd.
dmesg_checked
