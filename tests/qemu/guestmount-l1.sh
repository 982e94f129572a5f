#!/bin/bash
# Runs inside L1 (see l1-run.sh) on the kernel with the series: guestfs-mount
# serves a guest whose QEMU really runs, and stock perf kvm reads it.
#
# guestfs-mount inspects DISK (its appliance runs under KVM here), then L2
# boots Debian's kernel with DISK attached read-only, so the daemon matches
# the QEMU process by the disk it holds open and reads its LSTAR from the
# series' debugfs files. While L2 runs: the daemon's by-pid kallsyms and
# info are saved, and perf kvm --guestmount=MOUNT/by-pid records and
# reports. L2's own /proc/kallsyms (virtio serial) is the truth to compare.
#   guestmount-l1.sh BUILD_DIR REPO VMLINUZ L2_INITRD DISK
set -u
. "$(dirname "$0")/l2-kallsyms.sh"
BUILD=$1 REPO=$2 VMLINUZ=$3 INITRD=$4 DISK=$5
MNT=/tmp/gm-mnt
KVMPROF_FORCE_TCG=0 . "$REPO/scripts/guestfs-env.sh" || { echo "env: failed" >>status; exit 0; }
mkdir -p "$MNT"
cat >gm.conf <<CONF
cache /tmp/gm-cache
guest deb2p
    disk qcow2 $DISK
CONF
start_daemon() {
	"$BUILD/guestfs-mount" -f -c gm.conf "$MNT" 2>>gm.log &
	gm=$!
	for _ in $(seq 100); do mountpoint -q "$MNT" && break; sleep 0.1; done
}

# The appliance runs under KVM inside this TCG guest. Its boot normally
# takes about 25 s, but sometimes it never comes up (seen in 2 of 4 runs on
# a loaded host, with unchanged code): that is nested emulation, not the
# daemon. So a first inspection that takes over 200 s is abandoned, said in
# the status, and tried once more with a fresh daemon and cache.
# first_read SECONDS: read deb2p's kallsyms; 124 when that takes longer. A
# reader whose request the daemon holds cannot be killed (FUSE waits out a
# request already sent), so it is not waited for: killing the daemon below
# ends it.
first_read() {
	head -c 1 "$MNT/deb2p/kallsyms" >/dev/null 2>&1 &
	local pid=$! end=$((SECONDS + $1))

	while kill -0 $pid 2>/dev/null; do
		[ $SECONDS -lt $end ] || return 124
		sleep 0.5
	done
	wait $pid
}
start_daemon
t0=$(date +%s.%N)
first_read 200
rc=$?
# The nested appliance also crashes now and then (seen once in several
# runs: "the appliance stopped during the inspection"). The daemon fails
# that reader with EIO and launches again for the next one: read again.
if [ $rc != 0 ] && [ $rc != 124 ]; then
	echo "inspection: first read failed ($rc): read again" >>status
	first_read 200
	rc=$?
fi
if [ $rc = 124 ]; then
	echo "inspection: appliance stuck after 200 s: tried again" >>status
	kill -KILL $gm
	pkill -KILL -f 'qemu-system.*guestfs' 2>/dev/null
	wait $gm 2>/dev/null
	fusermount3 -u "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null
	sed -i 's|^cache /tmp/gm-cache$|cache /tmp/gm-cache2|' gm.conf
	start_daemon
	t0=$(date +%s.%N)
	first_read 300
	rc=$?
fi
echo "inspected: $rc after $(echo "$(date +%s.%N) - $t0" | bc) s" >>status

: >l2-kallsyms
qemu-system-x86_64 -accel kvm -cpu host -M pc -m 256M -smp 1 -nographic -no-reboot \
	-name l2,debug-threads=on \
	-nic none -kernel "$VMLINUZ" -initrd "$INITRD" \
	-append 'console=ttyS0 quiet panic=-1 workload=60 ports=ks' \
	-drive "file=$DISK,format=qcow2,readonly=on,if=virtio" \
	-device virtio-serial-pci -chardev file,id=ks,path=l2-kallsyms \
	-device virtserialport,chardev=ks,name=ks >l2-console.log 2>&1 &
