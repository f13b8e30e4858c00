#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench.sh: benchmark sbd side by side with brd, null_blk and zram.
#
#   KERNELS="7.2 6.12"   which kernels (default "7.2 6.12"; 6.1 works too)
#   ROUNDS=3             rounds; the median is the figure, min-max the spread
#   SIZE_MB=512          size of every device (MiB)
#   RUNTIME=3 RAMP=1     seconds per fio job (time_based) and its ramp
#   TUNE=iostats=0,nomerges=2,wbt_lat_usec=0   sysfs settings for "sbd-tuned"
#   ICOUNT=3             QEMU -icount shift (see below); ICOUNT=0: wall clock
#   PARALLEL=1           boot the kernels' VMs at the same time (0: in turn)
#   BENCH_VM_MEM=MiB     guest memory (default: enough for the disks, >= 6144)
#   VM_CPUS=2            guest vCPUs; for ICOUNT=0 use 1 (one busy host
#                        thread per VM: less noise on a small host)
#   BENCH_REPORT_ONLY=1  only redo the tables and chart from the last run
#   BENCH_RESULTS=bench/results where the table, CSVs and chart go
#   BENCH_LBS=4096,16384,65536  sbd alone at these logical block sizes
#                        (default on the newest kernel only; "none": skip)
#   BENCH_VARIANTS="sbdn:nocopy sbdc:head:cache_mb=64 sbdo:749dfb9"
#                        sbd variants loaded beside sbd in the same boot,
#                        NAME:SOURCE[:PARAMS] ("none": no variants): each
#                        is sbd built as module and disk NAME
#                        (bench/variant.py) from SOURCE = "head" (this
#                        tree), "nocopy" (this tree with the copy left
#                        out: the request path alone), "noqueuerqs" (this
#                        tree without its .queue_rqs handler) or a
#                        commit, loaded
#                        with PARAMS (comma-separated) added.  The default:
#                        sbd's request path without its copy, sbd with a
#                        64 MiB power-cut write cache, and sbd as of
#                        749dfb9 (before the write cache and large blocks)
#   BENCH_SIZES=64,512,2048,8192  first, sbd and brd alone at each size
#                        (MiB): load time and memory after loading and
#                        after one full write ("none": skip); the VM gets
#                        memory enough for the largest
#   BENCH_PROFILE=none   or a workload (randread-qd1): after the rounds,
#                        the kernel functions one I/O of it calls on sbd,
#                        brd, null_blk, the floor and sbdn, counted with
#                        the function tracer (profile-KERNEL.md)
# For experiments: BENCH_ONLY=randread-qd1,... and BENCH_DEVS=sbd,brd,...
# pick workloads and devices; BENCH_EXTRA_KO=DIR packs DIR/TIER/NAME.ko
# (an sbd built under another module and disk name) and benchmarks its
# /dev/NAME0 in the same boot.
#
# Why -icount: under plain TCG the guest's clock is the host's, so every
# other process on the host (a shared 2-core machine) changes the numbers,
# by a factor of 2-7 from one 5 s job to the next.  With -icount the
# guest's clock advances with the instructions it executes (2^ICOUNT ns
# each), so IOPS and MiB/s measure the instructions each I/O costs, and
# are the same whatever else the host runs (it only takes longer).  One
# host thread runs both vCPUs; the VMs run single-threaded, so booting
# the kernels in parallel costs nothing in accuracy.
#
# One VM boot per kernel (tests/vm-bench.sh inside); results go to
# $BENCH_RESULTS/results.md (tables), results.csv (every round),
# summary.csv (medians), ratios.png (each device's ratio to brd) and
# sizes.png (memory and load time against disk size).
# Not part of the test suite: nothing here asserts a speed.
. "$(dirname "$0")/lib.sh"
need_root
KERNELS=${KERNELS:-7.2 6.12}
ROUNDS=${ROUNDS:-3}
SIZE_MB=${SIZE_MB:-512}
RUNTIME=${RUNTIME:-3}
RAMP=${RAMP:-1}
TUNE=${TUNE:-iostats=0,nomerges=2,wbt_lat_usec=0}
ICOUNT=${ICOUNT:-3}
PARALLEL=${PARALLEL:-1}
RESULTS=${BENCH_RESULTS:-$SBD_ROOT/bench/results}
SIZES=${BENCH_SIZES:-64,512,2048,8192}
VARIANTS=${BENCH_VARIANTS-sbdn:nocopy sbdc:head:cache_mb=64 sbdo:749dfb9}
[ "$VARIANTS" = none ] && VARIANTS=""
"$SBD_ROOT/scripts/install-deps.sh" gnuplot-nox python3 libc6-dev

work=$SBD_OUT/bench
mkdir -p "$work" "$RESULTS"
gcc -static -O2 -Wall -o "$work/memcpy-bench" "$SBD_ROOT/bench/memcpy-bench.c"

