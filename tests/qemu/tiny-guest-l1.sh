#!/bin/bash
# Runs inside L1 (see l1-run.sh): the tiny guest under nested KVM, sampled by
# kvmprof record and perf kvm record; the files land in /tmp/results.
#   tiny-guest-l1.sh BUILD_DIR
set -u
BUILD=$1
"$BUILD/tinyvm/tinyvmm" -name guest=tiny --seconds 7 "$BUILD/tinyvm/payload.elf" >vmm.out 2>&1 &
vmm=$!
sleep 1
"$BUILD/kvmprof" record -a -o tiny.data -- sleep 2 >record.out 2>&1
echo "record: $?" >>status
# perf's own guest recording of the same guest, for the interoperability checks.
perf kvm --guest --guestkallsyms="$BUILD/tinyvm/payload.map" record -a -e cpu-clock \
	-o perf-tiny.data -- sleep 2 >perf-record.out 2>&1
echo "perf-record: $?" >>status
wait $vmm
echo "vmm: $?" >>status
