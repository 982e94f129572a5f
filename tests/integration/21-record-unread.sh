#!/bin/bash
# Where KVM cannot run guests, record writes its rings to the file unread and
# reads the records back after the recording; where it can, record reads
# each record as it comes and wakes every second to name guests while they
# live. KVMPROF_KVM_DEVICE stands in for /sys/class/misc/kvm, so that this
# machine takes either side, and changes side in the middle of a recording.
# Either way the summary, kvmprof report and perf agree on the samples, and
# the build-id of the workload's binary is in the file.
. "$(dirname "$0")/../lib.sh"

build_spinner "$TMP/spinner" || { fail "build the spinner"; exit 1; }

written() { sed -n 's/.*wrote .*: \([0-9]*\) samples.*/\1/p' "$1"; }
report_samples() {
	"$KVMPROF" report -i "$1" --stdio 2>/dev/null |
		sed -n 's/^# Samples: \([0-9]*\) .*/\1/p' | head -1
}
# perf abbreviates "# Samples: 2K": count its samples with perf script.
perf_samples() { perf script -i "$1" -F period 2>/dev/null | wc -l; }

# The waits record makes for its rings: "NULL" (the kernel alone wakes it)
# or "1" (and a timer of a second), one line each, in order.
waits() {
	sed -n 's/^.*ppoll(\[.*\], [0-9]*, \(NULL\|{tv_sec=\([0-9]*\), tv_nsec=[0-9]*}\), .*/\1/p' "$1" |
		sed 's/{tv_sec=\([0-9]*\),.*/\1/'
}

# agree NAME FILE: the summary, kvmprof report and perf count the same
# samples, and the spinner's build-id is in the file.
agree() {
	local name=$1 f=$2 n
	n=$(written "$f.err")
	check "$name: record states its samples ($n)" test -n "$n" -a "${n:-0}" -gt 0
	check "$name: kvmprof report counts the same ($(report_samples "$f"))" \
		test "$(report_samples "$f")" = "$n"
	check "$name: perf counts the same ($(perf_samples "$f"))" test "$(perf_samples "$f")" = "$n"
	check "$name: the spinner's build-id is in the file" \
		bash -c "perf buildid-list -i '$f' 2>/dev/null | grep -q '/spinner$'"
}

if ! command -v strace >/dev/null; then
	fail "strace is installed (scripts/deps.sh)"
	exit 1
fi

# The fake KVM devices' folders, which record watches, hold nothing else.
mkdir -p "$TMP/dev" "$TMP/dev-later"
F=$TMP/unread.data
KVMPROF_KVM_DEVICE=$TMP/dev/kvm strace -ttt -o "$F.strace" -e trace=ppoll,access,read \
	"$KVMPROF" record -a -m 4 -o "$F" -- "$TMP/spinner" 2 >/dev/null 2>"$F.err"
agree "without KVM" "$F"
w=$(waits "$F.strace" | uniq | xargs)
check "without KVM: only the kernel wakes record ($(waits "$F.strace" | uniq -c | xargs))" \
	test "$w" = NULL
# Looking for KVM costs at a wake-up: record looks once, at the start,
# and then only when an entry comes into the device's folder.
looks=$(grep -c "access(\"$TMP/dev/kvm\"" "$F.strace")
check "without KVM: record looked for KVM once ($looks)" test "$looks" = 1

F=$TMP/live.data
KVMPROF_KVM_DEVICE=/ strace -o "$F.strace" -e trace=ppoll \
	"$KVMPROF" record -a -m 4 -o "$F" -- "$TMP/spinner" 2 >/dev/null 2>"$F.err"
agree "with KVM" "$F"
w=$(waits "$F.strace" | uniq | xargs)
check "with KVM: record also wakes every second ($(waits "$F.strace" | uniq -c | xargs))" \
	test "$w" = 1

# KVM comes up one second in: the records before are read back, those
# after are read as they come, and none twice.
F=$TMP/switch.data
KVMPROF_KVM_DEVICE=$TMP/dev-later/kvm strace -o "$F.strace" -e trace=ppoll \
	"$KVMPROF" record -a -m 4 -o "$F" -- \
	sh -c "'$TMP/spinner' 1; touch '$TMP/dev-later/kvm'; '$TMP/spinner' 2" >/dev/null 2>"$F.err"
agree "KVM up during the recording" "$F"
w=$(waits "$F.strace" | uniq | xargs)
check "KVM up during the recording: record waits on the kernel, then with a timer ($(waits "$F.strace" | uniq -c | xargs))" \
	test "$w" = "NULL 1"
