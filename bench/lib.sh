# Helpers shared by the benchmark scripts (sourced). Each measures kvmprof
# and its reference side by side in one run, alternating between them, and
# reports medians: wall time on a shared 2-core virtual machine is mostly
# noise, so CPU time (user + system) is what is compared.

median() { sort -n | awk '{ v[NR] = $1 } END { if (!NR) print 0; else print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }'; }

# cpu_rss OUT CMD...: run CMD with stdout to OUT; print "CPU_SECONDS
# MAX_RSS_KB". CPU time from perf stat's task-clock (milliseconds, where
# time(1) has centiseconds), peak RSS from time(1).
cpu_rss() {
	local out=$1
	shift
	perf stat -x, -e task-clock -o "$BENCH_WORK/stat" \
		/usr/bin/time -f "%M" -o "$BENCH_WORK/rss" "$@" >"$out" 2>/dev/null
	awk -F, '$3 ~ /^task-clock/ { printf "%.4f ", $1 / 1000 }' "$BENCH_WORK/stat"
	tail -1 "$BENCH_WORK/rss"
}

# side_by_side RUNS NAME_A OUT_A CMD_A -- NAME_B OUT_B CMD_B: RUNS runs of
# each, alternating which goes first; sets A_CPU B_CPU (medians, seconds)
# and A_RSS B_RSS (largest, KB). Commands are strings run by bash -c.
side_by_side() {
	local runs=$1 a=$3 ca=$4 b=$7 cb=$8 r
	: >"$BENCH_WORK/a" && : >"$BENCH_WORK/b"
	for ((r = 1; r <= runs; r++)); do
		if ((r % 2)); then
			cpu_rss "$a" bash -c "$ca" >>"$BENCH_WORK/a"
			cpu_rss "$b" bash -c "$cb" >>"$BENCH_WORK/b"
		else
			cpu_rss "$b" bash -c "$cb" >>"$BENCH_WORK/b"
			cpu_rss "$a" bash -c "$ca" >>"$BENCH_WORK/a"
		fi
	done
	A_CPU=$(cut -d' ' -f1 "$BENCH_WORK/a" | median)
	B_CPU=$(cut -d' ' -f1 "$BENCH_WORK/b" | median)
	A_RSS=$(cut -d' ' -f2 "$BENCH_WORK/a" | sort -n | tail -1)
	B_RSS=$(cut -d' ' -f2 "$BENCH_WORK/b" | sort -n | tail -1)
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
