#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mutation-test.sh: show that the tests can fail.  For each line of
# tests/mutations.txt, put that bug into a scratch copy of the driver (or
# of the explorer), run
# the line's test area on one kernel and expect it to report a FAIL.
# A mutant that still builds warning-free but that its area does not
# notice is a hole in the suite, and counts as a failure here.
#
#   KERNELS=6.12            the kernel to run on (one; default 6.12)
#   AREAS="08-lifecycle.sh" only the mutants of these areas
#   FIRST=14                start at the 14th mutant (to resume a run)
#
# A line whose area is "AREA@KERNEL" runs on that kernel whatever
# KERNELS says: its code is reached only there (e.g. a FLUSH from the
# sysfs write-back switch, which 6.11 and later ignore).
#
# Not part of run-tests.sh: one VM boot per mutant.  Ends with
# "N passed, N failed".
. "$(dirname "$0")/lib.sh"
need_root
KERNELS=${KERNELS:-6.12}
work=$SBD_OUT/mutants
passed=0 failed=0
ok()  { passed=$((passed + 1)); echo "ok $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; }

# The files a mutant may change: the driver's, and the explorer's with
# its helpers and the corpus's judge.
MUTABLE="./*.[ch] explore/*.c explore/sbd-explore explore/workloads/*.sh explore/sbd-corpus"
n=0
while IFS= read -r line; do
	case $line in '#'*|'') continue ;; esac
	area=${line%% | *} rest=${line#* | }
	bug=${rest%% | *} subst=${rest#* | }
	kernel=$KERNELS
	case $area in *@*) kernel=${area#*@} area=${area%@*} ;; esac
	[ -z "${AREAS:-}" ] || [[ " $AREAS " == *" $area "* ]] || continue
	n=$((n + 1))
	[ "$n" -ge "${FIRST:-1}" ] || continue
	name="$area: $bug"
	dir=$work/$n
	rm -rf "$dir"
	mkdir -p "$dir/src"
	(cd "$SBD_ROOT" && cp -a Makefile Kbuild ./*.[ch] scripts tests explore "$dir/src/")
	# shellcheck disable=SC2086 # $MUTABLE: globs, expanded on purpose
	(cd "$dir/src" && perl -0pi -e "$subst" $MUTABLE)
	if (cd "$SBD_ROOT" && for f in $MUTABLE; do cmp -s "$f" "$dir/src/$f" || exit 1; done); then
		bad "$name"; echo "    the substitution matches no source file: $subst"
		continue
	fi
	log "mutant $n: $name"
	case $area in
	apps/*)
		# An area of tests/apps: in the full Debian root.  Its bug is
		# in a script; the driver builds as it is.
		(cd "$SBD_ROOT" && cp -a examples "$dir/src/")
		SBD_OUT=$dir/out TESTS=${area#apps/} KERNELS=$kernel \
			"$dir/src/scripts/run-apps.sh" < /dev/null > "$dir/run.log" 2>&1 || true
		;;
	*)
		SBD_OUT=$dir/out TESTS=$area STAGES="" KERNELS=$kernel \
		VM_APPEND="console=ttyS0 quiet loglevel=1 panic=-1 oops=panic SBD_STOP_AT_FAIL=1" \
			"$dir/src/scripts/run-tests.sh" < /dev/null > "$dir/run.log" 2>&1 || true
		;;
	esac
	# The mutant must build cleanly: a bug the compiler catches says
	# nothing about the tests.
	if [[ $area != apps/* ]] && ! grep -q '^ok .*/build-W=1$' "$dir/run.log"; then
		bad "$name"; echo "    the mutant did not build warning-free (see $dir/run.log)"
		continue
	fi
	# "|| true": no FAIL line (a survivor) must not end the script.
	caught=$(grep '^FAIL ' "$dir/run.log" | sed 's/^FAIL [^/]*\///' | head -3 | paste -sd, - || true)
	if [ -n "$caught" ]; then
		ok "$name (caught by: $caught)"
	else
		bad "$name"; echo "    survived: $(tail -n 1 "$dir/run.log") (see $dir/out)"
	fi
done < "$SBD_ROOT/tests/mutations.txt"
[ $n -gt 0 ] || bad "no mutant selected (AREAS=${AREAS:-})"
echo "$passed passed, $failed failed"
[ $failed = 0 ]
