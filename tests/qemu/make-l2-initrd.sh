#!/bin/bash
# Build the L2 guest's initramfs: busybox, and an /init that writes the
# runtime /proc/kallsyms to the virtio serial port "ks", then keeps the CPU
# busy with syscalls (read_zero/write_null through dd) and a user-space
# spin, both bounded by work done rather than by time (nested timers are
# coarse), then powers off. workload=N scales the work.
# With a virtio serial port "go", the guest says "l2: ready" and starts its
# work only when a line arrives there: the host starts its recorders first,
# whatever the time they take to start (see l2_go in l2-kallsyms.sh).
# ports=NAME,... on the kernel command line lists the ports the host
# attached: the guest waits for each to appear, since a port's name arrives
# on the device's control queue after the port itself, possibly after
# /init has started.
#   make-l2-initrd.sh OUTPUT
set -euo pipefail
OUT=$1
WORK=$(mktemp -d /tmp/kvmprof-l2.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK"/{bin,dev,proc,sys}
cp /bin/busybox "$WORK/bin/busybox"
ln -s busybox "$WORK/bin/sh"
cat >"$WORK/init" <<'INIT'
#!/bin/sh
/bin/busybox mount -t devtmpfs devtmpfs /dev
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
secs=$(sed -n 's/.*workload=\([0-9]*\).*/\1/p' /proc/cmdline)
# port NAME: the device of the virtio serial port named NAME, if any.
port() {
	for p in /sys/class/virtio-ports/*; do
		[ "$(cat "$p/name" 2>/dev/null)" = "$1" ] && echo "/dev/${p##*/}"
	done
}
# Wait up to a minute for each port the host says it attached.
for want in $(sed -n 's/.*ports=\([^ ]*\).*/\1/p' /proc/cmdline | tr , ' '); do
	t=0
	while [ -z "$(port "$want")" ] && [ $t -lt 300 ]; do
		sleep 0.2
		t=$((t + 1))
	done
	[ -n "$(port "$want")" ] || echo "l2: no virtio port $want"
done
ks=$(port ks)
[ -n "$ks" ] && cat /proc/kallsyms >"$ks"
n=${secs:-10}
go=$(port go)
if [ -n "$go" ]; then
	echo "l2: ready"
	read -r _ <"$go"
fi
echo "l2: workload start"
dd if=/dev/zero of=/dev/null bs=64 count=$((n * 100000)) 2>/dev/null &
i=0
while [ $i -lt $((n * 20000)) ]; do i=$((i + 1)); done
wait
echo "l2: workload done"
poweroff -f
INIT
chmod 0755 "$WORK/init"
# Written aside and renamed: suites in two lanes make it at the same time, and
# a QEMU already reading the old file keeps it whole.
(cd "$WORK" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$OUT.$$"
mv -f "$OUT.$$" "$OUT"
