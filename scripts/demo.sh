#!/bin/bash
# make demo: the whole design on a built-in default, step by step.
#
#   1. a disk image for a guest named "demo": a Debian 12 root holding the
#      linux-image-6.12 package's files (the project's test image);
#   2. guestfs-mount serves "demo" from that image on a temporary mountpoint:
#      kernel symbols, modules and the kernel itself, read from the disk in
#      libguestfs's appliance;
#   3. the guest boots that image's own kernel (read through the mount) as a
#      KVM guest of a KVM host: the project's kernel under QEMU software
#      emulation, so this runs on any machine;
#   4. kvmprof record samples the host and the guest: it starts when the
#      guest says it is ready, the guest starts its workload once the
#      recording runs, and the recording stops when the guest says it is
#      done (no fixed window, so a slow boot cannot make it miss the work);
#   5. kvmprof report names the guest's kernel functions through the mount,
#      by the guest's name, at the KASLR slide the recording found;
#   6. kvmprof export writes the same profile as folded stacks, a flame
#      graph and a pprof profile.
#
# Everything it starts (the daemon, QEMU) and its temporary files go away on
# exit and on Ctrl-C. The recording stays in BUILD/demo.
set -euo pipefail
BUILD=${1:-build}
REPO=$(cd "$(dirname "$0")/.." && pwd)
[[ $BUILD == /* ]] || BUILD=$REPO/$BUILD
KVMPROF=$BUILD/kvmprof
GUESTFS_MOUNT=$BUILD/guestfs-mount
T0=$SECONDS
STEP=0

step() {
	STEP=$((STEP + 1))
	printf '\n[%d] %s  (at %d s)\n' "$STEP" "$*" $((SECONDS - T0))
}
die() {
	printf 'demo: %s\n' "$*" >&2
	exit 1
}

WORK=$(mktemp -d /tmp/kvmprof-demo.XXXXXX)
MNT=$WORK/mnt
DPID= L1PID=
cleanup() {
	local rc=$?
	set +e # every step runs, whatever the one before did
	# The host QEMU and the daemon run in their own sessions (so that a
	# Ctrl-C reaches this script first): stop them here, in order.
	# (timeout(1) in l1-run.sh takes a process group of its own: the
	# session is what holds the host QEMU.)
	if [ -n "$L1PID" ]; then
		pkill -TERM -s "$L1PID" 2>/dev/null
		for _ in $(seq 50); do pgrep -s "$L1PID" >/dev/null || break; sleep 0.2; done
		wait "$L1PID" 2>/dev/null
	fi
	if [ -n "$DPID" ]; then
		kill -TERM "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null
	fi
	mountpoint -q "$MNT" 2>/dev/null && { fusermount3 -u "$MNT" 2>/dev/null || umount -l "$MNT"; }
	rm -rf "$WORK"
	exit $rc
}
trap cleanup EXIT
trap 'echo "demo: step $STEP failed (line $LINENO, status $?)" >&2' ERR
trap 'echo; echo "demo: interrupted; cleaning up"; exit 130' INT TERM
# Long waits run in the background: the wait builtin returns at once on a
# trapped signal, where a foreground command would hold the trap back.
in_background() {
	"$@" &
	wait $!
}

printf 'kvmprof demo: a KVM host and its guest "demo", profiled from the host,\n'
printf 'guest symbols read from the guest'"'"'s own disk by guestfs-mount.\n'
step "Preparing the host kernel, the libguestfs appliance and Debian's kernel packages (cached after the first run)"
"$REPO/kernel/build.sh" >/dev/null
"$REPO/scripts/appliance.sh" >/dev/null
"$REPO/scripts/fetch-debian-kernels.sh" >/dev/null
mkdir -p "$BUILD/l2"
"$REPO/tests/qemu/make-l2-initrd.sh" "$BUILD/l2/initrd.gz"

step "Making the disk image of guest demo: Debian 12, linux-image-6.12's files in /boot and /usr/lib/modules"
IMG=$("$REPO/tests/data-builders/guest-images.sh") || die "building the disk image failed"
DISK=$IMG/deb-2part.qcow2
echo "    $DISK ($(qemu-img info --output=json "$DISK" | sed -n 's/.*"format": "\([a-z0-9]*\)".*/\1/p'), $(du -h "$DISK" | cut -f1))"

step "Starting guestfs-mount on $MNT, serving demo from that image (read-only)"
mkdir -p "$MNT"
cat >"$WORK/guests.conf" <<EOF
cache $WORK/cache
guest demo
    disk qcow2 $DISK
EOF
. "$REPO/scripts/guestfs-env.sh" || die "no libguestfs appliance (scripts/appliance.sh)"
setsid "$GUESTFS_MOUNT" -f -c "$WORK/guests.conf" "$MNT" 2>"$WORK/guestfs-mount.log" &
DPID=$!
for _ in $(seq 100); do mountpoint -q "$MNT" && break; sleep 0.1; done
mountpoint -q "$MNT" || die "guestfs-mount did not mount: $(tail -3 "$WORK/guestfs-mount.log")"
echo "    inspecting the image in the appliance (software emulation here: about a minute)"
# A failed inspection (the appliance can crash under software emulation)
# is tried again by the daemon for the next reader.
first_read() { head -c 1 "$MNT/demo/kallsyms" >/dev/null 2>&1; }
in_background first_read || in_background first_read ||
	die "guestfs-mount could not serve demo: $(grep -E '^(state|error):' "$MNT/demo/info")"
grep -E '^(distro|kernel|symbols):' "$MNT/demo/info" | sed 's/^/    /'
ls "$MNT/demo" | tr '\n' ' ' | sed 's/^/    files: /'
echo
VER=$(sed -n 's/^kernel: \([^ ]*\).*/\1/p' "$MNT/demo/info")
OUT=$BUILD/demo
rm -rf "$OUT" && mkdir -p "$OUT"
cp "$MNT/demo/kernels/$VER/vmlinuz" "$OUT/vmlinuz-$VER"

step "Booting demo's own kernel $VER (from $MNT/demo/kernels/$VER/vmlinuz) under KVM, inside the host"
echo "    the host is the project's kernel under QEMU; demo runs in it under KVM, its disk attached"
echo "    kvmprof record starts when demo is ready, demo works once it records, it stops when demo is done"
# The host's /tmp is its own: a disk image there (KVMPROF_CACHE) is shared in.
SHARE=()
[[ $DISK == /tmp/* || $DISK == /var/tmp/* ]] && SHARE=(-s "$(dirname "$DISK")")
setsid "$REPO/tests/qemu/l1-run.sh" -t 500 "${SHARE[@]}" "$OUT" "$REPO/tests/qemu/demo-l1.sh" "$BUILD" \
	"$OUT/vmlinuz-$VER" "$BUILD/l2/initrd.gz" "$DISK" &
L1PID=$!
wait $L1PID || true
L1PID=
sed -n 's/^\(start\|done\):/    &/p' "$OUT/status" 2>/dev/null || true
grep -q '^record: 0' "$OUT/status" 2>/dev/null ||
	die "no recording: $(grep -E '^start:' "$OUT/status" 2>/dev/null ||
		echo "the host did not run the guest: $(tail -3 "$OUT/l1.log" 2>/dev/null)")"

step "Recorded from the host (kvmprof record -a, in the host)"
grep -E '^\[' "$OUT/record.out" | sed 's/^/    /'

step "demo's kernel, function by function: kvmprof report --guestmount $MNT --guest -s guest,sym"
"$KVMPROF" report -i "$OUT/demo.data" --guestmount "$MNT" --guest -s guest,sym -n \
	>"$OUT/report.txt"
sed -n '/^# Guests:/,/^# Overhead/p' "$OUT/report.txt" | sed '$d'
grep -E '^# Overhead' "$OUT/report.txt"
awk '/\[g\] / && n++ < 15' "$OUT/report.txt"

step "Host and guest together, per mode: kvmprof report -s cpumode --showcpuutilization"
"$KVMPROF" report -i "$OUT/demo.data" --guestmount "$MNT" -s cpumode --showcpuutilization |
	grep -vE '^# ?$' | sed -n '/^# Overhead/,$p' | sed '/^$/d'

step "Exported for other tools: kvmprof export --folded --svg --pprof (guest demo is one tower)"
"$KVMPROF" export -i "$OUT/demo.data" --guestmount "$MNT" --folded "$OUT/folded.txt" \
	--svg "$OUT/flamegraph.svg" --pprof "$OUT/demo.pb.gz"
echo "    heaviest stacks of the guest (folded: root;...;leaf count):"
# The count is the last field: frame names may hold spaces ("[guest user]").
# (No head(1) here or above: under pipefail, a writer it cut off fails the demo.)
awk '/^demo;/ { print $NF "\t" $0 }' "$OUT/folded.txt" | sort -k1,1nr |
	awk -F'\t' 'NR <= 5 { print "      " $2 }'
echo "    flame graph: $OUT/flamegraph.svg   pprof: $OUT/demo.pb.gz (go tool pprof)"

printf '\nDone in %d s. The recording is %s/demo.data (perf report opens it too).\n' \
	$((SECONDS - T0)) "$OUT"
