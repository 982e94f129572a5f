#!/bin/bash
# kvmprof top on this host (host samples only): plain refreshes while a CPU
# burner runs, and the interactive screen in tmux: sort key, resize, quit.
. "$(dirname "$0")/../lib.sh"

build_spinner "$TMP/burner" || { fail "build the burner"; exit 1; }
burners=()
burn() {
	local cpus i
	cpus=$(nproc)
	for ((i = 0; i < cpus; i++)); do
		"$TMP/burner" "$1" &
		burners+=($!)
	done
}
stop_burners() {
	local p
	for p in "${burners[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	burners=()
}
SESSION=kvmprof-top-$$
cleanup() {
	stop_burners
	tmux kill-session -t "$SESSION" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

# --- --stdio -n 2 -------------------------------------------------------------
burn 8
timeout 30 "$KVMPROF" top --stdio -n 2 -d 1 >"$TMP/stdio.out" 2>"$TMP/stdio.err"
rc=$?
stop_burners
check "top --stdio -n 2 -d 1 exits 0 (status $rc)" test "$rc" = 0
check "prints 2 refreshes, each with the headline" \
	test "$(grep -cE '^KvmTop: +[0-9]+ irqs/sec  kernel: *[0-9.]+%  us: *[0-9.]+%  guest kernel: *[0-9.]+%  guest us: *[0-9.]+%' "$TMP/stdio.out")" = 2
check "names the burner's function from its ELF .symtab" \
	grep -qE '^ +[0-9.]+%  host +burner +\[\.\] kvmprof_spin_here$' "$TMP/stdio.out"
check "names host kernel functions" \
	grep -qE '^ +[0-9.]+%  host +\[kernel\.kallsyms\] +\[k\] [a-z_]' "$TMP/stdio.out"
check "no guest lines on a host without guests" bash -c "! grep -q '^  guest ' '$TMP/stdio.out'"

# --- interactive, in tmux ---------------------------------------------------
screen() { tmux capture-pane -t "$SESSION" -p; }
# wait_for PATTERN: up to 15 s for the pane to show it.
wait_for() {
	for _ in $(seq 1 75); do
		screen | grep -qE -- "$1" && return 0
		sleep 0.2
	done
	return 1
}
if ! command -v tmux >/dev/null; then
	skip "interactive top" "no tmux"
	exit 0
fi
burn 30
tmux new-session -d -s "$SESSION" -x 120 -y 40 \
	"env PS1='top-test\$ ' TERM=xterm bash --norc --noprofile"
wait_for 'top-test\$' || fail "the tmux shell starts"
tmux send-keys -t "$SESSION" "$KVMPROF top -d 1" Enter
check "the header appears" wait_for '^Overhead  Guest +Shared Object +Symbol'
check "the headline appears" wait_for '^KvmTop: +[0-9]+ irqs/sec'
check "the burner's function is named" wait_for 'kvmprof_spin_here'
check "the alternate screen is on" test "$(tmux display -p -t "$SESSION" '#{alternate_on}')" = 1
tmux send-keys -t "$SESSION" s
check "s changes the sort keys (comm,dso,sym)" wait_for '^Overhead  Command +Shared Object +Symbol'
check "the status line says so" wait_for 's sort: comm,dso,sym'
tmux resize-window -t "$SESSION" -x 40 -y 10
sleep 2.5
screen >"$TMP/small.txt"
check "after resizing to 40x10 it still draws the headline" grep -q '^KvmTop:' "$TMP/small.txt"
check "and the table" grep -qE '^ +[0-9.]+%  ' "$TMP/small.txt"
# Joined wrapped lines longer than the pane mean the screen wrapped.
check "no line wraps at 40 columns" \
	bash -c "tmux capture-pane -t '$SESSION' -p -J | awk 'length > 40 { bad = 1 } END { exit bad }'"
check "at most 10 lines" test "$(screen | wc -l)" -le 10
tmux resize-window -t "$SESSION" -x 20 -y 5
sleep 1.5
check "a 20x5 terminal keeps the headline, unwrapped" \
	bash -c "tmux capture-pane -t '$SESSION' -p -J | head -1 | grep -q '^KvmTop:' &&
		 ! tmux capture-pane -t '$SESSION' -p -J | awk 'length > 20 { bad = 1 } END { exit !bad }'"
tmux resize-window -t "$SESSION" -x 120 -y 40
tmux send-keys -t "$SESSION" q
sleep 1
tmux send-keys -t "$SESSION" 'echo "status=$?"; stty -a | tr " " "\n" | grep -xE -- "-?(icanon|echo)" | tr "\n" " "; echo' Enter
check "q exits with status 0" wait_for '^status=0$'
check "the terminal is back in cooked mode (icanon echo)" wait_for '^icanon echo *$'
check "the alternate screen is off" test "$(tmux display -p -t "$SESSION" '#{alternate_on}')" = 0
check "the shell prompt is back" bash -c "tmux capture-pane -t '$SESSION' -p | grep -v '^$' | tail -1 | grep -q '^top-test\\$'"
stop_burners
