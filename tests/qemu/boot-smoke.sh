#!/bin/bash
# Boot smoke check for the kvmprof test kernel, under QEMU software emulation.
#
#   tests/qemu/boot-smoke.sh [KERNEL_DIR]
#
# KERNEL_DIR holds bzImage, System.map and release (kernel/build.sh's cache
# folder); by default kernel/build.sh --print-dir provides it, building first if
# needed.  The kernel boots with a tiny busybox initramfs whose /init reports
# what it finds and powers off; this script turns that report into TAP-style
# "ok - NAME" / "not ok - NAME" lines and exits non-zero if any check fails.
#
# Besides booting, it checks what the later tests rely on: nested KVM (/dev/kvm
# from kvm_amd on the emulated EPYC), KASLR, and that this machine's own QEMU and
# perf run inside the guest from the host root mounted read-only over virtio-9p.
#
# Environment: BOOT_TIMEOUT (seconds, default 180), KVMPROF_CACHE.

set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR
. "$HERE/../lib.sh" # ok/fail helpers, $REPO, $TMP (removed on exit)

BOOT_TIMEOUT=${BOOT_TIMEOUT:-180}
BUSYBOX=/bin/busybox

nfail=0
pass() { ok "$1"; }
flunk() {
	fail "$1"
	nfail=$((nfail + 1))
}
# verdict NAME CONDITION...: one TAP line from a test(1)/[[ ]] style command.
verdict() {
	local name=$1
	shift
	if "$@"; then pass "$name"; else flunk "$name"; fi
}

KERNEL_DIR=${1:-}
if [[ -z $KERNEL_DIR ]]; then
	KERNEL_DIR=$("$REPO/kernel/build.sh" --print-dir) || {
		flunk "kernel builds"
		exit 1
	}
fi
for f in bzImage System.map release; do
	[[ -s $KERNEL_DIR/$f ]] || { flunk "kernel folder has $f ($KERNEL_DIR)"; exit 1; }
done
[[ -x $BUSYBOX ]] || { flunk "busybox-static is installed ($BUSYBOX)"; exit 1; }

# --- The initramfs ---------------------------------------------------------------

# /init reports "smoke: KEY: VALUE" lines; the host side judges them.  It must
# not depend on anything but busybox, and it must always reach poweroff so
# that a failed check costs seconds, not the whole timeout.
ROOT=$TMP/initramfs
mkdir -p "$ROOT"/{bin,dev,proc,sys,host}
cp "$BUSYBOX" "$ROOT/bin/busybox"
ln -s busybox "$ROOT/bin/sh"
cat >"$ROOT/init" <<'EOF'
#!/bin/sh
# The initramfs has no /dev/console node (making one needs mknod privileges on
# the build side), so the kernel starts us with no output: mount devtmpfs first
# and reattach to the console.
/bin/busybox mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys

say() { echo "smoke: $*"; }
say "init: $(cut -d' ' -f1 /proc/uptime)"
say "uname-r: $(uname -r)"
say "randomize_va_space: $(cat /proc/sys/kernel/randomize_va_space)"
say "kallsyms-_text: $(grep ' _text$' /proc/kallsyms | cut -d' ' -f1)"
if [ -c /dev/kvm ]; then say "dev-kvm: char"; else say "dev-kvm: missing"; fi
dmesg | grep -E 'kvm_(amd|intel)' | sed 's/^/smoke: dmesg: /'

# This machine's root over virtio-9p, read-only, with scratch space and the
# kernel file systems mounted inside it, as the nested-KVM tests will use it.
if mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000,cache=loose \
	hostroot /host; then
	say "9p: mounted"
	mount -t tmpfs tmpfs /host/tmp
	mount -t proc proc /host/proc
	mount -t sysfs sysfs /host/sys
	mount -t devtmpfs devtmpfs /host/dev
	# QEMU from the host: create a KVM VM (machine "none") and ask the monitor.
	printf 'info kvm\nquit\n' |
		chroot /host qemu-system-x86_64 -machine none,accel=kvm -nodefaults \
			-display none -monitor stdio 2>&1 | tr -d '\r' |
		grep -E 'kvm support|rror' | sed 's/^/smoke: qemu: /'
	# perf from the host: a software event (no PMU under TCG).
	if chroot /host perf stat -e task-clock -x, -o /tmp/stat true; then
		say "perf: $(grep task-clock /host/tmp/stat)"
	else
		say "perf: failed"
	fi
