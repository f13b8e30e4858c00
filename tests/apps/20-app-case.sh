# SPDX-License-Identifier: GPL-2.0
# The worked example of docs/applications.md (examples/app-case): a
# small program's three ways of saving, run through sbd-corpus as the
# page runs them.  Saving without an fsync, or without the directory's,
# must be caught with a reproducer that fails again; fsyncing both must
# pass every state.

# Requires: sbd.ko, cache_mb; the root's python3 and mkfs.ext4;
# sbd-corpus, sbd-explore.
# QUICK=1: in the quick run (QUICK=1 scripts/run-apps.sh).

check load load_sbd ndevices=2 nsectors=1048576 cache_mb=64 || return
_example=/usr/local/lib/sbd/examples/app-case
sbd-corpus --cases "$_example/cases" --quick --fs ext4 --dev /dev/sbd0,/dev/sbd1 \
	--save "$TMP/app-case" > "$TMP/app-case.out" 2>&1
_rc=$?
sed 's/^/@@ | /' "$TMP/app-case.out"
# What the page quotes of a failure: its report and reproducer.
grep -v '^ *$' "$TMP/app-case/notes-nosync-ext4/explore.log" 2> /dev/null | grep -A 4 -m 1 '^FAIL (' | sed 's/^/@@ | /'
expect notes-nosync "ok notes-nosync/ext4 caught" "$(grep -o '^ok notes-nosync/ext4 caught' "$TMP/app-case.out")"
expect notes-filesync "ok notes-filesync/ext4 caught" "$(grep -o '^ok notes-filesync/ext4 caught' "$TMP/app-case.out")"
expect notes "ok notes/ext4 pass" "$(grep -o '^ok notes/ext4 pass' "$TMP/app-case.out")"
expect exit-status 0 "$_rc"
unload_sbd || fail unload "sbd still loaded"
