#!/bin/bash
# kvmprof benchmarks, each measured side by side with its reference in one run.
#
#   bench/run.sh BUILD_DIR [NAME...]
#       NAME: symbols report record mount top repeated coldstart
#       (default: all but coldstart)
#
# Each benchmark prints its measurements and its target, then "PASS" or
# "MISS" ("INFO" for a figure without a target), and adds a row to the
# results table, BUILD_DIR/bench-results.md.
#   symbols   kallsyms parse of 200k symbols <= 30 ms, each in a new process
#             (first-touch faults included), >= 20 M lookups/s
#   report    kvmprof report >= 10x faster than perf report (CPU time), peak
#             RSS no larger, same top 20 rows, on real recordings the bench
#             makes: a system-wide compile at 20 kHz (>= 2M samples) and a
#             nested Debian guest (bench/report.sh)
#   record    workload slowdown no larger than perf record's at 4 and 20 kHz,
#             0 samples lost (bench/record.sh)
#   mount     warm kallsyms reads through guestfs-mount >= 50% of a direct
#             read of the cached file; getattr latency and the daemon's start
#             to a first byte are printed without a target
#   top       kvmprof top's CPU time <= perf top's at 4 kHz (bench/top.sh)
#   repeated  report on 1M samples made by repeating one short recording:
#             caches hit nearly every time, so this is a secondary figure,
#             printed without a target (INFO)
#   coldstart guestfs-mount's cold start for 1, 3 and 8 guests in a shared
#             appliance vs guestmount -i per guest (bench/coldstart.sh);
#             minutes under software emulation, so only when named
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$REPO" && cd "${1:-build}" && pwd)
shift || true
WORK=$(mktemp -d /tmp/kvmprof-bench.XXXXXX)
BENCH_WORK=$WORK
BENCH_RESULTS=$BUILD/bench-results.md
# shellcheck source=lib.sh
. "$REPO/bench/lib.sh"
misses=0
# Mounts and daemons a benchmark leaves up are taken down on any exit.
MNT_PIDS=()
MNTS=()
cleanup() {
	local m p
	for m in "${MNTS[@]}"; do
		mountpoint -q "$m" 2>/dev/null && { fusermount3 -u "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; }
	done
	for p in "${MNT_PIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	rm -rf "$WORK"
}
trap cleanup EXIT

# verdict PASSED NAME MEASURED TARGET: print the verdict, add the table row.
verdict() {
	local v=MISS
	[ "$1" = 1 ] && v=PASS
	echo "  $v"
	[ $v = PASS ] || misses=$((misses + 1))
	result "$2" "$3" "$4" "$v"
}

# A 200k-symbol kallsyms: this machine's own table, widened with renamed copies.
bench_symbols() {
	local src=$WORK/kallsyms.200k line parse faults lookups
	echo "== symbols: kallsyms parse and lookup"
	"$BUILD/kvmprof" symbols /proc/kallsyms >"$WORK/k" || return
	{ cat "$WORK/k"; awk '{ printf "%s %s %s.copy%d\n", $1, $2, $3, NR }' "$WORK/k"; } |
		head -200000 | sort >"$src"
	line=$("$BUILD/bench/bench_symtab" "$src" 50000000) || return
	echo "  $line"
	parse=$(sed -n 's/.*parse_ms=\([0-9.]*\).*/\1/p' <<<"$line")
	faults=$(sed -n 's/.*faults=\([0-9]*\).*/\1/p' <<<"$line")
	lookups=$(sed -n 's/.*lookups_per_s=\([0-9]*\).*/\1/p' <<<"$line")
	echo "  targets: parse <= 30 ms for 200k symbols, >= 20000000 lookups/s"
	verdict "$(awk -v p="$parse" -v l="$lookups" 'BEGIN { print (p <= 30 && l >= 20000000) }')" \
		"symbols, 200k-symbol kallsyms" \
		"parse ${parse} ms (a new process each, $faults page faults), $lookups lookups/s" \
		"<= 30 ms, >= 20M lookups/s"
}

# Real recordings: bench/report.sh.
# run_script SCRIPT: a benchmark script that adds its own rows; its misses count.
run_script() {
	local before
	before=$(wc -l <"$BENCH_RESULTS")
	"$REPO/bench/$1" "$BUILD" "$BENCH_RESULTS"
	misses=$((misses + $(tail -n +$((before + 1)) "$BENCH_RESULTS" | grep -c '| MISS |$')))
}

bench_report() { run_script report.sh; }
bench_record() { run_script record.sh; }
bench_coldstart() { run_script coldstart.sh; }

# The secondary figure: one short recording repeated to 1M samples.
bench_repeated() {
	local src=$WORK/src.data big=$WORK/big.data kt kr pt pr same ratio
	echo "== repeated: kvmprof report vs perf report --stdio, 1M samples repeated from one short recording"
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
	side_by_side 5 kvmprof "$WORK/k.txt" "'$BUILD/kvmprof' report -i '$big' --stdio" -- \
		perf "$WORK/p.txt" "perf report -i '$big' --stdio -s comm,dso,sym"
	kt=$A_CPU kr=$A_RSS pt=$B_CPU pr=$B_RSS
	same=0
	diff <(top20 <"$WORK/k.txt") <(top20 <"$WORK/p.txt") >"$WORK/top.diff" && same=1
	ratio=$(awk -v a="$pt" -v b="$kt" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')
	echo "  CPU time, median of 5: kvmprof ${kt}s, perf ${pt}s; peak RSS: kvmprof ${kr} KB," \
		"perf ${pr} KB; speed-up: ${ratio}x"
	echo "  same top 20 rows: $([ $same = 1 ] && echo yes || echo no)"
	[ $same = 1 ] || sed 's/^/    /' "$WORK/top.diff" | head -20
	# No target: repeated samples hit kvmprof's caches nearly every time,
	# so the figure overstates it; the real recordings' rows (report) hold
	# the targets. Kept to compare with runs before those rows existed.
	echo "  INFO (secondary: no target)"
	result "repeated samples (secondary): report, 1M" \
		"${ratio}x perf's CPU (${kt} s vs ${pt} s); RSS $kr vs $pr KB; top 20 $([ $same = 1 ] && echo yes || echo no)" \
		"none: caches hit nearly every time; the real recordings' rows hold the targets" "INFO"
}

# Seconds with nanoseconds, and the difference of two of them.
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# Median MB/s of 7 repetitions, each reading FILE enough times to move >= 64 MB.
read_rate() {
	local f=$1 size reps t0 t1 j
	size=$(stat -c %s "$f")
	reps=$(((64 * 1048576 + size - 1) / size))
	for _ in 1 2 3 4 5 6 7; do
		t0=$(now)
		for ((j = 0; j < reps; j++)); do
			dd if="$f" of=/dev/null bs=4M status=none
		done
		t1=$(now)
		awk -v s="$size" -v r="$reps" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", s * r / 1e6 / (b - a) }'
	done | sort -n | sed -n 4p
}

# guestfs-mount on the single-partition raw test image (tests/data-builders):
# warm reads and getattr, and the time from the daemon's start to a first
# byte. The daemon's cache folder is kept between runs (in $KVMPROF_CACHE,
# keyed by the disk's identity, like the images): only the first run on a
# machine inspects the guest, about 25 s under software emulation. Cold
# starts against guestmount are the coldstart benchmark's.
bench_mount() {
	local mnt=$WORK/mnt conf=$WORK/guests.conf
	local cache=${KVMPROF_CACHE:-/var/cache/kvmprof}/bench-mount
	local img t0 t_daemon f direct mr dr ratio st start
	echo "== mount: guestfs-mount reads, getattr, start to first byte"
	if [ "$(id -u)" != 0 ] || [ ! -c /dev/fuse ] || ! command -v fusermount3 >/dev/null; then
		echo "  skipped: needs root, /dev/fuse and fusermount3"
		return
	fi
	# shellcheck source=../scripts/guestfs-env.sh
	. "$REPO/scripts/guestfs-env.sh" || { echo "  skipped: no libguestfs appliance"; return; }
	img=$("$REPO/tests/data-builders/guest-images.sh" 2>"$WORK/images.err") ||
		{ echo "  MISS: test images not built"; tail -5 "$WORK/images.err"; misses=$((misses + 1)); return; }
	img=$img/deb-1part.raw
	printf 'appliance per-guest\nguest deb1p\n    disk raw %s\n' "$img" >"$conf"
	mkdir -p "$mnt"
	MNTS+=("$mnt")
	start="from its cache folder"
	[ -n "$(ls -A "$cache" 2>/dev/null)" ] || start="cold: the guest inspected"

	t0=$(now)
	"$BUILD/guestfs-mount" -f -c "$conf" --cache "$cache" "$mnt" 2>"$WORK/mount.log" &
	MNT_PIDS+=($!)
	for _ in $(seq 1200); do
		mountpoint -q "$mnt" && break
		sleep 0.05
	done
	head -c 1 "$mnt/deb1p/kallsyms" >/dev/null ||
		{ echo "  MISS: no kallsyms served"; tail -5 "$WORK/mount.log"; misses=$((misses + 1)); return; }
	t_daemon=$(elapsed "$t0" "$(now)")

	# Warm: the same bytes through the mount and straight from the cache folder.
	f=$mnt/deb1p/kallsyms
	direct=
	while read -r c; do
		cmp -s "$c" "$f" && { direct=$c; break; }
	done < <(find "$cache" -type f -size "$(stat -c %s "$f")c")
	if [ -z "$direct" ]; then
		direct=$WORK/kallsyms.copy
		cp "$f" "$direct"
	fi
	cat "$f" "$direct" >/dev/null
	mr=$(read_rate "$f")
	dr=$(read_rate "$direct")
	ratio=$(awk -v a="$mr" -v b="$dr" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
	st=$("$BUILD/bench/bench_stat" "$f" 20000) || st="failed"
	fusermount3 -u "$mnt"
	wait "${MNT_PIDS[-1]}" 2>/dev/null

	echo "  warm read of deb1p/kallsyms ($(stat -c %s "$direct") bytes), median of 7:" \
		"mount ${mr} MB/s, direct ${dr} MB/s ($( [ "$direct" = "$WORK/kallsyms.copy" ] && echo tmp copy || echo cache file)); ratio ${ratio}"
	echo "  getattr: stat() of deb1p/kallsyms, $st"
	echo "  start to first byte: guestfs-mount ${t_daemon} s (deb1p/kallsyms, $start)"
	echo "  targets: warm mount read >= 50% of direct (getattr and start: no target)"
	verdict "$(awk -v r="$ratio" 'BEGIN { print (r >= 0.5) }')" "mount, warm kallsyms read" \
		"${ratio} of a direct read ($mr vs $dr MB/s); first byte ${t_daemon} s ($start)" \
		">= 0.5 of direct"
}

# kvmprof top vs perf top: CPU time on the same load.
bench_top() {
	local line r
	echo "== top: kvmprof top vs perf top --stdio -d 1, CPU time"
	"$REPO/bench/top.sh" "$BUILD" 3 3 | tee "$WORK/top.out"
	line=$(tail -1 "$WORK/top.out")
	r=$(sed -n 's/.*kvmprof\/perf \([0-9.]*\).*/\1/p' <<<"$line")
	verdict "$(awk -v r="$r" 'BEGIN { print (r != "" && r <= 1) }')" "top at 4 kHz" \
		"kvmprof/perf CPU ${r:-?} (${line#*: })" "<= 1"
}

names=("$@")
[ ${#names[@]} -eq 0 ] && names=(symbols report record mount top repeated)
{
	echo "# kvmprof benchmarks, $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo
	echo "Machine: $(nproc) CPUs ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1))," \
		"$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo), kernel $(uname -r);" \
		"$(perf version 2>/dev/null). CPU times are medians of runs alternating between the two tools."
	echo
	echo "| benchmark | measured | target | verdict |"
	echo "|---|---|---|---|"
} >"$BENCH_RESULTS"
t0=$SECONDS
times=()
for n in "${names[@]}"; do
	t=$SECONDS
	"bench_$n"
	times+=("$n $((SECONDS - t)) s")
done
# What each benchmark took: make bench as a whole should stay under 5 minutes.
durations=$(IFS=,; echo "${times[*]}" | sed 's/,/, /g')
{
	echo
	echo "Took $((SECONDS - t0)) s: $durations."
} >>"$BENCH_RESULTS"
echo "benchmarks: $misses missed, $((SECONDS - t0)) s ($durations); results table: $BENCH_RESULTS"