qemu=$!
echo "qemu-pid: $qemu" >>status
wait_l2_kallsyms l2-kallsyms
sleep 1.2 # the daemon re-scans running guests once a second
ls "$MNT/by-pid" >by-pid.ls 2>&1
cp "$MNT/by-pid/$qemu/proc/kallsyms" by-pid-kallsyms 2>>status
cp "$MNT/deb2p/info" info.txt 2>>status
"$BUILD/kvmprof" guests --guests-conf gm.conf --guestmount "$MNT" >guests.txt 2>&1
echo "guests: $?" >>status
"$BUILD/kvmprof" guests --guests-conf gm.conf --guestmount "$MNT" --json >guests.json 2>&1
# The same from the guest's kernel image alone, as report would with it.
"$BUILD/kvmprof" guests --guests-conf gm.conf --guestmount "$MNT" --guestvmlinux "$VMLINUZ" \
	>guests-vmlinuz.txt 2>&1
for t in /proc/$qemu/task/*; do echo "${t##*/} $(cat "$t/comm")"; done >qemu-threads.txt
perf kvm --guest --guestmount="$MNT/by-pid" record -a -e cpu-clock -F 1000 -o perf-gm.data \
	-- sleep 4 >perf-record.out 2>&1
echo "perf-record: $?" >>status
# Reported while L2 still runs: by-pid/<pid> exists only as long as its QEMU.
# perf 6.1's report files every guest sample under its default guest
# (machines__find_guest()), so it is given the guest's kallsyms through the
# mount; its record above took the kernel map from the same file.
perf kvm --guest --guestkallsyms="$MNT/by-pid/$qemu/proc/kallsyms" report -i perf-gm.data \
	--stdio -s sym >perf-gm-report.txt 2>perf-gm-report.err
echo "perf-report: $?" >>status
"$BUILD/kvmprof" report -i perf-gm.data --guestmount="$MNT/by-pid" --guest -s sym \
	>kvmprof-gm-report.txt 2>&1
echo "kvmprof-report: $?" >>status
kill -0 $qemu 2>/dev/null && echo "l2-alive-after-report: yes" >>status

# kvmprof top on a terminal (tmux), guest symbols through the mount by the
# guest's name: the screen is saved while it runs, then q, then the
# terminal's modes are shown in the same pane.
export TMUX_TMPDIR=/tmp
tmux new-session -d -s top -x 150 -y 45 "bash --norc --noprofile"
tmux send-keys -t top "$BUILD/kvmprof top -d 2 --guests-conf gm.conf --guestmount $MNT; echo top-exit=\$?" Enter
sleep 9
tmux capture-pane -t top -p >top-screen.txt
tmux send-keys -t top q
sleep 2
tmux send-keys -t top "stty -a | tr ' ' '\n' | grep -xE -- '-?(icanon|echo)'" Enter
sleep 1
tmux capture-pane -t top -p >top-after.txt
tmux kill-server
kill -0 $qemu 2>/dev/null && echo "l2-alive-after-top: yes" >>status

# VM exits of the same guest: kvmprof stat exits records, and both it and
# perf kvm stat report the one file.
"$BUILD/kvmprof" stat exits record -a -o exits.data --guests-conf gm.conf -- sleep 3 \
	>exits-record.out 2>&1
echo "exits-record: $?" >>status
perf kvm -i exits.data stat report --event=vmexit >perf-exits-vmexit.txt 2>&1
echo "perf-exits-report: $?" >>status
"$BUILD/kvmprof" stat exits report -i exits.data --guestmount "$MNT" >kvmprof-exits.txt 2>&1
echo "kvmprof-exits-report: $?" >>status
kill -0 $qemu 2>/dev/null && echo "l2-alive-after-exits: yes" >>status

# Counting mode over every CPU: one block for the guest, by its name.
"$BUILD/kvmprof" stat -a --guests-conf gm.conf -- sleep 2 >stat.txt 2>&1
echo "stat: $?" >>status
kill -0 $qemu 2>/dev/null && echo "l2-alive-after-stat: yes" >>status
kill $qemu 2>/dev/null
wait $qemu
kill -TERM $gm
wait $gm
echo "guestfs-mount: $?" >>status
exit 0
