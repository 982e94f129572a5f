#!/bin/bash
# What recording costs the workload: a compile of half the project's lib/
# on every CPU, run bare, under perf record -a and under kvmprof record -a,
# at 4 kHz and at 20 kHz per CPU (cpu-clock). Each pair (perf, kvmprof) runs
# back to back, alternating which goes first, after a bare run; the slowdown
# is the workload's wall time over the bare run's, median of PAIRS. Samples
# lost by either recorder are counted from their own files.
#
# While the workload runs at 20 kHz, perf record itself uses about 0.2% of
# a CPU and kvmprof record 0.5% (perf stat -p, measured): the slowdown is
# the kernel's sampling, the same for both, so the two medians differ by
# noise. The verdict compares each pair's two runs, made back to back (the
# machine drifts between pairs: one run's bare runs took 1.96 to 2.46 s),
# and takes the median of kvmprof's time over perf's: at most 1.01.
# perf record runs with -B: its build-id pass comes after the workload has
# ended, so it is not the workload's slowdown, only the benchmark's time.
#
#   bench/record.sh BUILD_DIR RESULTS_FILE
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$REPO" && cd "${1:-build}" && pwd)
BENCH_RESULTS=$2
PAIRS=${BENCH_PAIRS:-5}
BENCH_WORK=$(mktemp -d /tmp/kvmprof-bench-record.XXXXXX)
trap 'rm -rf "$BENCH_WORK"' EXIT
# shellcheck source=lib.sh
. "$REPO/bench/lib.sh"
FILES=20

# wall CMD...: the workload's wall time (seconds) under CMD (none: bare),
# timed by the workload itself: the recorders' start and their work after
# it ends (perf's build-id pass) are not the workload's slowdown.
wall() {
	"$@" bash -c ". '$REPO/bench/lib.sh'; REPO='$REPO'; t0=\$(date +%s.%N); compile_lib $FILES;
		awk -v a=\$t0 -v b=\$(date +%s.%N) 'BEGIN { printf \"%.3f\\n\", b - a }' >'$BENCH_WORK/wall'" \
		>"$BENCH_WORK/rec.out" 2>&1
	cat "$BENCH_WORK/wall"
}

perf_lost() {
	perf report -i "$BENCH_WORK/p.data" --stdio --sort comm 2>/dev/null |
		sed -n 's/^# Total Lost Samples: //p'
}

kvmprof_lost() {
	"$BUILD/kvmprof" report -i "$BENCH_WORK/k.data" --stdio --sort comm 2>/dev/null |
		sed -n 's/^# Total Lost Samples: //p'
}

for freq in 4000 20000; do
	echo "== record: workload slowdown at $freq Hz per CPU, perf record -a vs kvmprof record -a"
	: >"$BENCH_WORK/ps" && : >"$BENCH_WORK/ks" && : >"$BENCH_WORK/kp"
	plost=0 klost=0
	for ((r = 1; r <= PAIRS; r++)); do
		bare=$(wall)
		p() { wall perf record -q -B -a -F $freq -e cpu-clock -o "$BENCH_WORK/p.data" --; }
		k() { wall "$BUILD/kvmprof" record -q -a -F $freq -e cpu-clock -o "$BENCH_WORK/k.data" --; }
		if ((r % 2)); then pt=$(p); kt=$(k); else kt=$(k); pt=$(p); fi
		plost=$((plost + $(perf_lost)))
		klost=$((klost + $(kvmprof_lost)))
		awk -v p="$pt" -v b="$bare" 'BEGIN { printf "%.3f\n", p / b }' >>"$BENCH_WORK/ps"
		awk -v k="$kt" -v b="$bare" 'BEGIN { printf "%.3f\n", k / b }' >>"$BENCH_WORK/ks"
		awk -v k="$kt" -v p="$pt" 'BEGIN { printf "%.3f\n", k / p }' >>"$BENCH_WORK/kp"
		echo "  pair $r: bare ${bare} s, perf record ${pt} s, kvmprof record ${kt} s"
	done
	ps=$(median <"$BENCH_WORK/ps")
	ks=$(median <"$BENCH_WORK/ks")
	kp=$(median <"$BENCH_WORK/kp")
	spread=$(sort -n "$BENCH_WORK/kp" | sed -n '1p;$p' | paste -sd-)
	echo "  median slowdown over $PAIRS pairs: perf record ${ps}x, kvmprof record ${ks}x;" \
		"kvmprof over perf, median of the pairs: ${kp} (pairs ${spread}); lost samples: perf $plost, kvmprof $klost"
	result "record at $freq Hz" "workload x${ks} (perf record x${ps}); kvmprof/perf per pair ${spread}, median ${kp}; lost: kvmprof $klost, perf $plost" \
		"kvmprof/perf <= 1.01, 0 lost" \
		"$(awk -v r="$kp" -v l=$klost 'BEGIN { print (r <= 1.01 && l == 0) ? "PASS" : "MISS" }')"
done
