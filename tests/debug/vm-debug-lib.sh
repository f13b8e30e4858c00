# SPDX-License-Identifier: GPL-2.0
# Helpers for the debug tier's own areas (tests/debug/*.sh), sourced
# after tests/vm-lib.sh.  These areas need the debug kernel built by
# scripts/build-debug-kernel.sh (kmemleak, fault injection, CPU hotplug);
# the normal run never takes them: scripts/run-debug-tests.sh does.

DBG=/sys/kernel/debug
KMEMLEAK=$DBG/kmemleak

# need_debug_kernel: fail (not skip) when a debug facility is missing:
# on the debug tier that means the kernel was built wrong.
need_debug_kernel() {
	_missing=""
	for _f in "$KMEMLEAK" "$DBG/failslab" "$DBG/fail_page_alloc" \
		  /proc/self/fail-nth /proc/config.gz; do
		[ -e "$_f" ] || _missing="$_missing $_f"
	done
	[ -z "$_missing" ] && return 0
	fail debug-kernel "not a debug kernel ($(uname -r)): missing$_missing" \
		"build it with scripts/build-debug-kernel.sh"
	return 1
}

# kmemleak_report: print what kmemleak finds unreferenced, with traces.
# Objects younger than 5 s are never reported: wait that out first.
# Then scan twice, as Documentation/dev-tools/kmemleak.rst advises: the
# report lists only objects still unreferenced in the second scan, which
# drops transient false positives (pointers that were in flight).
kmemleak_report() {
	sleep 6
	echo scan > "$KMEMLEAK" || { echo "kmemleak: scan refused (kmemleak off?)"; return; }
	echo scan > "$KMEMLEAK"
	cat "$KMEMLEAK"
}

# kmemleak_clean NAME: no unreferenced object since the last clear.  The
# reported objects are cleared afterwards, so each area reports its own.
kmemleak_clean() {
	_leaks=$(kmemleak_report 2>&1)
	if [ -z "$_leaks" ]; then
		pass "$1"
	else
		fail "$1" "kmemleak reports $(printf '%s\n' "$_leaks" |
			grep -c 'unreferenced object') suspected leak(s):" \
			"$(printf '%s\n' "$_leaks" | head -120)"
	fi
	echo clear > "$KMEMLEAK" 2>/dev/null
}

# leftovers: whatever of sbd is still registered, one line each.
leftovers() {
	ls -d /sys/block/sbd* /dev/sbd* 2>/dev/null | sed 's/$/ exists/'
	grep -w sbd /proc/devices | sed 's/^/\/proc\/devices: /'
	grep '^sbd ' /proc/modules | sed 's/^/\/proc\/modules: /'
	[ -e /sys/module/sbd ] && echo "/sys/module/sbd exists"
	true
}

# injected_fault_reports: the kernel reports (tests/vm-lib.sh's DMESG_BAD)
# in dmesg, leaving out what an injected fault prints by design: its
# stack dump ("Call Trace:" and frames whose names, such as
# lockdep_init_map_type, would match), and kmemleak's note that it
# scans a whole object when the fault hit its own scan-area allocation.
injected_fault_reports() {
	dmesg_since mark |
		grep -vE '^(\? )?[A-Za-z_][A-Za-z0-9_.]*\+0x[0-9a-f]+/0x[0-9a-f]+|^Call Trace:|^kmemleak: Cannot allocate a scan area' |
		grep -E "$DMESG_BAD"
}
