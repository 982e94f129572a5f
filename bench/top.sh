#!/bin/bash
# kvmprof top vs perf top, side by side on the same load: the CPU time
# (user + system, from /usr/bin/time) each spends watching every CPU at
# -F 4000 with cpu-clock, refreshing every second to stdout, for the same
# duration, while a CPU burner runs on every CPU. Runs alternate between
# the two tools; medians and their ratio are printed.
#
#   bench/top.sh BUILD_DIR [RUNS] [SECONDS]     (default 5 runs of 6 s)
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$REPO" && cd "${1:-build}" && pwd)
RUNS=${2:-5}
SECS=${3:-6}
WORK=$(mktemp -d /tmp/kvmprof-bench-top.XXXXXX)
BURNERS=()
cleanup() {
	local p
	for p in "${BURNERS[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	rm -rf "$WORK"
}
trap cleanup EXIT

for ((i = 0; i < $(nproc); i++)); do
	sh -c 'while :; do :; done' &
	BURNERS+=($!)
done

# cpu_seconds OUT CMD...: CMD for SECS seconds (then SIGINT, as a user
# stops top); prints its user + system seconds.
cpu_seconds() {
	/usr/bin/time -f "%U %S" -o "$WORK/time" \
		timeout -s INT "$SECS" "$@" </dev/null >/dev/null 2>"$WORK/err"
	# The last line: a first one may say "Command exited with non-zero status".
	tail -1 "$WORK/time" | awk '{ printf "%.2f\n", $1 + $2 }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

: >"$WORK/k"
: >"$WORK/p"
for ((r = 1; r <= RUNS; r++)); do
	k() { cpu_seconds "$BUILD/kvmprof" top --stdio -d 1 -F 4000 -e cpu-clock >>"$WORK/k"; }
	p() { cpu_seconds perf top --stdio -d 1 -F 4000 -e cpu-clock >>"$WORK/p"; }
	if ((r % 2)); then k; p; else p; k; fi
	echo "  run $r: kvmprof top $(tail -1 "$WORK/k") s, perf top $(tail -1 "$WORK/p") s CPU"
done
km=$(median <"$WORK/k")
pm=$(median <"$WORK/p")
echo "  median CPU time over ${SECS} s at -F 4000 on $(nproc) CPUs, $RUNS runs:" \
	"kvmprof top ${km} s, perf top ${pm} s;" \
	"kvmprof/perf $(awk -v k="$km" -v p="$pm" 'BEGIN { printf "%.2f", (p > 0) ? k / p : 0 }')"
