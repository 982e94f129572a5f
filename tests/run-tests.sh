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

# Integration suites run in three lanes, chosen by a "# test-lane: NAME" line
# at the top of each:
#   disk-images  suites that start guestfs-mount on the test disk images.
#                They spend most of their time in one vCPU of libguestfs's
#                appliance under software emulation, so they run one after
#                another beside the default lane, with a symbol cache of
#                their own. A QEMU holding one of the images would be taken
#                for a running guest by their by-pid checks: no suite of the
#                default lane starts one.
#   (none)       the default lane, and the fuzz targets after it.
#   alone        suites that boot the project's kernel in QEMU with a nested
#                KVM guest (two vCPUs under software emulation), after both
#                lanes and with nothing beside them: under another suite's
#                load their vCPUs preempt each other (a nested Debian guest
#                ran six times slower and timed out).
# KVMPROF_TEST_LANES=1 (or one CPU) runs every suite one after another.
IMAGE_LANE=disk-images
ALONE_LANE=alone
lane_of() {
	sed -n 's/^# test-lane: *\([a-z-]*\).*/\1/p;/^[^#]/q' "$1" | head -1
}

# integration_suites LANE: sets suites to the selected suites of that lane.
suites=()
integration_suites() {
	local t
	suites=()
	for t in "$REPO"/tests/integration/*.sh; do
		[ -f "$t" ] || continue
		selected "$(basename "$t")" || continue
		[ "$(lane_of "$t")" = "$1" ] && suites+=("$t")
	done
}

# run_suite SUITE: runs it, its status beside its log. timeout gives the suite
# a process group of its own and passes a TERM on to it: the lane forwards one
# to the running suite's timeout.
suite_pid=
run_suite() {
	local log=$LOGS/$(basename "$1" .sh).log
	(cd "$REPO" && BUILD="$BUILD" REPO="$REPO" exec timeout 1800 bash "$1") </dev/null >"$log" 2>&1 &
	suite_pid=$!
	wait "$suite_pid"
	echo $? >"$log.rc"
	suite_pid=
}

tally_suite() {
	local name log
	name=$(basename "$1" .sh)
	log=$LOGS/$name.log
	tally "$name" "$log" "$(cat "$log.rc" 2>/dev/null || echo 1)"
}

# The image lane starts first, in a process group of its own; an interrupted
# run stops it and the suite it runs.
lane_pid=
start_image_lane() {
	local t
	integration_suites "$IMAGE_LANE"
	[ ${#suites[@]} -gt 0 ] || return 0
	for t in "${suites[@]}"; do rm -f "$LOGS/$(basename "$t" .sh).log.rc"; done
	[ "${KVMPROF_TEST_LANES:-$(nproc 2>/dev/null || echo 1)}" -ge 2 ] || return 0
	set -m
	(
		trap '[ -n "$suite_pid" ] && kill -TERM "$suite_pid" 2>/dev/null; exit 143' TERM
		export KVMPROF_SYMBOL_CACHE=$BUILD/test-symcache-$IMAGE_LANE
		rm -rf "$KVMPROF_SYMBOL_CACHE"
		for t in "${suites[@]}"; do run_suite "$t"; done
	) &
	lane_pid=$!
	set +m
}
stop_suites() {
	[ -n "$suite_pid" ] && kill -TERM "$suite_pid" 2>/dev/null
	[ -n "$lane_pid" ] || return 0
	kill -TERM "$lane_pid" 2>/dev/null
	wait "$lane_pid" 2>/dev/null
}
trap stop_suites EXIT
trap 'exit 130' INT TERM

run_integration() {
	local t
	echo "integration tests:"
	integration_suites ""
	for t in "${suites[@]}"; do
		run_suite "$t"
		tally_suite "$t"
	done
}

# The suites that run with nothing beside them, once both lanes are done.
run_alone() {
	local t
	integration_suites "$ALONE_LANE"
	[ ${#suites[@]} -gt 0 ] || return 0
	echo "integration tests that run alone (QEMU with a nested guest):"
	for t in "${suites[@]}"; do
		run_suite "$t"
		tally_suite "$t"
	done
}

# The image lane's suites, once it is done (or now, when it did not run beside).
finish_image_lane() {
	local t
	integration_suites "$IMAGE_LANE"
	[ ${#suites[@]} -gt 0 ] || return 0
	if [ -n "$lane_pid" ]; then
		echo "integration tests using the disk images (run beside the others):"
		wait "$lane_pid"
		lane_pid=
	else
		echo "integration tests using the disk images:"
		for t in "${suites[@]}"; do run_suite "$t"; done
	fi
	for t in "${suites[@]}"; do tally_suite "$t"; done
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

# fuzz_pids: the targets still running (the image lane is a child too, so
# they are waited for by pid).
fuzz_pids=()
running_fuzz() {
	local p alive=()
	for p in "${fuzz_pids[@]}"; do
		kill -0 "$p" 2>/dev/null && alive+=("$p")
	done
	fuzz_pids=("${alive[@]}")
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
		running_fuzz
		while [ ${#fuzz_pids[@]} -ge "$jobs" ]; do
			wait -n "${fuzz_pids[@]}"
			running_fuzz
		done
		fuzz_one "$bin" &
		fuzz_pids+=($!)
	done
	[ ${#fuzz_pids[@]} -eq 0 ] || wait "${fuzz_pids[@]}"
	for bin in "${targets[@]}"; do
		name=$(basename "$bin")
		[ -f "$LOGS/$name-regressions.log.rc" ] &&
			tally "$name regressions" "$LOGS/$name-regressions.log" "$(cat "$LOGS/$name-regressions.log.rc")"
		tally "$name" "$LOGS/$name.log" "$(cat "$LOGS/$name.log.rc" 2>/dev/null || echo 1)"
	done
}

[ $unit_only -eq 0 ] && start_image_lane
run_unit
if [ $unit_only -eq 0 ]; then
	run_integration
	run_fuzz
	finish_image_lane
	run_alone
fi

if [ ${#failures[@]} -gt 0 ]; then
	echo "failed suites (logs in $LOGS): ${failures[*]}"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
