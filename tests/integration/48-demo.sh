#!/bin/bash
# test-lane: alone (tests/run-tests.sh)
# make demo's script, run as make demo runs it: every step must happen, the
# guest's kernel functions must be named through guestfs-mount by the
# guest's name, and nothing it started may be left behind.
. "$(dirname "$0")/../lib.sh"

t0=$SECONDS
"$REPO/scripts/demo.sh" "$BUILD" >"$TMP/demo.out" 2>&1
rc=$?
echo "# make demo: $((SECONDS - t0)) s"
sed 's/^/#   /' "$TMP/demo.out"
OUT=$BUILD/demo
check "the demo succeeds" test $rc -eq 0
check "it prints its eight numbered steps with their times" \
	test "$(grep -cE '^\[[1-8]\] .*\(at [0-9]+ s\)$' "$TMP/demo.out")" = 8
check "guestfs-mount served demo from its disk image" \
	grep -qE '^    kernel: [^ ]+ \(newest\)' "$TMP/demo.out"
check "recording started when the guest said its workload started" \
	grep -qE '^start: workload started [0-9]+ s after QEMU' "$OUT/status"
check "... and stopped when it said it was done" \
	grep -qE '^done: workload done [0-9]+ s after QEMU' "$OUT/status"
check "the recording holds guest samples of guest demo" \
	grep -qE '^\[ guest: pid [0-9]+ name demo' "$OUT/record.out"
check "the report's symbol source is the mount, by the guest's name" \
	grep -qE "kernel symbols: /tmp/kvmprof-demo\.[A-Za-z0-9]+/mnt/demo/kallsyms" "$OUT/report.txt"
check "the slide was found from the recording, not given" \
	grep -qE 'slide: 0x[0-9a-f]+ \(from ' "$OUT/report.txt"
check "guest kernel functions are named" \
	grep -qE '\[g\] (do_syscall_64|read_zero|entry_SYSCALL_64|srso_return_thunk|vfs_read|native_write_msr)' \
	"$TMP/demo.out"
check "the per-mode table has its header line" \
	grep -qE '^# Overhead +.*(sys|usr|guest)' "$TMP/demo.out"
check "folded stacks of guest demo name its kernel functions" \
	grep -qE '^      demo;(do_syscall_64|read_zero|srso_return_thunk|arch_exit_to_user_mode_prepare[.a-z0-9]*|entry_SYSCALL_64) [0-9]+$' \
	"$TMP/demo.out"
check "the flame graph has a tower for guest demo" grep -q '<title>demo (' "$OUT/flamegraph.svg"
check "it states the total time" grep -qE '^Done in [0-9]+ s\.' "$TMP/demo.out"
# What the demo starts: the daemon (by its mountpoint), the host QEMU (by
# its results folder) and the temporary folder. "[t]" and "[d]" keep pgrep
# from finding the shell that runs it.
leftovers() {
	grep -q kvmprof-demo /proc/mounts && echo "a mount"
	pgrep -f 'guestfs-moun[t].*kvmprof-demo' >/dev/null && echo "guestfs-mount"
	pgrep -f 'qemu-system.*build/dem[o]' >/dev/null && echo "the host QEMU"
	ls -d /tmp/kvmprof-demo.* >/dev/null 2>&1 && echo "a temporary folder"
	return 0
}
check "no mount, daemon, QEMU or temporary folder is left behind" test -z "$(leftovers)"

# Ctrl-C typed in a terminal (tmux) while guestfs-mount inspects, and again
# while the guest runs: the demo says so, exits 130 and leaves nothing.
SESSION=kvmprof-demo-test
trap 'tmux kill-session -t "$SESSION" 2>/dev/null' EXIT
interrupt_at() {
	local when=$1 out=$TMP/demo-int.out rc=$TMP/demo-int.rc
	rm -f "$out" "$rc"
	tmux kill-session -t "$SESSION" 2>/dev/null
	tmux new-session -d -s "$SESSION" -x 150 -y 40 \
		"bash -c '\"$REPO/scripts/demo.sh\" \"$BUILD\" >$out 2>&1; echo \$? >$rc'"
	for _ in $(seq 1500); do
		grep -q "$when" "$out" 2>/dev/null && break
		sleep 0.2
	done
	sleep 3
	tmux send-keys -t "$SESSION" C-c
	for _ in $(seq 300); do
		[ -s "$rc" ] && break
		sleep 0.2
	done
	echo "# demo interrupted at '$when':"
	sed 's/^/#   /' "$out"
	check "Ctrl-C at '$when': the demo says so and exits 130 ($(cat "$rc" 2>/dev/null))" \
		bash -c "[ \"\$(cat $rc 2>/dev/null)\" = 130 ] && grep -q 'interrupted; cleaning up' $out"
	check "Ctrl-C at '$when': nothing is left behind" test -z "$(leftovers)"
}
if command -v tmux >/dev/null; then
	interrupt_at 'inspecting the image'
	interrupt_at 'kvmprof record starts when'
else
	skip "Ctrl-C in a terminal" "no tmux"
fi
