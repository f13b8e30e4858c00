# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# @files, sbd-explore's durable-files workload, and its check (the
# contract: README here).
#
# @files creates, appends, renames, replaces and deletes files in
# files/.  Before each change a mark says what it may do ("p:NAME:SUM":
# NAME may become data whose sha256 starts with SUM; "pm:A:B": A may be
# renamed over B; "pr:A": A may be deleted), and once its fsync (of the
# file and of its directory) returned, another says it is durable
# ("NAME:SUM", "mv:A:B", "rm:A"; "ap:LEN:SUM": the first LEN bytes of
# files/append).  Between the two, either outcome is right.  Unsynced
# files (uN) are never marked.

sbd_workload files wl_files files
sbd_check files ck_files

files_sum12() { sha256sum | cut -c1-12; }
files_put() { # files_put NAME BYTES: write, fsync, rename into place, fsync the directory
	head -c "$2" /dev/urandom > "$SBD_SCRATCH/src" || return
	_sum=$(files_sum12 < "$SBD_SCRATCH/src")
	sbd_mark "p:$1:$_sum" &&
		dd if="$SBD_SCRATCH/src" of="files/.t" bs=64k conv=fsync status=none &&
		mv files/.t "files/$1" && sync files && sbd_mark "$1:$_sum"
}
wl_files() {
	mkdir -p files && sync files . || return
	: > files/append && sync files/append files || return
	_i=0
	while [ $_i -lt "$SBD_OPS" ]; do
		_i=$((_i + 1))
		files_put "f$_i" $((_i * 7919 % 23 * 4096 + _i * 37 % 4096 + 1)) || return
		# Replace an older one (rename over it).
		if [ $((_i % 3)) = 0 ]; then
			files_put "f$((_i - 2))" $((_i * 101 % 20000 + 1)) || return
		fi
		# Rename one to a new name.
		_a=f$((_i - 1)) _b=g$_i
		if [ $((_i % 4)) = 0 ] && [ -e "files/$_a" ]; then
			sbd_mark "pm:$_a:$_b" && mv "files/$_a" "files/$_b" && sync files &&
				sbd_mark "mv:$_a:$_b" || return
		fi
		# Delete one.
		_a=f$((_i - 4))
		if [ $((_i % 5)) = 0 ] && [ -e "files/$_a" ]; then
			sbd_mark "pr:$_a" && rm "files/$_a" && sync files && sbd_mark "rm:$_a" || return
		fi
		# Append and fsync.
		head -c 3000 /dev/urandom >> files/append && sync files/append || return
		sbd_mark "ap:$(stat -c %s files/append):$(files_sum12 < files/append)" || return
		# Never synced: whatever a crash leaves of it is fine.
		head -c $((_i * 211 % 9000 + 1)) /dev/urandom > "files/u$_i"
		rm -f "files/u$((_i - 3))"
	done
}
ck_files() {
	# What the marks up to the point allow: "NAME ALT|ALT..." (an ALT
	# is a checksum, or "-": absent) and "append LEN SUM".
	awk 'function cur(n) { return (n in w) ? w[n] : "-" }
		{ split($2, a, ":") }
		# (cur() before the assignment: awk may create w[n] first.)
		a[1] == "p" { v = cur(a[2]); w[a[2]] = v "|" a[3]; next }
		a[1] == "pm" { v = cur(a[2]); b = cur(a[3]); src[a[2]] = v
			w[a[3]] = b "|" v; w[a[2]] = v "|-"; next }
		a[1] == "mv" { w[a[3]] = src[a[2]]; w[a[2]] = "-"; next }
		a[1] == "pr" { v = cur(a[2]); w[a[2]] = v "|-"; next }
		a[1] == "rm" { w[a[2]] = "-"; next }
		a[1] == "ap" { ap = a[2] " " a[3]; next }
		a[1] ~ /^f[0-9]+$/ { w[a[1]] = a[2] }
		END { for (f in w) print f, w[f]; if (ap != "") print "append", ap }' \
		"$SBD_MARKS" > "$SBD_SCRATCH/want"
	# One sha256sum for all the files the marks name, not a process or
	# two per file (they made this check most of a state's time): "NAME
	# ALTS GOT", GOT the regular file's checksum or "-" if it has none.
	# The names are this function's arguments, one each.
	set --
	while read -r _f _; do
		[ "$_f" = append ] || set -- "$@" "$_f"
	done < "$SBD_SCRATCH/want"
	(cd files 2> /dev/null && [ $# != 0 ] && sha256sum -- "$@" 2> /dev/null) > "$SBD_SCRATCH/got"
	# (FILENAME, not NR == FNR: "got" is empty when no file is there.)
	awk 'FILENAME == ARGV[1] { got[$2] = substr($1, 1, 12); next }
		$1 == "append" { print; next }
		{ print $1, $2, ($1 in got) ? got[$1] : "-" }' "$SBD_SCRATCH/got" "$SBD_SCRATCH/want" \
		> "$SBD_SCRATCH/cmp"
	_bad=0
	while read -r _f _s _got; do
		if [ "$_f" = append ]; then
			_s2=$_got
			_got=$(head -c "$_s" files/append 2> /dev/null | files_sum12)
			_len=$(stat -c %s files/append 2> /dev/null || echo missing)
			[ "$_len" != missing ] && [ "$_len" -ge "$_s" ] && [ "$_got" = "$_s2" ] || {
				echo "append: the first $_s fsynced bytes are not intact (size $_len)"
				_bad=1
			}
			continue
		fi
		if [ "$_got" = - ]; then
			if [ -f "files/$_f" ]; then
				_got=unreadable
			elif [ -e "files/$_f" ]; then
				_got=not-a-file
			fi
		fi
		case "|$_s|" in
		*"|$_got|"*) ;;
		*)
			_bad=1
			case $_got in
			-) echo "$_f: missing (fsynced: sha256 $_s...)" ;;
			unreadable | not-a-file) echo "$_f: $_got, but fsynced: $(echo "$_s" | sed 's/^-$/deleted/; s/|/ or /g')" ;;
			*) echo "$_f: sha256 $_got..., but fsynced: $(echo "$_s" | sed 's/^-$/deleted/; s/|/ or /g')" ;;
			esac ;;
		esac
	done < "$SBD_SCRATCH/cmp"
	return $_bad
}
