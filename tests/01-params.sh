# SPDX-License-Identifier: GPL-2.0
# Parameters: every bad value is refused with the right errno and one
# line in dmesg, leaves nothing behind, and does not spoil the next
# load; defaults and big sizes (64-bit arithmetic) load exactly.
#
# Regression test for commit c06970f ("sbd: decimal parameters, a strict
# readonly=, ..."): 010, 0x10 and readonly=maybe.

# Requires: sbd.ko only.
# QUICK=0: not in the quick run (QUICK=1 scripts/run-tests.sh).

# param_refused NAME ERRNO PARAM=VALUE...: insmod with these parameters must
# fail with ERRNO (EINVAL or ENOMEM; insmod prints its strerror text),
# dmesg must hold exactly one sbd line naming the first parameter and
# its value and no backtrace, and nothing may be left; a valid load
# must work right after.
param_refused() {
	_n=$1 _err=$2
	shift 2
	_pv=$1
	dmesg_mark
	case $_err in
	EINVAL) _text='Invalid parameters' ;;	# kmod's words for EINVAL
	ENOMEM) _text='Cannot allocate memory' ;;
	esac
	check_fails_with "$_n/insmod-$_err" "$_text" insmod "$SBD_KO" "$@"
	_lines=$(sbd_dmesg)
	if [ "$(printf '%s\n' "$_lines" | grep -c .)" = 1 ] &&
	   printf '%s\n' "$_lines" | grep -qF -- "sbd: $_pv "; then
		pass "$_n/one-dmesg-line"
	else
		fail "$_n/one-dmesg-line" "expected one sbd line naming $_pv, got:" "$_lines"
	fi
	_trace=$(dmesg_since mark | grep -E 'Call Trace|page allocation failure|vmalloc error|warn_alloc|oom-kill|Out of memory')
	if [ -z "$_trace" ]; then
		pass "$_n/no-backtrace"
	else
		fail "$_n/no-backtrace" "$(dmesg_since mark | tail -n 30)"
	fi
	expect "$_n/nothing-left" "" "$(sbd_leftovers)"
	unload_sbd 2>/dev/null
	check "$_n/valid-load-after" load_sbd nsectors=2048
	check "$_n/unload" unload_sbd
}

for v in 0 -1 abc 1 256 511 513 1536 3000 4096x ""; do
	param_refused "hardsect_size=$v" EINVAL "hardsect_size=$v"
done
# Powers of two above the page size load only where the kernel takes
# them (6.15 and later, see 13-large-blocks.sh); above its limit they are
# refused like any bad value.  131072 is above every kernel's.
maxbs=$(sbd_max_block)
for v in 8192 65536 131072; do
	if [ $v -gt "$maxbs" ]; then
		param_refused "hardsect_size=$v" EINVAL "hardsect_size=$v"
	else
		check "hardsect_size=$v/loads" \
			load_sbd nsectors=16 hardsect_size=$v &&
			check "hardsect_size=$v/unload" unload_sbd
	fi
done
# 2^64 does not parse; 2^55 and 2^64-1 sectors overflow the byte count.
for v in 0 -1 abc 12abc 18446744073709551616 36028797018963968 \
	 18446744073709551615; do
	param_refused "nsectors=$v" EINVAL "nsectors=$v"
done
param_refused "nsectors=9007199254740992@4096" EINVAL \
	nsectors=9007199254740992 hardsect_size=4096
param_refused "both-invalid" EINVAL hardsect_size=3000 nsectors=0
# Numbers are decimal: hexadecimal is refused with sbd's own line.
param_refused "nsectors=0x10" EINVAL nsectors=0x10
param_refused "hardsect_size=0x200" EINVAL hardsect_size=0x200
param_refused "ndevices=0x10" EINVAL ndevices=0x10
# Digits only: no sign, at most 20 digits.
param_refused "nsectors=+2048" EINVAL nsectors=+2048
param_refused "hardsect_size=+4096" EINVAL hardsect_size=+4096
param_refused "ndevices=+2" EINVAL ndevices=+2
param_refused "cache_mb=+4" EINVAL cache_mb=+4
param_refused "nsectors=21-digits" EINVAL nsectors=000000000000000002048
# readonly= takes 0, 1, N or Y and nothing else, with sbd's own line.
for v in maybe yes off 2 ""; do
	param_refused "readonly=$v" EINVAL "readonly=$v"
done

# More than the VM's RAM: one sector more than MemTotal, and far more.
ram=$(($(meminfo_kb MemTotal) * 1024))
param_refused "nsectors=ram+1" ENOMEM "nsectors=$((ram / 512 + 1))"
param_refused "nsectors=ram+1@4096" ENOMEM \
	"nsectors=$((ram / 4096 + 1))" hardsect_size=4096
param_refused "nsectors=4xram" ENOMEM "nsectors=$((ram / 128))"

