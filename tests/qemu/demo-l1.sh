#!/bin/bash
# Runs inside L1 (see l1-run.sh) for make demo: the guest "demo" boots its
# own disk's Debian kernel under KVM, with that disk attached read-only.
# When the guest says it is ready, kvmprof record starts; once its events
# are on, the guest is told to start its workload (l2_go), and the
# recording ends when the guest says the workload is done or its QEMU
# exits. Nothing waits for a fixed time: when the guest never gets there,
# status says why.
#   demo-l1.sh BUILD_DIR VMLINUZ L2_INITRD DISK
set -u
. "$(dirname "$0")/l2-kallsyms.sh"
BUILD=$1 VMLINUZ=$2 INITRD=$3 DISK=$4
START_LIMIT=${DEMO_START_LIMIT:-240}

# wait_line PATTERN FILE SECONDS PID: 0 once FILE has a line matching
# PATTERN; 1 when PID exits or SECONDS pass first.
wait_line() {
	local end=$((SECONDS + $3))
	while [ $SECONDS -lt $end ]; do
		grep -q "$1" "$2" 2>/dev/null && return 0
		kill -0 "$4" 2>/dev/null || { grep -q "$1" "$2" 2>/dev/null; return; }
		sleep 0.2
	done
	return 1
}

t0=$SECONDS
rm -f record.on
l2_go_prepare || { echo "go: cannot make the go port's FIFOs" >>status; exit 1; }
qemu-system-x86_64 -accel kvm -cpu host -M pc -m 256M -smp 1 -nographic -no-reboot \
	-nic none -name guest=demo,debug-threads=on -kernel "$VMLINUZ" -initrd "$INITRD" \
	-append 'console=ttyS0 quiet panic=-1 workload=8 ports=go' \
	-drive "file=$DISK,format=qcow2,readonly=on,if=virtio" \
	-device virtio-serial-pci "${L2_GO_ARGS[@]}" >l2-console.log 2>&1 &
qemu=$!
echo "qemu-pid: $qemu" >>status
if ! wait_line 'l2: ready' l2-console.log "$START_LIMIT" $qemu; then
	if kill -0 $qemu 2>/dev/null; then
		echo "start: the guest was not ready for its workload within $START_LIMIT s" >>status
		kill $qemu
	else
		echo "start: the guest stopped before it was ready for its workload:" \
			"$(tr -d '\r' <l2-console.log | grep -v '^$' | tail -1)" >>status
	fi
	wait $qemu
	exit 0
fi
# Until the guest says it is done (or its QEMU is gone): no fixed window.
until_done="until grep -q 'l2: workload done' l2-console.log || ! kill -0 $qemu 2>/dev/null; do sleep 0.2; done"
"$BUILD/kvmprof" record -a -F 1000 -o demo.data -- sh -c ": >record.on; $until_done" \
	>record.out 2>&1 &
record=$!
if l2_go record.on; then
	echo "start: workload started $((SECONDS - t0)) s after QEMU, recording" >>status
else
	echo "start: kvmprof record did not start (see record.out)" >>status
fi
wait $record
echo "record: $?" >>status
grep -q 'l2: workload done' l2-console.log &&
	echo "done: workload done $((SECONDS - t0)) s after QEMU" >>status
wait $qemu
echo "qemu: $?" >>status
exit 0
