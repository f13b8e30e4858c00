# SPDX-License-Identifier: GPL-2.0
# Packaging: sbd as an installed module, loaded by name the way a booted
# system loads it.  Not numbered, so vm-run-areas.sh runs it only when asked:
# scripts/test-packaging.sh adds the files from examples/ to the image
# (/etc/modprobe.d/sbd.conf, /etc/modules-load.d/sbd.conf) and puts the
# module DKMS built in /lib/modules/RELEASE/extra.

CONF=/etc/modprobe.d/sbd.conf
LOAD=/etc/modules-load.d/sbd.conf
if ! [ -f "$CONF" ] || ! [ -f "$LOAD" ]; then
	skip examples "no $CONF or $LOAD in this image (scripts/test-packaging.sh adds them)"
	return 0
fi

# What the example asks for, read back from it.
opt() {
	# shellcheck disable=SC2013 # the words of one options line
	for _w in $(grep '^options sbd ' "$CONF"); do
		case $_w in "$1"=*) echo "${_w#*=}" ;; esac
	done
}
want_nsectors=$(opt nsectors)
want_ss=$(opt hardsect_size)

check modinfo-by-name modinfo sbd
expect modinfo-version-set yes "$([ -n "$(modinfo -F version sbd)" ] && echo yes)"

# Boot-time loading: systemd-modules-load does "modprobe NAME" for each
# line of the file that is not a comment; do the same.
mods=$(sed 's/#.*//' "$LOAD" | tr -s ' \n' ' ')
# shellcheck disable=SC2086 # $mods: a list of words, split on purpose
check modules-load modprobe -a $mods
expect example-block-size "$want_ss" "$(cat /sys/block/sbd0/queue/logical_block_size 2>&1)"
expect example-size-bytes "$((want_nsectors * want_ss))" "$(size_of /dev/sbd0)"
check example-mkfs mkfs.ext4 -q -F /dev/sbd0
check modprobe-remove modprobe -r sbd
expect unloaded yes "$([ -e /sys/module/sbd ] || echo yes)"