# Defaults: 131072 sectors of 512 bytes.
dmesg_mark
check defaults/load load_sbd
expect defaults/size-bytes 67108864 "$(blockdev --getsize64 /dev/sbd0)"
expect defaults/sector-size 512 "$(blockdev --getss /dev/sbd0)"
expect defaults/param-nsectors 131072 "$(cat /sys/module/sbd/parameters/nsectors)"
expect defaults/param-hardsect_size 512 "$(cat /sys/module/sbd/parameters/hardsect_size)"
check_fails_with defaults/params-read-only 'Permission denied' \
	sh -c 'echo 8 > /sys/module/sbd/parameters/nsectors'
expect defaults/no-error-lines "" "$(sbd_dmesg | grep -v ' bytes (')"
check defaults/unload unload_sbd
# Without nsectors=, a disk is 64 MiB whatever the block size: the
# largest block this kernel takes too (64 KiB on 7.2, not 8 GiB), and
# the parameter then reads the sector count in effect.
for bs in $(printf '4096\n%s\n' "$maxbs" | sort -un); do
	check "default-size@$bs/load" load_sbd hardsect_size="$bs" || continue
	expect "default-size@$bs/size-bytes" 67108864 "$(blockdev --getsize64 /dev/sbd0)"
	expect "default-size@$bs/param-nsectors" $((67108864 / bs)) \
		"$(cat /sys/module/sbd/parameters/nsectors)"
	check "default-size@$bs/unload" unload_sbd
done
# Leading zeros are decimal too: 010 is ten, 08 is eight.
check decimal/load-nsectors=010 load_sbd nsectors=010 ndevices=08
expect decimal/nsectors=010-is-10 10 "$(cat /sys/block/sbd0/size)"
expect decimal/ndevices=08-is-8 8 "$(ls -d /sys/block/sbd* | wc -l)"
check decimal/unload unload_sbd
# The smallest disk: one sector.
check nsectors=1/load load_sbd nsectors=1 hardsect_size=4096
expect nsectors=1/size 4096 "$(blockdev --getsize64 /dev/sbd0)"
random_file "$TMP/sector" 4096
check nsectors=1/write put "$TMP/sector" /dev/sbd0 0
check nsectors=1/read-back cmp "$TMP/sector" /dev/sbd0
check_fails_with nsectors=1/past-the-end 'No space left on device' \
	dd if="$TMP/sector" of=/dev/sbd0 bs=4096 seek=1 oflag=direct status=none
check nsectors=1/unload unload_sbd
# readonly: bare, Y and 1 make read-only disks; 0 and N writable ones.
for v in readonly readonly=Y readonly=1 readonly=y readonly=0 readonly=N; do
	case $v in *=0|*=N) want=0 ;; *) want=1 ;; esac
	check "$v/load" load_sbd nsectors=64 "$v" || continue
	expect "$v/ro" $want "$(cat /sys/block/sbd0/ro)"
	expect "$v/param" "$([ $want = 1 ] && echo Y || echo N)" \
		"$(cat /sys/module/sbd/parameters/readonly)"
	check "$v/unload" unload_sbd
done
check_output modinfo-lists-params 'hardsect_size.*nsectors|nsectors.*hardsect_size' \
	sh -c "modinfo -p $SBD_KO | tr '\n' ' '"

# Exactly 2 GiB of 4 KiB sectors and 4 GiB of 512-byte ones: capacity
# and the last sector, the size overflowing a signed 32-bit number at
# 2 GiB and an unsigned one at 4 GiB, from either sector size.  (Each load
# zeroes the whole store, which under emulation is most of this area's
# time: the two other pairings add no arithmetic these do not cover.)
random_file "$TMP/sector" 4096
for ss in 512 4096; do
	for gib in 2 4; do
		[ $((ss * gib)) = 2048 ] || [ $((ss * gib)) = 8192 ] || continue
		bytes=$((gib << 30))
		n=$((bytes / ss))
		t="${gib}GiB@$ss"
		if ! check "$t/load" load_sbd nsectors=$n hardsect_size=$ss; then
			continue
		fi
		expect "$t/size" $((bytes / 512)) "$(cat /sys/block/sbd0/size)"
		expect "$t/getsize64" $bytes "$(blockdev --getsize64 /dev/sbd0)"
		last=$((bytes - 4096))
		check "$t/write-last-4k" put "$TMP/sector" /dev/sbd0 $last
		check "$t/write-at-2GiB" put "$TMP/sector" /dev/sbd0 $(((2 << 30) - 4096))
		dd if=/dev/sbd0 of="$TMP/back" bs=4096 skip=$((last / 4096)) count=1 \
			iflag=direct status=none
		same "$t/last-4k-reads-back" "$TMP/sector" "$TMP/back"
		dd if=/dev/sbd0 of="$TMP/back" bs=4096 skip=$(((2 << 30) / 4096 - 1)) \
			count=1 iflag=direct status=none
		same "$t/2GiB-reads-back" "$TMP/sector" "$TMP/back"
		expect "$t/first-4k-zero" 0 \
			"$(dd if=/dev/sbd0 bs=4096 count=1 iflag=direct status=none | tr -d '\0' | wc -c)"
		check "$t/unload" unload_sbd
	done
done
