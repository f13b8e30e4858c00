#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench-record.sh: what sbd's volatile write cache and a recording cost,
# and how long visits take for the bytes they move (issue "Crash
# exploration, 1").  One VM boot per kernel, all rows in the same boot.
#
#   KERNELS="7.2 6.12"  which kernels
#   ROUNDS=5            rounds of each fio row
#   VM_CPUS=1           guest vCPUs (1: one busy host thread, less noise)
#
# Prints, per kernel, the median KiB/s of each row and its ratio to
# "plain" (no cache), and the visit lines; bench/results-record/ keeps
# the console logs.  Wall clock under TCG: compare ratios, not speeds.
. "$(dirname "$0")/lib.sh"
need_root
export KERNELS=${KERNELS:-7.2 6.12}
export VM_CPUS=${VM_CPUS:-1} VM_MEM=${VM_MEM:-6144}
res=$SBD_ROOT/bench/results-record
mkdir -p "$res"
"$SBD_ROOT/scripts/install-deps.sh"
for tier in $(kernel_tiers); do
	out=$SBD_OUT/bench-record/$tier
	mkdir -p "$out"
	"$SBD_ROOT/scripts/fetch-kernel.sh" "$tier" > "$out/fetch.log" 2>&1 ||
		die "$tier: fetch failed"
	"$SBD_ROOT/scripts/build-module.sh" "$tier" > "$out/build.log" 2>&1 ||
		die "$tier: build failed"
	"$SBD_ROOT/scripts/make-initramfs.sh" "$tier" "$out/initramfs.img" \
		vm-bench-record.sh "${ROUNDS:-5}" > "$out/initramfs.log" 2>&1 ||
		die "$tier: initramfs failed"
	log "$tier: booting"
	"$SBD_ROOT/scripts/boot-vm.sh" "$tier" "$out/initramfs.img" "$out/console.log" ||
		log "$tier: the VM did not finish"
	cp "$out/console.log" "$res/console-$tier.log"
	grep -a '^@@ bench' "$out/console.log" | sed 's/\r$//; s/^@@ bench //' | awk '
		/^kernel / { print; next }
		/kib_s=/ {
			split($3, a, "="); key = $1 " " $2
			v[key] = v[key] " " a[2]; rows[key] = 1; next
		}
		{ print }
		END {
			for (k in rows) {
				n = split(v[k], x, " "); asort(x)
				med[k] = (n % 2) ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
			}
			for (k in rows) {
				split(k, p, " "); base = med["plain " p[2]]
				printf "%-22s %10.0f KiB/s  %.2f of plain\n", k, med[k], base ? med[k] / base : 0
			}
		}' | tee "$res/summary-$tier.txt"
done
