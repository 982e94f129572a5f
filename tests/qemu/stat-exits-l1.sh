#!/bin/bash
# Runs inside L1 (see l1-run.sh): the tiny guest makes N port writes and N
# MSR reads on purpose (tinyvmm --exits N); kvmprof stat exits and perf kvm
# stat record the same guest, and perf reports both files. Results land in
# /results for 42-stat-exits to check.
#   stat-exits-l1.sh BUILD_DIR N
set -u
BUILD=$1 N=$2
VMM=("$BUILD/tinyvm/tinyvmm" -name guest=tiny --seconds 2 --exits "$N"
	"$BUILD/tinyvm/payload.elf")

"$BUILD/kvmprof" stat exits record -o exits.data -- "${VMM[@]}" >record.out 2>&1
echo "record: $?" >>status
perf kvm stat record -o perf-exits.data -- "${VMM[@]}" >perf-record.out 2>&1
echo "perf-record: $?" >>status
# perf 6.1 has no msr view (--event=msr came later).
for ev in vmexit ioport; do
	perf kvm -i perf-exits.data stat report --event=$ev >"perf-$ev.txt" 2>&1
	echo "perf-report-$ev: $?" >>status
	perf kvm -i exits.data stat report --event=$ev >"perf-on-kvmprof-$ev.txt" 2>&1
	echo "perf-on-kvmprof-$ev: $?" >>status
done

# The live views, on a guest that runs meanwhile.
"$BUILD/tinyvm/tinyvmm" -name guest=tiny --seconds 8 "$BUILD/tinyvm/payload.elf" \
	>vmm-live.out 2>&1 &
vmm=$!
sleep 1
"$BUILD/kvmprof" stat exits live -d 1 -n 2 --guestkallsyms "$BUILD/tinyvm/payload.map" \
	>live.txt 2>&1
echo "live: $?" >>status
"$BUILD/kvmprof" top --stdio -n 2 -d 1 --guestkallsyms "$BUILD/tinyvm/payload.map" \
	>top.txt 2>&1
echo "top: $?" >>status
wait $vmm
echo "vmm-live: $?" >>status
exit 0
