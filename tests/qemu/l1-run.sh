#!/bin/bash
# Run a script inside an L1 guest: the project's kernel under QEMU software
# emulation (nested SVM works there), with this machine's root mounted
# read-only over virtio-9p, so qemu, perf, kvmprof and the test programs run
# inside L1 unpacked.
#
#   tests/qemu/l1-run.sh [-k KERNEL_DIR] [-t TIMEOUT] [-m MEM] [-s DIR]... OUTDIR SCRIPT [ARGS...]
#
# KERNEL_DIR is the project's kernel build (bzImage, 9p and KVM built in;
# default: kernel/build.sh's cache), or an unpacked Debian linux-image
# package (boot/vmlinuz-*, lib/modules/<version>/): then the modules for
# 9p and KVM go into the initramfs, decompressed, and are loaded first.
#
# SCRIPT (a path on this machine) runs as root chrooted into the host root,
# with OUTDIR (writable, shared over 9p) mounted at /results and its own
# output in OUTDIR/l1.log. /proc, /sys, /dev and debugfs are mounted inside
# the chroot, /tmp and /var/tmp are tmpfs. A checkout under those, and each
# -s DIR (say, a disk image's folder there), is shared read-only at its own
# path. Exits with SCRIPT's status (124 on timeout).
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
KERNEL_DIR=""
TIMEOUT=${L1_TIMEOUT:-600}
MEM=2G
SHARES=()
while getopts "k:t:m:s:" opt; do
	case $opt in
	k) KERNEL_DIR=$OPTARG ;;
	t) TIMEOUT=$OPTARG ;;
	m) MEM=$OPTARG ;;
	s)
		d=$(cd "$OPTARG" && pwd) || exit 2
		SHARES+=("$d")
		;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
