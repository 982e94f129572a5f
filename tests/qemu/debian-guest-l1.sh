#!/bin/bash
# Runs inside L1 (see l1-run.sh): a real Debian 6.12 kernel as L2 under
# nested KVM (KASLR on), busy with syscalls and a user-space spin, sampled by
# perf kvm --guest record and kvmprof record at the same time. L2 first
# writes its runtime /proc/kallsyms to a virtio serial port, so perf gets
# the guest's real kallsyms, as a perf user copying it by hand would. L2
# starts its work only once both recorders run (l2_go), however long they
# take to start.
#   debian-guest-l1.sh BUILD_DIR VMLINUZ L2_INITRD
#
# L2 is the third level of virtualization on a machine that is itself a
# VM, and now and then it stops there: during boot, or after its work
# without powering off. Such a run says so in ./status and runs once more;
# the lines of the first try stay there, marked as retried. A recorder that
# does not end when L2 has ended is the recorder's fault: said in ./status,
# with where it waits, and not retried.
set -u
. "$(dirname "$0")/l2-kallsyms.sh"
BUILD=$1 VMLINUZ=$2 INITRD=$3
# L2's work takes about 10 s; a minute past go means it will not end.
L2_AFTER_GO=90
RECORDER_AFTER_L2=60

# One boot and recording of L2. Returns 2 when L2 itself failed (no
# kallsyms, or no power-off): worth another try.
l2_attempt() {
	local t0 qemu qemu_pid perf record until_l2_exits l2_failed=0
	rm -f perf.on kvmprof.on
	l2_go_prepare || { echo "go: cannot make the go port's FIFOs" >>status; return 1; }
	t0=$(date +%s.%N)
	# Booted again if KASLR left it unslid (l2_boot).
	if ! l2_boot l2-kallsyms timeout 300 qemu-system-x86_64 -accel kvm -cpu host -M pc \
		-m 256M -smp 1 -nographic -no-reboot -nic none -name guest=deb12 \
		-kernel "$VMLINUZ" -initrd "$INITRD" \
		-append 'console=ttyS0 quiet panic=-1 workload=8 ports=ks,go' \
		-device virtio-serial-pci -chardev file,id=ks,path=l2-kallsyms \
		-device virtserialport,chardev=ks,name=ks "${L2_GO_ARGS[@]}"; then
		echo "kallsyms: $(wc -l <l2-kallsyms) lines: L2 did not write them" >>status
		kill "$L2_PID" 2>/dev/null
		wait "$L2_PID" 2>/dev/null
		return 2
	fi
	qemu=$L2_PID
	echo "kallsyms: $(wc -l <l2-kallsyms) lines after $(echo "$(date +%s.%N) - $t0" | bc) s" >>status
	# $qemu is timeout's pid; KVM names the VM's debugfs folder after QEMU's.
	qemu_pid=$(pgrep -P "$qemu" -f qemu-system | head -1)
	echo "qemu-pid: $qemu_pid" >>status
	# L2 runs its kernel now: its LSTAR, as lib/kvmdebugfs reads it.
	"$BUILD/guestctx/kvm-guest-regs" "$qemu_pid" >guest-regs.out 2>&1
	# Both record until L2 powers off; each one's command marks that it runs.
	until_l2_exits="while kill -0 $qemu 2>/dev/null; do sleep 0.2; done"
	perf kvm --guest --guestkallsyms="$PWD/l2-kallsyms" record -a -e cpu-clock -F 1000 \
		-o perf-deb.data -- sh -c ": >perf.on; $until_l2_exits" >perf-record.out 2>&1 &
	perf=$!
	# kvmprof is given the runtime kallsyms too, as perf kvm record is; -g
	# adds the host's call chains (KVM's, under the guest).
	"$BUILD/kvmprof" record -a -g -F 1000 --guestkallsyms="$PWD/l2-kallsyms" -o deb.data \
		-- sh -c ": >kvmprof.on; $until_l2_exits" >record.out 2>&1 &
	record=$!
	l2_go perf.on kvmprof.on
	echo "go: $? after $(echo "$(date +%s.%N) - $t0" | bc) s" >>status
	if wait_exit "$qemu" $L2_AFTER_GO; then
		echo "qemu: $EXIT_STATUS after $(echo "$(date +%s.%N) - $t0" | bc) s" >>status
	else
		echo "qemu: L2 still running $L2_AFTER_GO s after go: $(proc_state "$qemu_pid"); killed" >>status
		kill "$qemu"
		wait "$qemu"
		l2_failed=1
	fi
	wait_recorder $record record $RECORDER_AFTER_L2
	wait_recorder $perf perf-record $RECORDER_AFTER_L2
	[ $l2_failed = 0 ] || return 2
	# perf's report with the runtime kallsyms: the reference for kvmprof.
	perf kvm --guest --guestkallsyms="$PWD/l2-kallsyms" report -i perf-deb.data --stdio \
		-s sym >perf-report.txt 2>perf-report.err
	echo "perf-report: $?" >>status
}

before=0
[ -f status ] && before=$(wc -l <status)
l2_attempt
ret=$?
if [ $ret = 2 ]; then
	# Keep the first try's lines, marked, and its console; then once more.
	mv status status.1
	{
		head -n "$before" status.1
		tail -n +$((before + 1)) status.1 | sed 's/^/retried: /'
	} >status
	rm -f status.1
	mv l2-console.log l2-console.1.log
	l2_attempt
	ret=$?
fi
exit $ret
