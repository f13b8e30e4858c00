# SPDX-License-Identifier: GPL-2.0
# rsync.sh: rsync copying a growing tree onto the disk under test.  Step
# I adds the file sI to the source and rewrites "current"; rsync -a
# copies the source to dst/.  Each file's content is a function of its
# step.
. "$SBD_CASES/lib/common.sh"

rsync_file() { seq 1 $(($1 * 613 % 9000 + 500)) | sed "s/\$/ of step $1/"; }

rsync_workload() { # fsync|nofsync
	scratch
	opt=""
	[ "$1" = nofsync ] || opt=--fsync
	mkdir "$SCRATCH/src" dst && sync . || exit 1
	mark init || exit 1
	i=1
	while [ "$i" -le "$OPS" ]; do
		rsync_file "$i" > "$SCRATCH/src/s$i" && rsync_file "$i" > "$SCRATCH/src/current" &&
			rsync -a $opt "$SCRATCH/src/" dst/ || exit 1
		mark "n:$i" || exit 1
		i=$((i + 1))
	done
	rm -rf "$SCRATCH"
}

rsync_check() { # durable|consistent
	level=$1 want=$(committed)
	[ "$want" != none ] || exit 0
	[ -d dst ] || { echo "dst: missing (the set-up was durable)"; exit 1; }
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
