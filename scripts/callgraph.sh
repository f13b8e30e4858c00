#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# callgraph.sh [DIR]: which of sbd's source files call which, read from
# the objects of a build in DIR (default: the tree itself, after "make").
# Prints one line per edge, "FILE -> FILE: SYMBOLS" (the symbols an
# object leaves undefined that another object defines: functions, and
# the few data symbols such as sysfs attributes), then the files in an
# order in which each calls only files after it.  Exits non-zero, naming
# the files, if there is no such order: if two files call into each
# other, directly or through others.  sbd.h states the intended order;
# scripts/lint.sh runs this on each kernel's build.
set -euo pipefail
dir=${1:-$(dirname "$0")/..}
cd "$dir"

# The module's objects, as kbuild listed them for modpost.
[ -f sbd.mod ] || { echo "callgraph: no sbd.mod in $dir: build sbd there first" >&2; exit 2; }
mapfile -t objs < <(xargs -n1 basename < sbd.mod)
[ "${#objs[@]}" -gt 1 ] || { echo "callgraph: sbd.mod lists fewer than two objects" >&2; exit 2; }

# An object's source, from kbuild's record of its command (sbd.c is
# compiled as sbd-main.o): "source_OBJ := PATH".
source_of() {
	local src=""
	[ -f ".$1.cmd" ] && src=$(sed -n 's/^source_[^ ]* := //p' ".$1.cmd")
	if [ -n "$src" ]; then basename "$src"; else echo "${1%.o}.c"; fi
}

declare -A file_of defined_in edge
for o in "${objs[@]}"; do
	[ -f "$o" ] || { echo "callgraph: $o is missing" >&2; exit 2; }
	file_of[$o]=$(source_of "$o")
	while read -r sym; do
		defined_in[$sym]=$o
	done < <(nm --defined-only --extern-only --format=just-symbols "$o")
done

# edge["CALLER CALLEE"]: the symbols the caller takes from the callee.
for o in "${objs[@]}"; do
	while read -r sym; do
		d=${defined_in[$sym]:-}
		if [ -n "$d" ] && [ "$d" != "$o" ]; then
			edge["${file_of[$o]} ${file_of[$d]}"]+=" $sym"
		fi
	done < <(nm --undefined-only --format=just-symbols "$o")
done
for e in "${!edge[@]}"; do
	echo "${e% *} -> ${e#* }:${edge[$e]}"
done | sort

# tsort orders the files along the edges, and names those in a loop.
pairs=$(printf '%s\n' "${!edge[@]}")
# Every file, also one that neither calls nor is called.
for o in "${objs[@]}"; do pairs+=$'\n'"${file_of[$o]} ${file_of[$o]}"; done
err=$(mktemp)
trap 'rm -f "$err"' EXIT
if ! order=$(tsort <<<"$pairs" 2>"$err") || [ -s "$err" ]; then
	echo "callgraph: these files call into each other:"
	sed -n 's/^tsort: //p' "$err" | grep -v 'contains a loop' | sed 's/^/    /'
	exit 1
fi
echo "callgraph: no cycle; each file calls only files after it: $(paste -sd' ' - <<<"$order")"
