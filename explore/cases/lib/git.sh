# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # level, want: set by check_begin (common.sh)
# git.sh: git commits.  Step I changes one of five files, adds a sixth,
# and commits "step I", with the case's core.fsync components and
# core.fsyncMethod=fsync.
. "$SBD_CASES/lib/common.sh"

git_workload() { # CORE_FSYNC
	git init -q repo && cd repo || exit 1
	git config core.fsync "$1" && git config core.fsyncMethod fsync &&
		git config user.name sbd && git config user.email sbd@localhost &&
		git config gc.auto 0 || exit 1
	# The empty repository is the set-up: make it durable by other means.
	sync -f . || exit 1
	mark init || exit 1
	each_step git_step
}

git_step() { # I: change a file, add one, commit
	seq 1 $(($1 * 37)) | sed "s/\$/ line of step $1/" > "f$(($1 % 5))" &&
		echo "$1" > "new$1" && git add -A && git commit -q -m "step $1"
}

git_check() { # durable|consistent
	check_begin "$1" repo
	cd repo || exit 1
	# An unborn branch: no step is there.
	if ! head=$(git rev-parse -q --verify HEAD 2>&1); then
		git fsck --full --strict --no-progress > fsck.out 2>&1 ||
			{ echo "git fsck: $(head -n 3 fsck.out | tr '\n' ' ')"; exit 1; }
		judge "$level" 0 "$want"
		exit
	fi
	out=$(git fsck --full --strict --no-progress 2>&1) ||
		{ echo "git fsck: $(echo "$out" | head -n 3 | tr '\n' ' ')"; exit 1; }
	# The history must be steps 1..N in order, N the last.
	got=$(git log --format=%s "$head" 2>&1) || { echo "git log: $got"; exit 1; }
	n=$(echo "$got" | grep -c .)
	[ "$(echo "$got" | head -n 1)" = "step $n" ] &&
		[ "$(echo "$got" | tail -n 1)" = "step 1" ] ||
		{ echo "history: $(echo "$got" | head -n 2 | tr '\n' ' ')... ($n commits)"; exit 1; }
	# The tree of the last step, as it was committed.
	git cat-file -p "$head:new$n" 2> /dev/null | grep -qx "$n" ||
		{ echo "step $n's tree lacks new$n"; exit 1; }
	git status --porcelain > /dev/null 2> status.err ||
		{ echo "git status: $(head -n 2 status.err | tr '\n' ' ')"; exit 1; }
	judge "$level" "$n" "$want"
}
