# Helpers shared by the benchmark scripts (sourced). Each measures kvmprof
# and its reference side by side in one run, alternating between them, and
# reports medians: wall time on a shared 2-core virtual machine is mostly
# noise, so CPU time (user + system) is what is compared.

median() { sort -n | awk '{ v[NR] = $1 } END { if (!NR) print 0; else print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }'; }

# run_simple CMD WRAPPER...: run the simple command CMD (a string: words
# as the shell quotes them, after optional VAR=value settings) under
# WRAPPER, with no shell in between: a shell's own start costs 7-8 ms of
# CPU on these machines, as much as a small report.
run_simple() {
	local cmd=$1
	shift
	(
		eval "words=($cmd)"
		while [[ ${words[0]:-} =~ ^[A-Za-z_][A-Za-z0-9_]*= ]]; do
			export "${words[0]}"
			words=("${words[@]:1}")
		done
		exec "$@" "${words[@]}"
	)
}

# cost_of OUT CMD: run CMD (see run_simple) with stdout to OUT; print its
# CPU seconds (task-clock from its exec, as perf stat counts it) and its
# peak RSS in KB, both from this one run (bench/bench_rusage.c).
cost_of() {
	rm -f "$BENCH_WORK/cost"
	run_simple "$2" "$BUILD/bench/bench_rusage" "$BENCH_WORK/cost" >"$1" 2>/dev/null
	cat "$BENCH_WORK/cost" 2>/dev/null
}

# side_by_side RUNS NAME_A OUT_A CMD_A -- NAME_B OUT_B CMD_B: RUNS runs of
# each, alternating which goes first; sets A_CPU B_CPU (medians, seconds)
# and A_RSS B_RSS (the largest peak RSS of any run, KB). Commands are
# simple commands (see run_simple).
side_by_side() {
	local runs=$1 a=$3 ca=$4 b=$7 cb=$8 r
	: >"$BENCH_WORK/a" && : >"$BENCH_WORK/b"
	for ((r = 1; r <= runs; r++)); do
		if ((r % 2)); then
			cost_of "$a" "$ca" >>"$BENCH_WORK/a"
			cost_of "$b" "$cb" >>"$BENCH_WORK/b"
		else
			cost_of "$b" "$cb" >>"$BENCH_WORK/b"
			cost_of "$a" "$ca" >>"$BENCH_WORK/a"
		fi
	done
	A_CPU=$(awk '{ print $1 }' "$BENCH_WORK/a" | median)
	B_CPU=$(awk '{ print $1 }' "$BENCH_WORK/b" | median)
	A_RSS=$(sort -n -k2 "$BENCH_WORK/a" | awk 'END { print $2 }')
	B_RSS=$(sort -n -k2 "$BENCH_WORK/b" | awk 'END { print $2 }')
}

# The top 20 rows as a set, leaving out rows tied with the 21st: tools may
# order equal rows differently.
top20() {
	grep -v '^#' | grep -E '^ +[0-9]' | head -21 | awk '{ $1 = $1; print }' |
		awk '{ row[NR] = $0; pct[NR] = $1 }
		     END { for (i = 1; i <= 20 && i <= NR; i++) if (NR < 21 || pct[i] != pct[21]) print row[i] }' |
		sort
}

# result NAME MEASURED TARGET VERDICT: one row of the results table.
result() {
	printf '| %s | %s | %s | %s |\n' "$1" "$2" "$3" "$4" >>"$BENCH_RESULTS"
}

# compile_lib [N]: one round of compiling the project's lib/ sources (the
# first N of them), two at a time: user-space work in cc1 and as, process
# creation and file I/O.
compile_lib() {
	(cd "$REPO" && printf '%s\n' lib/*/*.c | head -n "${1:-100000}" |
		xargs -P2 -n4 sh -c 'for f; do cc -O2 -g -Ilib -c "$f" -o /dev/null 2>/dev/null; done' sh)
}

# parent_cpu_ns: the CPU time of every thread of this shell's parent, in ns
# (the recorder, for a workload it runs).
parent_cpu_ns() {
	local t=0 ns rest
	for f in /proc/$PPID/task/*/schedstat; do
		read -r ns rest <"$f" && t=$((t + ns))
	done
	echo "$t"
}
