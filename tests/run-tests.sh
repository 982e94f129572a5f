#!/bin/bash
# Run every test suite and end with one plain line: "N passed, N failed, N skipped".
#
#   tests/run-tests.sh [--unit-only] [--only PATTERN] BUILD_DIR
#
# Unit tests are cmocka binaries (TAP output); integration tests are shell
# scripts under tests/integration/ that print TAP-style "ok - NAME" /
# "not ok - NAME" / "ok - NAME # SKIP why" lines; fuzz targets run briefly.
# Per-suite logs go to BUILD_DIR/test-logs/. Exits 1 when anything failed.
set -uo pipefail

unit_only=0
only=""
while [ $# -gt 1 ]; do
	case "$1" in
	--unit-only) unit_only=1 ;;
	--only) only="$2"; shift ;;
	*) break ;;
	esac
	shift
done
BUILD=${1:?usage: run-tests.sh [--unit-only] [--only PATTERN] BUILD_DIR}
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$REPO" && cd "$BUILD" && pwd)
LOGS=$BUILD/test-logs
FUZZ_SECONDS=${FUZZ_SECONDS:-10}
mkdir -p "$LOGS"
# A symbol cache of the run's own, empty at its start: the suites see both
# decoding and the cache, and nothing is left in the user's home.
export KVMPROF_SYMBOL_CACHE=$BUILD/test-symcache
rm -rf "$KVMPROF_SYMBOL_CACHE"

passed=0 failed=0 skipped=0
failures=()

# Count TAP lines from one suite's log; a suite that died without saying
# "not ok" still counts as one failure. A "# SKIP" directive makes a line a
# skip whether it says "ok" or, as cmocka prints it, "not ok".
tally() {
	local suite=$1 log=$2 rc=$3
	local p f s
	s=$(grep -ciE '^(not )?ok( |$).*# *SKIP' "$log")
	p=$(grep -E '^ok( |$)' "$log" | grep -cviE '# *SKIP')
	f=$(grep -E '^not ok( |$)' "$log" | grep -cviE '# *SKIP')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "not ok - $suite exited with status $rc" >>"$log"
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	if [ "$f" -gt 0 ]; then
		failures+=("$suite")
		printf '  %-40s FAIL (%d passed, %d failed%s)\n' "$suite" "$p" "$f" \
			"$([ "$s" -gt 0 ] && echo ", $s skipped")"
		# With cmocka's "ERROR: " lines: they say why, e.g. which input is missing.
		grep -E '^(not ok( |$)|ERROR: )' "$log" | grep -viE '^not ok.*# *SKIP' | head -20 |
			sed 's/^/      /'
		# And the suite's own diagnostics ("# " lines: timings, a guest's
		# status), so that a failure on a machine whose logs are gone can
		# still be understood from this output alone.
		grep -E '^# ' "$log" | head -25 | sed 's/^/      /'
	else
		printf '  %-40s %d passed%s\n' "$suite" "$p" "$([ "$s" -gt 0 ] && echo ", $s skipped")"
	fi
	# A skip is never silent: say which tests did not run.
	grep -iE '^(not )?ok( |$).*# *SKIP' "$log" | head -20 | sed 's/^/      /'
}

selected() {
	[ -z "$only" ] || [[ "$1" == *$only* ]]
}

run_unit() {
	local bin
	echo "unit tests:"
	for bin in "$BUILD"/tests/test_*; do
		[ -x "$bin" ] || continue
		selected "$(basename "$bin")" || continue
		local log=$LOGS/$(basename "$bin").log
		(cd "$REPO" && CMOCKA_MESSAGE_OUTPUT=TAP timeout 600 "$bin") >"$log" 2>&1
		tally "$(basename "$bin")" "$log" $?
	done
}

run_integration() {
	local t
	echo "integration tests:"
	for t in "$REPO"/tests/integration/*.sh; do
		[ -f "$t" ] || continue
		selected "$(basename "$t")" || continue
		local name log
		name=$(basename "$t" .sh)
		log=$LOGS/$name.log
		(cd "$REPO" && BUILD="$BUILD" REPO="$REPO" timeout 1800 bash "$t") >"$log" 2>&1
		tally "$name" "$log" $?
	done
}

# Inputs that once crashed a fuzz target (tests/fuzz/regressions/TARGET/) are
# run first, each once: a fixed bug that comes back fails at once, whatever
# the short run below happens to reach. Prints the status into an .rc file.
replay_regressions() {
	local bin=$1 name=$2 log=$LOGS/$2-regressions.log rc
	local inputs=("$REPO/tests/fuzz/regressions/$name"/*)
	[ -e "${inputs[0]}" ] || return 0
	"$bin" -rss_limit_mb=2048 -timeout=10 "${inputs[@]}" >"$log" 2>&1
	rc=$?
	[ $rc -eq 0 ] && echo "ok - $name: ${#inputs[@]} regression inputs" >>"$log" ||
		echo "not ok - $name: a regression input crashed (status $rc)" >>"$log"
	echo $rc >"$log.rc"
}

# One target: its regressions, then a short, fixed time from its seed corpus;
# a crash, leak or sanitizer report fails it.
fuzz_one() {
	local bin=$1 name corpus log rc
	name=$(basename "$bin")
	log=$LOGS/$name.log
	corpus=$BUILD/fuzz-corpus/$name
	mkdir -p "$corpus"
	replay_regressions "$bin" "$name"
	[ -d "$REPO/tests/fuzz/corpus/$name" ] && cp -n "$REPO/tests/fuzz/corpus/$name"/* "$corpus"/ 2>/dev/null
	"$bin" -max_total_time="$FUZZ_SECONDS" -rss_limit_mb=2048 -timeout=10 \
		-artifact_prefix="$LOGS/$name-" "$corpus" >"$log" 2>&1
	rc=$?
	[ $rc -eq 0 ] && echo "ok - $name" >>"$log" || echo "not ok - $name crashed (status $rc)" >>"$log"
	echo $rc >"$log.rc"
}

# A target uses one core: as many run at once as there are cores, and their
# results are counted afterwards in name order.
run_fuzz() {
	local bin name jobs
	jobs=$(nproc 2>/dev/null || echo 1)
	echo "fuzz targets (${FUZZ_SECONDS}s each, $jobs at a time):"
	"$REPO/tests/fuzz/make-seeds.sh" "$BUILD"
	local targets=()
	for bin in "$BUILD"/fuzz/fuzz_*; do
		[ -x "$bin" ] || continue
		selected "$(basename "$bin")" || continue
		targets+=("$bin")
		rm -f "$LOGS/$(basename "$bin")"{,-regressions}.log.rc
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
			wait -n
		done
		fuzz_one "$bin" &
	done
	wait
	for bin in "${targets[@]}"; do
		name=$(basename "$bin")
		[ -f "$LOGS/$name-regressions.log.rc" ] &&
			tally "$name regressions" "$LOGS/$name-regressions.log" "$(cat "$LOGS/$name-regressions.log.rc")"
		tally "$name" "$LOGS/$name.log" "$(cat "$LOGS/$name.log.rc" 2>/dev/null || echo 1)"
	done
}

run_unit
if [ $unit_only -eq 0 ]; then
	run_integration
	run_fuzz
fi

if [ ${#failures[@]} -gt 0 ]; then
	echo "failed suites (logs in $LOGS): ${failures[*]}"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
