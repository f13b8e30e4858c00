#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fault-table.sh: which of sbd-explore's faults (--fault) ext4, xfs and
# btrfs notice, at mount, in the @db workload's check or in fsck, in one
# VM boot (tests/vm-fault-table.sh); docs/crash-testing.md keeps the
# table (bench/results-faults/ the whole output).  Not part of the
# suite: about 16 minutes under emulation, beside other VMs.
#
#   KERNELS=newest   which kernel
#   FAULTS="..."     which rows (default: none lose misdirect bitrot
#                    unreadable hold), into table-TIER-FAULTS.txt
. "$(dirname "$0")/lib.sh"
need_root
export KERNELS=${KERNELS:-newest} VM_TIMEOUT=${VM_TIMEOUT:-3600}
# The guest reads it from the kernel command line (its environment).
if [ -n "${FAULTS:-}" ]; then
	VM_APPEND="console=ttyS0 quiet loglevel=1 panic=-1 oops=panic SBD_FAULTS=$(echo "$FAULTS" | tr ' ' ,)"
	export VM_APPEND
fi
"$SBD_ROOT/scripts/install-deps.sh"
mkdir -p "$SBD_ROOT/bench/results-faults"
commit=$(git -C "$SBD_ROOT" rev-parse --short HEAD)
for tier in $(kernel_tiers); do
	out=$SBD_OUT/fault-table/$tier
	vm_image "$tier" "$out" vm-fault-table.sh
	log "$tier: booting"
	"$SBD_ROOT/scripts/boot-vm.sh" "$tier" "$out/initramfs.img" "$out/console.log" ||
		log "$tier: the VM did not finish"
	{
		echo "fault table, $tier, commit $commit, command: ${FAULTS:+FAULTS=\"$FAULTS\" }KERNELS=$KERNELS scripts/fault-table.sh"
		grep -a '^@@ bench' "$out/console.log" | sed 's/\r$//; s/^@@ bench //'
	} | tee "$SBD_ROOT/bench/results-faults/table-$tier${FAULTS:+-$(echo "$FAULTS" | tr ' ' -)}.txt"
done