OUT=${1:?usage: l1-run.sh [-k KERNEL_DIR] OUTDIR SCRIPT [ARGS...]}
SCRIPT=${2:?usage: l1-run.sh [-k KERNEL_DIR] OUTDIR SCRIPT [ARGS...]}
shift 2
[[ -n $KERNEL_DIR ]] || KERNEL_DIR=$("$REPO/kernel/build.sh" --print-dir) || exit 1
BZIMAGE=$KERNEL_DIR/bzImage
[[ -f $BZIMAGE ]] || BZIMAGE=$(ls "$KERNEL_DIR"/boot/vmlinuz-* 2>/dev/null | head -1)
[[ -f $BZIMAGE ]] || { echo "l1-run: no bzImage or boot/vmlinuz-* in $KERNEL_DIR" >&2; exit 1; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
SCRIPT=$(cd "$(dirname "$SCRIPT")" && pwd)/$(basename "$SCRIPT")

WORK=$(mktemp -d /tmp/kvmprof-l1.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK"/root/{bin,dev,proc,sys,host}
cp /bin/busybox "$WORK/root/bin/busybox"
ln -s busybox "$WORK/root/bin/sh"

# A distribution kernel: its modules for 9p and KVM, dependencies first.
add_module() {
	local name=$1 ko dep
	[[ " ${MODS[*]} " == *" $name "* ]] && return 0
	ko=$(find "$MODDIR" -name "$name.ko*" -print -quit)
	[[ -n $ko ]] || { echo "l1-run: module $name not in $MODDIR" >&2; return 1; }
	for dep in $(modinfo -F depends "$ko" | tr ',' ' '); do
		add_module "$dep" || return 1
	done
	case $ko in
	*.xz) xz -dc "$ko" ;;
	*.zst) zstd -dcq "$ko" ;;
	*.gz) gzip -dc "$ko" ;;
	*) cat "$ko" ;;
	esac >"$WORK/root/modules/$name.ko" || return 1
	MODS+=("$name")
	echo "$name" >>"$WORK/root/modules/order"
}
MODS=()
if [[ ! -f $KERNEL_DIR/bzImage ]]; then
	MODDIR=$(ls -d "$KERNEL_DIR"/lib/modules/*/ 2>/dev/null | head -1)
	mkdir -p "$WORK/root/modules"
	for m in 9pnet_virtio 9p kvm-amd; do
		add_module "$m" || exit 1
	done
fi
# Arguments travel quoted in a file: the kernel command line is too small.
printf '%q ' "$SCRIPT" "$@" >"$WORK/root/cmd"
# /tmp in L1 is a fresh tmpfs: a checkout or a cache folder (KVMPROF_CACHE:
# the kernels and disk images L2 uses) under /tmp is shared separately and
# mounted back at its own path.
CACHE=${KVMPROF_CACHE:-/var/cache/kvmprof}
[[ -d $CACHE ]] && CACHE=$(cd "$CACHE" && pwd)
for d in "$REPO" "$CACHE"; do
	[[ $d == /tmp/* || $d == /var/tmp/* ]] && [[ -d $d ]] && SHARES+=("$d")
done
SHARE_ARGS=()
: >"$WORK/root/shares"
for i in "${!SHARES[@]}"; do
	echo "share$i ${SHARES[$i]}" >>"$WORK/root/shares"
	SHARE_ARGS+=(-virtfs "local,path=${SHARES[$i]},mount_tag=share$i,security_model=none,readonly=on,multidevs=remap")
done
cat >"$WORK/root/init" <<'INIT'
#!/bin/sh
/bin/busybox mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
/bin/busybox --install -s /bin
mount -t proc proc /proc
if [ -f /modules/order ]; then
	for m in $(cat /modules/order); do
		insmod "/modules/$m.ko" || echo "l1: insmod $m failed"
	done
fi
o=trans=virtio,version=9p2000.L,msize=512000
mount -t 9p -o $o,ro,cache=loose hostroot /host || { echo "l1: no host root"; poweroff -f; }
mount -t tmpfs tmpfs /host/tmp
mount -t tmpfs tmpfs /host/var/tmp
mount -t proc proc /host/proc
mount -t sysfs sysfs /host/sys
mount -t devtmpfs devtmpfs /host/dev
mount -t debugfs debugfs /host/sys/kernel/debug
mount -t tracefs tracefs /host/sys/kernel/tracing 2>/dev/null
mkdir -p /host/dev/pts
mount -t devpts devpts /host/dev/pts
mkdir -p /host/tmp/results
mount -t 9p -o $o results /host/tmp/results
while read -r tag dir; do
	mkdir -p "/host$dir"
	mount -t 9p -o $o,ro,cache=loose "$tag" "/host$dir"
done </shares
ip link set lo up 2>/dev/null
chroot /host /bin/bash -c "cd /tmp/results && export PATH=/usr/sbin:/usr/bin:/sbin:/bin TMPDIR=/tmp HOME=/tmp && $(cat /cmd)" \
	>/host/tmp/results/l1.log 2>&1
echo "l1: status $?"
sync
poweroff -f
INIT
chmod 0755 "$WORK/root/init"
(cd "$WORK/root" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$WORK/initrd"
# run_l1: boots L1 once; its console in $WORK/console and OUT/l1-console.log.
run_l1() {
	rm -f "$OUT/l1.log"
	timeout "$TIMEOUT" qemu-system-x86_64 -accel tcg -cpu EPYC -m "$MEM" -smp 2 \
		-nographic -no-reboot -nic none \
		-kernel "$BZIMAGE" -initrd "$WORK/initrd" \
		-append 'console=ttyS0 quiet panic=-1' \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		-virtfs local,path="$OUT",mount_tag=results,security_model=none "${SHARE_ARGS[@]}" \
		</dev/null >"$WORK/console" 2>&1 &
	# timeout runs QEMU in a process group of its own: a TERM or Ctrl-C meant
	# for this script is passed on, so that no QEMU outlives an interrupted run.
	qemu_pid=$!
	trap 'kill -TERM "$qemu_pid" 2>/dev/null; wait "$qemu_pid"; rm -rf "$WORK"; exit 143' TERM INT HUP
	wait "$qemu_pid"
	rc=$?
	trap - TERM INT HUP
	cp "$WORK/console" "$OUT/l1-console.log"
}

# What a kernel in trouble prints first.
KERNEL_TROUBLE='Kernel panic|BUG:|Oops|general protection|RIP:'

# Diagnostics go out as "# " lines: the test suites' summaries show those.
# A panic's first lines, then the console's end, without terminal codes.
say_console() {
	echo "# l1-run: $1; console:" >&2
	{
		grep -m 3 -E "$KERNEL_TROUBLE" "$WORK/console"
		echo ...
		tail -10 "$WORK/console"
	} | tr -d '\r' | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/^/#   /' >&2
}

# L1's status, as its init printed it; empty when L1 did not get that far.
l1_status() {
	sed -n 's/^l1: status \([0-9]*\).*/\1/p' "$WORK/console" | tr -d '\r' | tail -1
}

# L1, software-emulated, now and then resets while a guest it nests under
# KVM starts: QEMU ends without a kernel message, before the script's end.
# That is the emulator's doing: such a run goes once more, its files kept
# in OUT/l1-reset/. A panic, an oops or a timeout is not retried.
l1_reset() {
	[[ $rc != 124 && -z $(l1_status) ]] &&
		! grep -qE "$KERNEL_TROUBLE" "$WORK/console"
}

run_l1
if l1_reset; then
	say_console "L1 reset after $SECONDS s, without a kernel message, before its script ended: once more"
	mkdir -p "$OUT/l1-reset"
	find "$OUT" -mindepth 1 -maxdepth 1 ! -name l1-reset -exec mv -t "$OUT/l1-reset" {} +
	run_l1
fi
if ((rc == 124)); then
	say_console "timed out after $TIMEOUT s"
	exit 124
fi
status=$(l1_status)
if [[ -z $status ]]; then
	say_console "the guest did not finish"
	exit 1
fi
exit "$status"
