#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot-vm.sh TIER INITRAMFS LOG: boot TIER's kernel under QEMU (TCG) with
# INITRAMFS and write the serial console to LOG.
#
# Exit status: 0 if the guest reached the end of /init ("@@ vm-done"),
# 1 if it panicked, hung or was killed (the console's last lines are
# printed).  The guest is never given more than $VM_TIMEOUT seconds.
# Stock kernels hang under this machine's nested KVM: TCG only.
. "$(dirname "$0")/lib.sh"
tier=${1:?usage: boot-vm.sh TIER INITRAMFS LOG}
initrd=${2:?initramfs}
logf=${3:?log file}
VM_TIMEOUT=${VM_TIMEOUT:-1800}
VM_MEM=${VM_MEM:-6144}
VM_CPUS=${VM_CPUS:-2}
kernel=$(kernel_dir "$tier")/vmlinuz
# loglevel=1 keeps printk off the console so result lines stay whole;
# oopses and panics still print, and the tests read dmesg themselves.
# oops=panic: after an oops the guest can hang in the dying task for
# good ("Fixing recursive fault but reboot is needed!"); panicking
# stops it at once (panic=-1 and -no-reboot end QEMU) instead of at
# VM_TIMEOUT, and the oops is in the console lines shown.
# The tests never clear the kernel log (a report must not be lost before
# it is checked): log_buf_len makes room for a whole run, fault-injection
# stack dumps included; printk.devkmsg=on lets their markers in unlimited.
VM_APPEND=${VM_APPEND:-console=ttyS0 quiet loglevel=1 panic=-1 oops=panic}
VM_APPEND="$VM_APPEND log_buf_len=32M printk.devkmsg=on"
# More QEMU arguments, split on blanks (run-apps.sh: the -virtfs shares).
read -ra qemu_extra <<< "${VM_QEMU_EXTRA:-}"

# boot LOG: one boot, console to LOG; returns qemu's (or timeout's) status.
boot() {
	timeout --foreground -k 10 "$VM_TIMEOUT" \
		qemu-system-x86_64 -accel tcg -cpu max -smp "$VM_CPUS" \
		-m "$VM_MEM" -nographic -no-reboot -monitor none -serial stdio \
		-kernel "$kernel" -initrd "$initrd" -append "$VM_APPEND" \
		"${qemu_extra[@]}" </dev/null >"$1" 2>&1
}

mkdir -p "$(dirname "$logf")"
rc=0
boot "$logf" || rc=$?
# A guest that dies before /init starts has not run a single test: seen
# rarely under TCG on a loaded machine (a panic while unpacking the
# initramfs).  Say so and boot once more; anything later is the tests'.
if ! grep -aq '@@ init' "$logf"; then
	echo "$tier: guest died before /init started; its console:" >&2
	tail -n 15 "$logf" | sed 's/^/    | /' >&2
	echo "$tier: booting again (once)" >&2
	mv "$logf" "$logf.first-boot"
	rc=0
	boot "$logf" || rc=$?
fi

if grep -aq '^@@ vm-done' "$logf"; then
	exit 0
fi
if [ $rc = 124 ] || [ $rc = 137 ]; then
	echo "$tier: VM timed out after ${VM_TIMEOUT}s; last console lines:" >&2
else
	echo "$tier: VM stopped before the tests finished (qemu exit $rc); last console lines:" >&2
fi
tail -n 40 "$logf" | sed 's/^/    | /' >&2
exit 1