# The variants' sources, once for every kernel: $work/variants/NAME.
rm -rf "$work/variants"
for v in $VARIANTS; do
	name=${v%%:*} rest=${v#*:}
	source=${rest%%:*}
	vsrc=$work/variants/$name-src
	mkdir -p "$vsrc"
	case $source in
	head | nocopy | noqueuerqs) cp "$SBD_ROOT"/*.[ch] "$vsrc/" ;;
	*)
		# Every source of that commit (sbd.c alone, or with the files
		# the cache and the features moved to).
		files=$(git -C "$SBD_ROOT" ls-tree --name-only "$source" 2>/dev/null |
			grep -E '^sbd[^/]*\.[ch]$') ||
			die "variant $name: no commit $source in this clone"
		for f in $files; do
			git -C "$SBD_ROOT" show "$source:$f" > "$vsrc/$f"
		done
		;;
	esac
	feat=""
	case $source in nocopy | noqueuerqs) feat=$source ;; esac
	# shellcheck disable=SC2086 # no feature, or one word
	/usr/bin/python3 "$SBD_ROOT/bench/variant.py" "$name" "$vsrc" \
		"$work/variants/$name" $feat || die "variant $name: bench/variant.py failed"
	params=""; [ "$rest" != "$source" ] && params=${rest#*:}
	echo "$params" > "$work/variants/$name/params"
done

[ "$ICOUNT" = 0 ] || use_icount "$work/icount" "$ICOUNT"

# bench_kernel K: build, pack and boot one kernel's benchmark.
bench_kernel() {
	local k=$1 tier label out extra nextra mem lbs
	tier=$(KERNELS=$k kernel_tiers)
	# Blocks above the page size need 6.15 or later: the newest tier.
	lbs=none
	[ "$tier" != newest ] || lbs=4096,16384,65536
	lbs=${BENCH_LBS:-$lbs}
	label=$k; [ "$tier" = newest ] && label=7.2
	out=$work/$tier
	mkdir -p "$out"
	# A cached kernel is used as it is (fetch-kernel.sh waits for any
	# other fetch on this machine, even when it has nothing to do).
	if ! [ -f "$(kernel_dir "$tier")/vmlinuz" ] || ! [ -f "$(kernel_dir "$tier")/kdir" ]; then
		"$SBD_ROOT/scripts/fetch-kernel.sh" "$tier" >"$out/fetch.log" 2>&1 ||
			{ tail "$out/fetch.log"; die "$tier: fetching the kernel failed"; }
	fi
	"$SBD_ROOT/scripts/build-module.sh" "$tier" >"$out/build.log" 2>&1 ||
		{ tail "$out/build.log"; die "$tier: build failed"; }
	extra=$out/extra
	rm -rf "$extra"
	mkdir -p "$extra/bench/ko"
	cp "$work/memcpy-bench" "$extra/bench/"
	if [ -n "${BENCH_EXTRA_KO:-}" ] && [ -d "$BENCH_EXTRA_KO/$tier" ]; then
		cp "$BENCH_EXTRA_KO/$tier"/*.ko "$extra/bench/ko/" 2>/dev/null || true
	fi
	for v in $VARIANTS; do
		name=${v%%:*}
		SBD_SRC=$work/variants/$name SBD_BUILD=$out/variants/$name \
			"$SBD_ROOT/scripts/build-module.sh" "$tier" \
			>"$out/build-$name.log" 2>&1 ||
			{ tail "$out/build-$name.log"; die "$tier: building variant $name failed"; }
		cp "$out/variants/$name/$name.ko" "$extra/bench/ko/"
		# Its module parameters, comma-separated (vm-bench.sh reads them).
		cp "$work/variants/$name/params" "$extra/bench/ko/$name.params"
	done
	# Memory for four disks (one more per extra sbd), the random fill
	# file and memcpy-bench's buffer, plus room for the rest.
	nextra=$(find "$extra/bench/ko" -name '*.ko' | wc -l)
	mem=$(( SIZE_MB * (6 + nextra) + 1536 ))
	[ $mem -ge 6144 ] || mem=6144
	largest=$(echo "$SIZES" | tr ',' '\n' | grep -x '[0-9][0-9]*' | sort -n | tail -1) ||
		largest="" # SIZES=none
	[ -z "$largest" ] || [ $mem -ge $((largest + 2048)) ] || mem=$((largest + 2048))
	mem=${BENCH_VM_MEM:-$mem}
	SBD_INITRAMFS_EXTRA=$extra "$SBD_ROOT/scripts/make-initramfs.sh" "$tier" \
		"$out/initramfs.img" vm-bench.sh "$SIZE_MB" "$ROUNDS" "$RUNTIME" \
		"$RAMP" "$TUNE" "${BENCH_ONLY:-all}" "${BENCH_DEVS:-all}" "$lbs" "$SIZES" "${BENCH_PROFILE:-none}" \
		>"$out/initramfs.log" 2>&1 ||
		{ tail "$out/initramfs.log"; die "$tier: initramfs failed"; }
	log "$label: benchmarking ($(cat "$(kernel_dir "$tier")/release")); console in $out/console.log"
	VM_MEM=$mem VM_TIMEOUT=${VM_TIMEOUT:-5400} \
		"$SBD_ROOT/scripts/boot-vm.sh" "$tier" "$out/initramfs.img" \
		"$out/console.log" || die "$label: the VM did not finish"
	log "$label: done"
}

start=$(date +%s)
reports=()
labels=()
pids=()
for k in $KERNELS; do
	tier=$(KERNELS=$k kernel_tiers)
	label=$k; [ "$tier" = newest ] && label=7.2
	reports+=("$label=$work/$tier/console.log")
	labels+=("$label")
	# BENCH_REPORT_ONLY=1: redo the tables and chart from the last run.
	[ "${BENCH_REPORT_ONLY:-0}" = 1 ] && continue
	if [ "$PARALLEL" = 1 ]; then
		bench_kernel "$k" &
		pids+=($!)
	else
		bench_kernel "$k"
	fi
done
for p in "${pids[@]}"; do
	wait "$p" || die "a kernel's benchmark failed"
done

# Which sbd was measured: the last commit of its sources, and whether
# the working tree differs from it.
mapfile -t sources < <(cd "$SBD_ROOT" && ls sbd*.[ch])
src=$(git -C "$SBD_ROOT" log -1 --format='%h %cs' -- "${sources[@]}" 2>/dev/null || echo unknown)
git -C "$SBD_ROOT" diff --quiet HEAD -- "${sources[@]}" 2>/dev/null ||
	src="$src + uncommitted changes"
src="$src; sha256$(cd "$SBD_ROOT" && for f in "${sources[@]}"; do
	printf ' %s %s' "$f" "$(sha256sum < "$f" | cut -c1-12)"; done)"
BENCH_CMD="${VM_CPUS:+VM_CPUS=$VM_CPUS }KERNELS=\"$KERNELS\" ROUNDS=$ROUNDS SIZE_MB=$SIZE_MB RUNTIME=$RUNTIME RAMP=$RAMP ICOUNT=$ICOUNT${BENCH_ONLY:+ BENCH_ONLY=$BENCH_ONLY}${BENCH_DEVS:+ BENCH_DEVS=$BENCH_DEVS} BENCH_VARIANTS=\"${VARIANTS:-none}\" scripts/bench.sh" \
BENCH_SOURCE=$src /usr/bin/python3 "$SBD_ROOT/bench/report.py" "$RESULTS" "${reports[@]}"

# The chart: one panel per kernel, each device's ratio to brd per workload.
n=${#labels[@]}
{
	echo "set terminal pngcairo size 1100,$((380 * n)) font 'sans,9' noenhanced"
	echo "set output '$RESULTS/ratios.png'"
	echo "set multiplot layout $n,1"
	echo "set style data histograms; set style histogram clustered gap 1"
	echo "set style fill solid 0.85 border -1; set boxwidth 0.9"
	echo "set key outside right top; set grid ytics; set yrange [0:*]"
	echo "set xtics rotate by -25 noenhanced; set ylabel 'ratio to brd (median)'"
	for l in "${labels[@]}"; do
		dat=$RESULTS/ratios-$l.dat
		ncol=$(head -1 "$dat" | wc -w)
		echo "set title 'kernel $l: device / brd (1.0 = brd, dashed = 1.10)' noenhanced"
		printf "plot for [c=2:%d] '%s' using c:xtic(1) title columnhead noenhanced, 1 with lines lc 'black' notitle, 1.1 with lines dt 2 lc 'red' notitle\n" "$ncol" "$dat"
	done
	echo "unset multiplot"
} | gnuplot
# Memory and load time against size, where the run measured them.
sized=()
for l in "${labels[@]}"; do
	[ -s "$RESULTS/sizes-$l.dat" ] && sized+=("$l")
done
rm -f "$RESULTS/sizes.png"
if [ ${#sized[@]} -gt 0 ]; then
	{
		echo "set terminal pngcairo size 1100,$((380 * ${#sized[@]})) font 'sans,9' noenhanced"
		echo "set output '$RESULTS/sizes.png'"
		echo "set multiplot layout ${#sized[@]},2"
		echo "set logscale x 2; set grid; set key left top; set xlabel 'disk size (MiB)'"
		for l in "${sized[@]}"; do
			dat=$RESULTS/sizes-$l.dat
			echo "set title 'kernel $l: memory in use (MiB)'; set ylabel 'MiB'"
			echo "plot '$dat' using 1:3 with linespoints title 'sbd after load', '' using 1:4 with linespoints title 'sbd after full write', '' using 1:6 with linespoints title 'brd after load', '' using 1:7 with linespoints title 'brd after full write', '' using 1:1 with lines dt 2 lc 'black' title 'size'"
			echo "set title 'kernel $l: load time (ms)'; set ylabel 'ms'"
			echo "plot '$dat' using 1:2 with linespoints title 'sbd insmod', '' using 1:5 with linespoints title 'brd modprobe'"
		done
		echo "unset multiplot"
	} | gnuplot
fi
log "took $(( $(date +%s) - start ))s; results in $RESULTS/results.md, results.csv, summary.csv, ratios.png"
cat "$RESULTS/results.md"
