#!/bin/bash
# make demo: the main job on a built-in default.
#
# A KVM host running a real Debian 6.12 guest, profiled from the host with no
# agent inside the guest: the project's kernel boots under QEMU as the "host"
# (software emulation, so this works on any machine), runs the Debian kernel
# as a nested KVM guest busy with syscalls and user-space work, and
# kvmprof record samples both. kvmprof report then names the guest's kernel
# functions from nothing but the Debian package's vmlinuz (its System.map is
# a placeholder), placed at the guest's KASLR slide.
set -euo pipefail
BUILD=${1:-build}
REPO=$(cd "$(dirname "$0")/.." && pwd)
[[ $BUILD == /* ]] || BUILD=$REPO/$BUILD
KVMPROF=$BUILD/kvmprof

say() { printf '\n== %s\n' "$*"; }

say "Preparing: the Debian 6.12 kernel package and the host kernel (cached after the first run)"
dir=$("$REPO/scripts/fetch-debian-kernels.sh" --print | grep 'linux-image-6\.12' | head -1)
VMLINUZ=$(ls "$dir"/boot/vmlinuz-* | head -1)
"$REPO/kernel/build.sh" >/dev/null
mkdir -p "$BUILD/l2"
"$REPO/tests/qemu/make-l2-initrd.sh" "$BUILD/l2/initrd.gz"
OUT=$BUILD/demo
rm -rf "$OUT" && mkdir -p "$OUT"

say "Booting the host under QEMU; the Debian guest runs inside it under KVM (about 30 s)"
"$REPO/tests/qemu/l1-run.sh" -t 400 "$OUT" "$REPO/tests/qemu/debian-guest-l1.sh" "$BUILD" \
	"$VMLINUZ" "$BUILD/l2/initrd.gz"
grep -E '^\[' "$OUT/record.out" || true

say "The guest's kernel, function by function (kvmprof report --guest -s guest,sym), symbols from $(basename "$VMLINUZ")"
"$KVMPROF" report -i "$OUT/deb.data" --guestkallsyms "$VMLINUZ" --guest -s guest,sym -n \
	>"$OUT/report.txt"
sed -n '/^# Guests:/,/^# Overhead/p' "$OUT/report.txt"
grep -E '\[g\] ' "$OUT/report.txt" | head -20

say "Host and guest together, per mode (kvmprof report -s cpumode --showcpuutilization)"
"$KVMPROF" report -i "$OUT/deb.data" --guestkallsyms "$VMLINUZ" -s cpumode \
	--showcpuutilization | grep -v '^#' | sed '/^$/d'

echo
echo "The recording is $OUT/deb.data (perf report can open it too)."
