# SPDX-License-Identifier: GPL-2.0
# Helpers for sbd's tests, sourced inside the VM by run-in-vm.sh.
#
# Each check prints one line that the host counts:
#   @@ ok AREA/NAME
#   @@ FAIL AREA/NAME        followed by "@@ | evidence" lines
#   @@ skip AREA/NAME: why
# AREA is set by run-in-vm.sh from the test file's name.

SBD_KO=/sbd.ko
MNT=/mnt/sbd
TMP=/tmp/sbd-test

pass() { echo "@@ ok $AREA/$1"; }

fail() {
	_name=$1
	shift
	echo "@@ FAIL $AREA/$_name"
	printf '%s\n' "$@" | sed 's/^/@@ | /'
}

skip() { echo "@@ skip $AREA/$1: $2"; }

# check NAME CMD...: CMD must succeed; its output is the evidence if not.
check() {
	_name=$1
	shift
	if _out=$("$@" 2>&1); then
		pass "$_name"
	else
		fail "$_name" "command failed (exit $?): $*" "$_out"
	fi
}

# check_fails NAME CMD...: CMD must fail.
check_fails() {
	_name=$1
	shift
	if _out=$("$@" 2>&1); then
		fail "$_name" "command succeeded but should have failed: $*" "$_out"
	else
		pass "$_name"
	fi
}

# expect NAME EXPECTED GOT
expect() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "expected: $2" "got:      $3"
	fi
}

# load_sbd [PARAMS...]: insmod sbd; the caller checks the result.
load_sbd() {
	insmod "$SBD_KO" "$@"
}

unload_sbd() {
	rmmod sbd 2>/dev/null
	! [ -e /sys/module/sbd ]
}

# The size of a file or block device in bytes.
size_of() { blockdev --getsize64 "$1" 2>/dev/null || stat -c %s "$1"; }

# random_file PATH BYTES
random_file() {
	head -c "$2" /dev/urandom > "$1"
}

# same NAME FILE1 FILE2: the two have identical contents.
same() {
	if _out=$(cmp "$2" "$3" 2>&1); then
		pass "$1"
	else
		fail "$1" "$2 and $3 differ" "$_out"
	fi
}

# Kernel reports that make any area fail.
DMESG_BAD='WARNING:|BUG:|BUG |Oops|Call Trace|lockdep|possible recursive|possible circular|KASAN|kmemleak|UBSAN|general protection|INFO: task .* blocked'

# dmesg_clean NAME: no warning, bug, oops or sanitizer report since the
# area started (run-in-vm.sh clears the ring buffer before each area).
dmesg_clean() {
	_bad=$(dmesg | grep -E "$DMESG_BAD")
	if [ -z "$_bad" ]; then
		pass "$1"
	else
		fail "$1" "kernel reports in dmesg:" "$(dmesg | grep -E -A12 "$DMESG_BAD" | head -60)"
	fi
}
