# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # level, want: set by check_begin (common.sh)
# rsync.sh: rsync copying a growing tree onto the disk under test.  Step
# I adds the file sI to the source and rewrites "current"; rsync -a
# copies the source to dst/.  Each file's content is a function of its
# step.  Between steps another program syncs a file of its own
# (other_fsync): without it these short runs end before the file system
# commits a rename on its own, and no state could show a renamed file
# without its data.
. "$SBD_CASES/lib/common.sh"

rsync_file() { seq 1 $(($1 * 613 % 9000 + 500)) | sed "s/\$/ of step $1/"; }

rsync_step() { # I: add sI and rewrite current in the source, copy it
	# shellcheck disable=SC2086 # opt: empty or one word
	rsync_file "$1" > "$SCRATCH/src/s$1" && rsync_file "$1" > "$SCRATCH/src/current" &&
		rsync -a $opt "$SCRATCH/src/" dst/
}

rsync_workload() { # fsync|nofsync
	scratch
	opt=""
	[ "$1" = nofsync ] || opt=--fsync
	mkdir "$SCRATCH/src" dst && sync . || exit 1
	mark init || exit 1
	each_step rsync_step other_fsync
	rm -rf "$SCRATCH"
}

rsync_check() { # durable|consistent
	check_begin "$1" dst
	# Every file there is whole; the steps found form a prefix.
	n=0
	for f in dst/*; do
		[ -e "$f" ] || continue
		case ${f#dst/} in
		current) continue ;;
		s*) j=${f#dst/s} ;;
		*) continue ;;
		esac
		rsync_file "$j" | cmp -s - "$f" || { echo "$f: not step $j's content ($(stat -c %s "$f") bytes)"; exit 1; }
		[ "$j" -le "$n" ] || n=$j
	done
	j=1
	while [ "$j" -le "$n" ]; do
		[ -f "dst/s$j" ] || { echo "dst/s$j: missing, but s$n is there"; exit 1; }
		j=$((j + 1))
	done
	if [ -e dst/current ]; then
		head -n 1 dst/current | grep -q '^1 of step [0-9]*$' &&
			rsync_file "$(head -n 1 dst/current | sed 's/.* //')" | cmp -s - dst/current ||
			{ echo "dst/current: not whole ($(stat -c %s dst/current) bytes)"; exit 1; }
	fi
	judge "$level" "$n" "$want"
}
