# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2154 # level, want: set by check_begin (common.sh)
# dpkg.sh: dpkg installing packages into a root on the disk under test
# (dpkg --root).  Step I installs version I of the package "sbdcase",
# whose files are a function of I (a new one each version, one changed,
# one that goes away); the check asks dpkg for the package's state and
# compares its files with the version dpkg says is installed.
. "$SBD_CASES/lib/common.sh"

dpkg_build() { # VERSION DIR: the package's tree and .deb in DIR
	v=$1 t=$2/sbdcase-$1
	mkdir -p "$t/DEBIAN" "$t/usr/share/sbdcase" || return
	printf 'Package: sbdcase\nVersion: %s\nArchitecture: all\nMaintainer: sbd <sbd@localhost>\nDescription: sbd crash case\n' \
		"$v" > "$t/DEBIAN/control"
	seq 1 $((v * 300)) | sed "s/\$/ of version $v/" > "$t/usr/share/sbdcase/data"
	echo "$v" > "$t/usr/share/sbdcase/v$v"
	dpkg-deb -Zgzip -z1 --root-owner-group --build "$t" "$2/sbdcase-$v.deb" > /dev/null
}

dpkg_root() {
	DPKG="dpkg --root=$PWD/root --log=/dev/null --force-script-chrootless --force-not-root"
}

dpkg_workload() { # safe|unsafe-io
	scratch
	mkdir -p root/var/lib/dpkg/info root/var/lib/dpkg/updates root/var/lib/dpkg/triggers &&
		: > root/var/lib/dpkg/status && : > root/var/lib/dpkg/available && sync -f . || exit 1
	dpkg_root
	opt=""
	[ "$1" = safe ] || opt=--force-unsafe-io
	mark init || exit 1
	each_step dpkg_install
	rm -rf "$SCRATCH"
}

dpkg_install() { # VERSION: build it and install it
	dpkg_build "$1" "$SCRATCH" || return
	# shellcheck disable=SC2086 # DPKG and opt: words
	$DPKG $opt -i "$SCRATCH/sbdcase-$1.deb" > "$SCRATCH/out" 2>&1 ||
		{ cat "$SCRATCH/out"; return 1; }
}

dpkg_check() { # durable|consistent
	check_begin "$1" root/var/lib/dpkg/status
	dpkg_root
	st=$(dpkg-query --root="$PWD/root" -W -f '${Status} ${Version}' sbdcase 2>&1) || st=""
	case $st in
	"" | *"no packages found"*) v=0 ;;
	"install ok installed "*) v=${st##* } ;;
	# Cut off while installing a later version: dpkg's database says
	# so, and dpkg -i of that version again finishes it (the manual's
	# recovery).  The version it names while unpacking may still be the
	# old one: at least the last marked, never an older one.
	# (dpkg flags a package it is unpacking "reinstreq" until it is done.)
	"install "*" half-installed "* | "install "*" unpacked "* | "install "*" half-configured "*)
		v=${st##* }
		[ "$v" -ge "$want" ] ||
			{ echo "sbdcase: $st, but version $want was installed (mark n:$want)"; exit 1; }
		exit 0
		;;
	*) echo "sbdcase: $st"; exit 1 ;;
	esac
	out=$($DPKG --audit 2>&1)
	[ -z "$out" ] || { echo "dpkg --audit: $(echo "$out" | head -n 2 | tr '\n' ' ')"; exit 1; }
	if [ "$v" -gt 0 ]; then
		seq 1 $((v * 300)) | sed "s/\$/ of version $v/" | cmp -s - root/usr/share/sbdcase/data ||
			{ echo "version $v installed, but its data file is not version $v's ($(stat -c %s root/usr/share/sbdcase/data 2>&1))"; exit 1; }
		[ "$(cat "root/usr/share/sbdcase/v$v" 2> /dev/null)" = "$v" ] ||
			{ echo "version $v installed, but its file v$v is not there whole"; exit 1; }
		[ "$(ls root/usr/share/sbdcase)" = "$(printf 'data\nv%s' "$v")" ] ||
			{ echo "version $v installed, but the package's files are: $(ls root/usr/share/sbdcase | tr '\n' ' ')"; exit 1; }
	fi
	judge "$level" "$v" "$want"
}
