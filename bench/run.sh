#!/bin/bash
# kvmprof benchmarks, each measured side by side with its reference in one run.
#
#   bench/run.sh BUILD_DIR [NAME...]      NAME: symbols report (default: all available)
#
# Each benchmark prints its measurements and its target, then "PASS" or "MISS".
# Targets (see the issues): kallsyms parse of 200k symbols <= 30 ms, >= 20 M
# lookups/s; kvmprof report >= 10x faster than perf report --stdio on 1M
# samples, peak RSS no larger, same top 20 rows.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$REPO" && cd "${1:-build}" && pwd)
shift || true
WORK=$(mktemp -d /tmp/kvmprof-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
misses=0

verdict() {
	if [ "$1" = 1 ]; then echo "  PASS"; else echo "  MISS"; misses=$((misses + 1)); fi
}

# A 200k-symbol kallsyms: this machine's own table, widened with renamed copies.
bench_symbols() {
	local src=$WORK/kallsyms.200k line parse lookups
	echo "== symbols: kallsyms parse and lookup"
	"$BUILD/kvmprof" symbols /proc/kallsyms >"$WORK/k" || return
	{ cat "$WORK/k"; awk '{ printf "%s %s %s.copy%d\n", $1, $2, $3, NR }' "$WORK/k"; } |
		head -200000 | sort >"$src"
	line=$("$BUILD/bench/bench_symtab" "$src" 50000000) || return
	echo "  $line"
	parse=$(sed -n 's/.*parse_ms=\([0-9.]*\).*/\1/p' <<<"$line")
	lookups=$(sed -n 's/.*lookups_per_s=\([0-9]*\).*/\1/p' <<<"$line")
	echo "  targets: parse <= 30 ms for 200k symbols, >= 20000000 lookups/s"
	verdict "$(awk -v p="$parse" -v l="$lookups" 'BEGIN { print (p <= 30 && l >= 20000000) }')"
}

# Median CPU time (seconds, from perf stat's task-clock: wall time on a
# shared 2-core machine is mostly noise) and the max RSS (KB) of 5 runs.
measure() {
	local out=$1 rss=0 r
	shift
	for i in 1 2 3 4 5; do
		perf stat -x, -e task-clock -o "$WORK/stat" \
			/usr/bin/time -f "%M" -o "$WORK/rss" "$@" >"$out" 2>/dev/null
		r=$(tail -1 "$WORK/rss")
		((r > rss)) && rss=$r
		awk -F, '$3 == "task-clock" || $3 ~ /^task-clock/ { printf "%.4f\n", $1 / 1000 }' "$WORK/stat"
	done >"$WORK/times"
	echo "$(sort -n "$WORK/times" | sed -n 3p) $rss"
}

# The top 20 rows as a set, leaving out rows tied with the 21st: tools may
# order equal rows differently.
top20() {
	grep -v '^#' | grep -E '^ +[0-9]' | head -21 | awk '{ $1 = $1; print }' |
		awk '{ row[NR] = $0; pct[NR] = $1 }
		     END { for (i = 1; i <= 20 && i <= NR; i++) if (NR < 21 || pct[i] != pct[21]) print row[i] }' |
		sort
}

bench_report() {
	local src=$WORK/src.data big=$WORK/big.data k p kt kr pt pr same ratio
	echo "== report: kvmprof report vs perf report --stdio, 1M samples"
	# A fixed workload recorded per command (not -a): the file does not depend
	# on whatever else runs on the machine. Shell arithmetic in user space,
	# process creation and file I/O in the kernel.
	"$BUILD/kvmprof" record -q -o "$src" -- sh -c \
		'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); [ $((i % 20000)) = 0 ] && ls -R /usr/include >/dev/null; done' ||
		return
	"$BUILD/bench/bench_grow_perfdata" "$src" "$big" 1000000 || return
	# Warm the page cache and perf's caches before timing either tool.
	"$BUILD/kvmprof" report -i "$big" >/dev/null
	perf report -i "$big" --stdio >/dev/null 2>&1
	k=$(measure "$WORK/k.txt" "$BUILD/kvmprof" report -i "$big" --stdio)
	p=$(measure "$WORK/p.txt" perf report -i "$big" --stdio -s comm,dso,sym)
	read -r kt kr <<<"$k"
	read -r pt pr <<<"$p"
	same=0
	diff <(top20 <"$WORK/k.txt") <(top20 <"$WORK/p.txt") >"$WORK/top.diff" && same=1
	ratio=$(awk -v a="$pt" -v b="$kt" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')
	echo "  CPU time, median of 5: kvmprof ${kt}s, perf ${pt}s; peak RSS: kvmprof ${kr} KB," \
		"perf ${pr} KB; speed-up: ${ratio}x"
	echo "  same top 20 rows: $([ $same = 1 ] && echo yes || echo no)"
	[ $same = 1 ] || sed 's/^/    /' "$WORK/top.diff" | head -20
	echo "  targets: >= 10x faster, RSS <= perf's, same top 20"
	verdict "$(awk -v r="$ratio" -v a="$kr" -v b="$pr" -v s=$same \
		'BEGIN { print (r >= 10 && a <= b && s == 1) }')"
}

names=("$@")
[ ${#names[@]} -eq 0 ] && names=(symbols report)
for n in "${names[@]}"; do
	"bench_$n"
done
echo "benchmarks: $misses missed"