else
	say "9p: failed"
fi

say "done: $(cut -d' ' -f1 /proc/uptime)"
poweroff -f
EOF
chmod 0755 "$ROOT/init"
(cd "$ROOT" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$TMP/initrd"

# --- Boot ----------------------------------------------------------------------------

# Each console line is stamped with the host time it arrived, to measure boot.
CONSOLE=$TMP/console.log
t_start=$EPOCHREALTIME
timeout "$BOOT_TIMEOUT" qemu-system-x86_64 -accel tcg -cpu EPYC -m 1G -smp 2 \
	-nographic -no-reboot -nic none \
	-kernel "$KERNEL_DIR/bzImage" -initrd "$TMP/initrd" \
	-append 'console=ttyS0 quiet panic=-1' \
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
	</dev/null 2>&1 |
	while IFS= read -r line; do
		printf '%s %s\n' "$EPOCHREALTIME" "${line%$'\r'}"
	done >"$CONSOLE"
qemu_rc=${PIPESTATUS[0]}
t_end=$EPOCHREALTIME

# value KEY: the text after "smoke: KEY: " (first occurrence).
value() { sed -n "s/^[0-9.]* smoke: $1: //p" "$CONSOLE" | head -n1; }
# since T: seconds from QEMU's start to host time T, one decimal.
since() { awk -v a="$t_start" -v b="$1" 'BEGIN { printf "%.1f", b - a }'; }

# --- Checks ------------------------------------------------------------------------

init_at=$(value init)
verdict "kernel boots to /init" test -n "$init_at"

want=$(cat "$KERNEL_DIR/release")
got=$(value uname-r)
verdict "uname -r is $want" test "$got" = "$want"

aslr=$(value randomize_va_space)
verdict "/proc/sys/kernel/randomize_va_space is 2 (got '$aslr')" test "$aslr" = 2

# KASLR: the running _text minus the link-time _text is the slide; it must be
# a multiple of the 2 MiB kernel alignment.  It is reported rather than required
# to be non-zero: zero is a legal, if unlikely, random choice.
runtime=$(value kallsyms-_text)
linktime=$(awk '$3 == "_text" { print $1; exit }' "$KERNEL_DIR/System.map")
if [[ $runtime =~ ^[0-9a-f]{16}$ && -n $linktime ]]; then
	slide=$((0x$runtime - 0x$linktime))
	verdict "KASLR slide is 2 MiB aligned (slide 0x$(printf %x "$slide"))" \
		test $((slide % 0x200000)) -eq 0
else
	flunk "/proc/kallsyms shows _text (got '$runtime')"
fi

verdict "kvm_amd reports nested virtualization" \
	grep -q 'smoke: dmesg: .*kvm_amd: Nested Virtualization enabled' "$CONSOLE"
verdict "/dev/kvm exists in the guest" test "$(value dev-kvm)" = char
verdict "host root mounts over virtio-9p" test "$(value 9p)" = mounted
verdict "host qemu creates a KVM VM in the guest" \
	grep -q 'smoke: qemu: kvm support: enabled' "$CONSOLE"
verdict "host perf counts task-clock in the guest" \
	grep -qE 'smoke: perf: [0-9.]+,msec,task-clock' "$CONSOLE"

done_at=$(value "done")
status="qemu status $qemu_rc"
((qemu_rc == 124)) && status+=", timed out after $BOOT_TIMEOUT s"
verdict "guest powers off ($status)" \
	test "$qemu_rc" -eq 0 -a -n "$done_at"

if grep -q 'Kernel panic' "$CONSOLE"; then
	flunk "no kernel panic"
fi

# --- Timing ---------------------------------------------------------------------------

first_init=$(awk '/ smoke: init: / { print $1; exit }' "$CONSOLE")
echo "# boot: /init after $(since "${first_init:-$t_end}") s (guest uptime ${init_at:-?} s)," \
	"poweroff after $(since "$t_end") s"
if ((nfail)); then
	echo "# console output:"
	sed 's/^[0-9.]* /#   /' "$CONSOLE" | tail -n 40
	exit 1
fi
