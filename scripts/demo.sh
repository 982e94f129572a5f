#!/bin/bash
# make demo: the main job on a built-in default.
#
# Until the profiler's record/report and the guestfs-mount daemon land, the
# demo shows the capability they build on: naming addresses in a real Debian
# kernel from nothing but its vmlinuz (whose System.map is a placeholder).
set -euo pipefail
BUILD=${1:-build}
REPO=$(cd "$(dirname "$0")/.." && pwd)
KVMPROF=$REPO/$BUILD/kvmprof
[[ $BUILD == /* ]] && KVMPROF=$BUILD/kvmprof

dir=$("$REPO/scripts/fetch-debian-kernels.sh" --print | head -1)
vmlinuz=$(ls "$dir"/boot/vmlinuz-* | head -1)
echo "== Symbols decoded from $(basename "$vmlinuz") (Debian kernel package, no System.map needed)"
"$KVMPROF" symbols --info "$vmlinuz"
echo
echo "== Resolving addresses, as if the guest's kernel ran with a KASLR slide of 0x1e200000"
entry=$("$KVMPROF" symbols "$vmlinuz" | awk '$3 == "entry_SYSCALL_64" { print $1; exit }')
runtime=$(printf '%x' $((0x$entry + 0x1e200000)))
"$KVMPROF" symbols "$vmlinuz" --anchor="entry_SYSCALL_64=$runtime" --lookup \
	"$runtime" "$(printf '%x' $((0x$runtime + 0x40)))"
echo
echo "Host+guest profiling (kvmprof record/report with guestfs-mount) is not yet available."
