#!/bin/bash
# Runs inside L1 (see l1-run.sh): the tiny guest under nested KVM, sampled by
# kvmprof record and perf kvm record; the files land in /tmp/results.
#   tiny-guest-l1.sh BUILD_DIR
set -u
BUILD=$1
"$BUILD/tinyvm/tinyvmm" -name guest=tiny --seconds 10 "$BUILD/tinyvm/payload.elf" >vmm.out 2>&1 &
vmm=$!
sleep 1
# perf's own guest recording of the same guest, at the same time, for the
# interoperability checks.
perf kvm --guest --guestkallsyms="$BUILD/tinyvm/payload.map" record -a -e cpu-clock \
	-o perf-tiny.data -- sleep 3 >perf-record.out 2>&1 &
perf=$!
"$BUILD/kvmprof" record -a -o tiny.data -- sleep 3 >record.out 2>&1
echo "record: $?" >>status
wait $perf
echo "perf-record: $?" >>status
wait $vmm
echo "vmm: $?" >>status
