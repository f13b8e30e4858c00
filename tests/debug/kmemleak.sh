# SPDX-License-Identifier: GPL-2.0
# After the whole suite has run and sbd is unloaded: kmemleak must find
# nothing unreferenced.  Any report fails, shown with its trace.
. ./debug/vm-debug-lib.sh
need_debug_kernel || return

check sbd-unloaded sh -c '! [ -e /sys/module/sbd ]'
kmemleak_clean no-leaks-after-suite
# Lockdep switches itself off after its first report: still on means no
# lock report in any area (each area's dmesg check shows the trace).
check lockdep-still-on grep -Eq 'debug_locks: +1' /proc/lockdep_stats
