# SPDX-License-Identifier: GPL-2.0
# First area of the debug tier: check that this is the debug kernel,
# then let kmemleak forget what boot left unreferenced, so that the
# later kmemleak checks see only what happened while sbd was tested.
. ./debug/lib.sh
need_debug_kernel || return

check lockdep-on grep -Eq 'debug_locks: +1' /proc/lockdep_stats
check kasan-on sh -c 'zcat /proc/config.gz | grep -qx CONFIG_KASAN_VMALLOC=y'
_boot=$(kmemleak_report 2>&1 | grep -c 'unreferenced object')
echo clear > "$KMEMLEAK"
pass "baseline ($_boot boot-time objects set aside)"
# Boot's "N new suspected memory leaks" line is not sbd's: start clean.
dmesg -C
