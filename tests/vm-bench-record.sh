#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-bench-record.sh ROUNDS: the cost of sbd's volatile write cache and
# of a recording, in one VM boot (scripts/bench-record.sh).
#
# sbd loaded without a cache gives "plain"; loaded again with
# cache_mb=64 and two disks, sbd0 gives "cache" and sbd1, recording,
# "record".  Each row: fio, one job, psync (QD1), O_DIRECT, a fixed
# amount of I/O (io_size), ROUNDS rounds in turn; the host takes the
# medians and ratios.  "record" starts a fresh 2 GiB recording before
# each write row, which holds all of the row's writes.  Then visit and return
# times against the bytes they move, on a full recording, and the
# recording's memory per write.
. ./vm-lib.sh
ROUNDS=${1:-5}
SZ=268435456

row() {	# NAME DEV RW BS IO_SIZE
	# A fresh recording for each write row; the read row reads the
	# disk the last one recorded, so round-stats show that recording.
	case $1 in
	record*write*) echo drop > /sys/block/sbd1/sbd/record
		 echo 'start 2048' > /sys/block/sbd1/sbd/record ;;
	esac
	fio --name="$1" --filename="$2" --rw="$3" --bs="$4" --size=$SZ \
		--io_size="$5" --direct=1 --ioengine=psync \
		--output-format=terse --terse-version=3 2>/dev/null |
		awk -F';' -v n="$1" -v rw="$3" '{
			bw = (rw ~ /read/) ? $7 : $48
			io = (rw ~ /read/) ? $8 : $49
			printf "@@ bench %s kib_s=%s ios=%s\n", n, bw, io }'
}
rows() {	# LABEL DEV
	row "$1 randwrite-4k" "$2" randwrite 4k 64m
	row "$1 write-1m" "$2" write 1m 1g
	row "$1 randread-4k" "$2" randread 4k 128m
}

echo "@@ bench kernel $(uname -r)"
r=0
while [ $r -lt "$ROUNDS" ]; do
	r=$((r + 1))
	insmod "$SBD_KO" nsectors=$((SZ / 512)) || exit 1
	rows plain /dev/sbd0
	rmmod sbd
	insmod "$SBD_KO" nsectors=$((SZ / 512)) ndevices=2 cache_mb=64 || exit 1
	rows cache /dev/sbd0
	rows record /dev/sbd1
	awk '{ printf "%s=%s ", $1, $2 } END { print "" }' /sys/block/sbd1/sbd/record_stats |
		sed 's/^/@@ bench round-stats /'
	rmmod sbd
done

# Visits on a full recording: 4 KiB random writes into 1 GiB, a FLUSH
# every 64, until the recording's 256 MiB run out.
insmod "$SBD_KO" nsectors=$((1073741824 / 512)) cache_mb=64 || exit 1
S=/sys/block/sbd0/sbd
echo 'start 256' > $S/record
fio --name=fill --filename=/dev/sbd0 --rw=randwrite --bs=4k --size=1g \
	--direct=1 --ioengine=libaio --iodepth=8 --fsync=64 --number_ios=80000 \
	> /dev/null 2>&1
echo stop > $S/record 2>/dev/null
rs() { awk -v k="$1" '$1 == k { print $2 }' $S/record_stats; }
n=$(rs points)
echo "@@ bench full state=$(rs state) points=$n writes=$(rs writes) memory_used=$(rs memory_used) saved_bytes=$(rs saved_bytes)"
visit() {	# TEXT
	m0=$(rs moved_bytes)
	echo "$1" > $S/visit
	echo "@@ bench visit '$1' moved=$(($(rs moved_bytes) - m0)) usec=$(rs last_move_usec)"
}
visit "0 none"
visit end
visit "$((n / 2)) torn 1"
visit "$((n / 2 + 1)) all"
visit end
i=1
while [ $i -le 8 ]; do
	visit "$((n - i * 64)) none"
	i=$((i + 1))
done
visit end
rmmod sbd
echo "@@ bench done"
