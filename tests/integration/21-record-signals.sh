#!/bin/bash
# kvmprof record stopped by SIGINT, SIGTERM and SIGKILL one second into a
# workload: the first two leave a complete perf.data (read by kvmprof report
# and perf report, header features present, sample count stated); SIGKILL
# leaves, under the output name, the records written so far, which report
# reads up to the last complete one with a warning naming the file.
. "$(dirname "$0")/../lib.sh"

build_spinner "$TMP/spinner" || { fail "build the spinner"; exit 1; }

# record_and_signal SIG FILE: record the spinner (30 s) into FILE, send SIG
# to kvmprof after 1 s of it, wait for it (10 s at most). Sets RC (exit status) and
# leaves kvmprof's stderr in FILE.err. Rings of 4 pages fill, and reach the
# file, many times a second: what SIGKILL leaves does not hang on a timer
# (where KVM cannot run guests, only full rings wake record).
record_and_signal() {
	local sig=$1 f=$2 pid child
	"$KVMPROF" record -m 4 -o "$f" -- "$TMP/spinner" 30 >/dev/null 2>"$f.err" &
	pid=$!
	# One second of recording: from the workload's exec, which record
	# allows once its events are open and enabled (startup takes a while).
	for _ in $(seq 100); do
		child=$(pgrep -P "$pid")
		[ -n "$child" ] && [ "$(cat "/proc/$child/comm" 2>/dev/null)" = spinner ] && break
		sleep 0.1
	done
	sleep 1
	kill -s "$sig" "$pid"
	for _ in $(seq 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid"
		RC=timeout
	fi
	wait "$pid"
	local rc=$?
	[ "${RC-}" = timeout ] || RC=$rc
	# After SIGKILL nobody stops the workload.
	[ -n "$child" ] && kill -KILL "$child" 2>/dev/null
}

# Samples the report counted, from "# Samples: N of event ...".
report_samples() { sed -n 's/^# Samples: \([0-9]*\) .*/\1/p' "$1" | head -1; }
event_count() { sed -n 's/^# Event count (approx.): //p' | head -1; }

for sig in INT TERM; do
	F=$TMP/$sig.data
	RC=
	record_and_signal "$sig" "$F"
	check "SIG$sig: record exits 0 within 10 s (status $RC)" test "$RC" = 0
	check "SIG$sig: no temporary file left next to the output" \
		bash -c "! ls '$TMP' | grep -q '^$sig\.data\.tmp'"
	written=$(sed -n 's/.*wrote .*: \([0-9]*\) samples.*/\1/p' "$F.err")
	check "SIG$sig: record states how many samples it wrote ($written)" \
		test -n "$written" -a "${written:-0}" -gt 0
	"$KVMPROF" report -i "$F" --stdio >"$F.k" 2>"$F.kerr"
	check "SIG$sig: kvmprof report reads the file, no warning" \
		bash -c "test -s '$F.k' && ! grep -qi 'warning\|not finished' '$F.k' '$F.kerr'"
	check "SIG$sig: report shows the workload's function" grep -q kvmprof_spin_here "$F.k"
	check "SIG$sig: header features present (hostname, cmdline)" \
		bash -c "grep -q '^# hostname: ' '$F.k' && grep -q '^# cmdline: kvmprof record' '$F.k'"
	check "SIG$sig: report counts the samples record wrote ($(report_samples "$F.k"))" \
		test "$(report_samples "$F.k")" = "$written"
	perf report -i "$F" --stdio >"$F.p" 2>"$F.perr"
	check "SIG$sig: perf report reads the file" grep -q kvmprof_spin_here "$F.p"
	# perf abbreviates "# Samples: 2K": count its samples with perf script.
	perf_samples=$(perf script -i "$F" -F period 2>/dev/null | wc -l)
	check "SIG$sig: perf counts the same samples ($perf_samples)" \
		test "$perf_samples" = "$written"
	check "SIG$sig: perf report has the same event count" \
		test "$(event_count <"$F.p")" = "$(event_count <"$F.k")"
	check "SIG$sig: perf sees the header features" \
		bash -c "perf report -i '$F' --header-only 2>/dev/null | grep -q '^# hostname : ' &&
			perf report -i '$F' --header-only 2>/dev/null | grep -q '^# cmdline : .*kvmprof'"
done

F=$TMP/KILL.data
RC=
echo previous >"$F"
record_and_signal KILL "$F"
check "SIGKILL: record died of the signal (status $RC)" test "$RC" = 137
check "SIGKILL: the data is under the output name" \
	bash -c "test \$(stat -c %s '$F') -gt 4096"
check "SIGKILL: the previous file was kept as .old" grep -qx previous "$F.old"
"$KVMPROF" report -i "$F" --stdio >"$F.k" 2>"$F.kerr"
krc=$?
sed -n 's/^kvmprof report: warning: /# /p' "$F.kerr"
check "SIGKILL: kvmprof report exits 0 (status $krc)" test "$krc" = 0
check "SIGKILL: a warning names the file, records and byte read" \
	grep -qE "KILL\.data: recording was not finished \(no header\): read [1-9][0-9]* records up to byte [1-9][0-9]*" \
	"$F.kerr"
check "SIGKILL: report shows the samples written before the kill" \
	bash -c "grep -q kvmprof_spin_here '$F.k' && test \"\$(sed -n 's/^# Samples: \([0-9]*\) .*/\1/p' '$F.k' | head -1)\" -gt 0"
# The same file cut inside a record: still read, up to the record before.
size=$(stat -c %s "$F")
head -c $((size - 5)) "$F" >"$TMP/KILLcut.data"
check "SIGKILL, cut inside a record: read up to the last complete record" \
	bash -c "'$KVMPROF' report -i '$TMP/KILLcut.data' 2>&1 >/dev/null | grep -q 'KILLcut.data: recording was not finished'"

# The workload's end ends the recording at once: its SIGCHLD cuts record's
# wait for the rings short (a second when nothing wakes it). System-wide,
# where no event of the workload's own hangs up as it exits. The workload
# ends 0.3 s in, inside the first wait; record's finish (build-ids,
# features) takes well under the 0.6 s allowed.
F=$TMP/end.data
"$KVMPROF" record -a -q -o "$F" -- sh -c "sleep 0.3; date +%s.%N >'$TMP/end.t'" 2>"$F.err"
now=$(date +%s.%N)
late=$(awk -v a="$(cat "$TMP/end.t" 2>/dev/null)" -v b="$now" 'BEGIN { printf "%.2f", b - a }')
check "record ends with its workload (${late} s after)" \
	awk -v l="$late" 'BEGIN { exit !(l >= 0 && l < 0.6) }'

# -p PID: when that process exits its events hang up, and record ends with
# it. A hung-up ring is ready at once, every time: polled on, it would turn
# the wait into a spin in which SIGINT stays pending, and record never end.
# The spinner spins long enough that record's start, on a machine busy
# with other suites, ends well before it does: events enabled after their
# task has exited take no samples.
"$TMP/spinner" 3 &
target=$!
start=$(date +%s.%N)
timeout -s KILL 20 "$KVMPROF" record -q -p "$target" -o "$TMP/pid.data" 2>"$TMP/pid.err"
rc=$?
took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
check "record -p ends when its process exits (status $rc, ${took} s)" \
	awk -v rc="$rc" -v t="$took" 'BEGIN { exit !(rc == 0 && t < 10) }'
check "record -p: the process's samples are in the file" \
	bash -c "'$KVMPROF' report -i '$TMP/pid.data' --stdio 2>/dev/null | grep -q kvmprof_spin_here"
