#!/bin/bash
# kvmprof stat on this host, against perf stat on the same commands. No
# guest is needed: the per-guest blocks are tested in the QEMU harness.
. "$(dirname "$0")/../lib.sh"

# Spins until it has used SECS of CPU time, so that its task-clock is known
# however loaded the machine is (a wall-clock loop would get less CPU).
cat >"$TMP/spin.c" <<'C'
#include <stdlib.h>
#include <time.h>
int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 0.5;
	volatile unsigned long x = 0;
	struct timespec t;

	do {
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while (t.tv_sec + t.tv_nsec / 1e9 < secs);
	return 0;
}
C
cc -O1 -o "$TMP/spin" "$TMP/spin.c" || { fail "build the spinner"; exit 1; }

# msec of EVENT in perf stat's text output on stdin, separators removed.
msec_of() { awk -v ev="$1" '$2 == "msec" && $3 == ev { gsub(",", "", $1); print $1; exit }'; }
elapsed_of() { awk '/seconds time elapsed/ { print $1; exit }'; }
# within A B PCT: A is within PCT percent of B.
within() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= b * p / 100) }'; }
between() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'; }

# A sleeping command: almost no CPU, but the time it took.
"$KVMPROF" stat -e task-clock -- sleep 0.3 >"$TMP/sleep.out" 2>&1
check "stat -- sleep 0.3 exits 0" test $? -eq 0
tc=$(msec_of task-clock <"$TMP/sleep.out")
el=$(elapsed_of <"$TMP/sleep.out")
check "sleep's task-clock is near 0 msec ($tc)" between "${tc:--1}" 0 50
check "sleep's elapsed time is about 0.3 s ($el)" between "${el:--1}" 0.29 0.6
check "a software event is printed whole, as host+guest" grep -qE 'task-clock +host\+guest' "$TMP/sleep.out"

# A busy command: its task-clock, and perf's on the same command.
"$KVMPROF" stat -e task-clock -- sh -c "$TMP/spin 0.5" >"$TMP/spin.out" 2>&1
check "stat -- spinner exits 0" test $? -eq 0
k=$(msec_of task-clock <"$TMP/spin.out")
perf stat -e task-clock -- sh -c "$TMP/spin 0.5" >"$TMP/perf.out" 2>&1
p=$(msec_of task-clock <"$TMP/perf.out")
check "the spinner's task-clock is 500 msec within 20% ($k)" within "${k:-0}" 500 20
check "... and perf stat's within 20% ($k vs $p)" within "${k:-0}" "${p:-0}" 20
check "counts have thousands separators" sh -c "\"$KVMPROF\" stat -e task-clock -- \"$TMP/spin\" 1.1 2>&1 | grep -qE '1,[0-9]{3}\.[0-9]{2} msec task-clock'"

# Default events: a PMU event this host lacks is <not supported>, as perf says.
"$KVMPROF" stat -- true >"$TMP/default.out" 2>&1
check "default events count a command" grep -qE 'context-switches +host\+guest' "$TMP/default.out"
if ! ls -d /sys/bus/event_source/devices/cpu* >/dev/null 2>&1; then
	check "no PMU: cycles host and guest are <not supported>" \
		test "$(grep -cE '<not supported> +cycles +(host|guest)$' "$TMP/default.out")" -eq 2
else
	check "PMU: cycles has a host and a guest line" \
		test "$(grep -cE ' cycles +(host|guest)' "$TMP/default.out")" -eq 2
fi

check "the command's exit status is stat's" sh -c "\"$KVMPROF\" stat -e task-clock -- sh -c 'exit 3' 2>/dev/null; test \$? -eq 3"

# -I: one block of lines per interval, each stamped.
"$KVMPROF" stat -a -I 200 -- sleep 1 >"$TMP/interval.out" 2>&1
check "stat -a -I 200 -- sleep 1 exits 0" test $? -eq 0
stamps=$(awk '$1 ~ /^[0-9]+\.[0-9]{9}$/ && $4 == "cpu-clock" { print $1 }' "$TMP/interval.out" | sort -u | wc -l)
check "at least 4 intervals of 200 ms in 1 s ($stamps)" test "$stamps" -ge 4
check "-a counts cpu-clock by default, not task-clock" grep -q 'cpu-clock' "$TMP/interval.out"

# -x: fields for machines.
"$KVMPROF" stat -a -x , -e cpu-clock,context-switches,cycles -- sleep 0.2 >"$TMP/csv.out" 2>&1
check "stat -x , exits 0" test $? -eq 0
check "-x lines are value,unit,event,run,percent,part,guest" awk -F, '
	NF != 7 { bad = 1 }
	$1 !~ /^([0-9]+(\.[0-9]+)?|<not supported>|<not counted>)$/ { bad = 1 }
	$4 !~ /^[0-9]+$/ || $5 !~ /^[0-9]+\.[0-9]{2}$/ { bad = 1 }
	$6 !~ /^(host|guest|host\+guest|vcpu-threads)$/ { bad = 1 }
	END { exit bad || NR < 4 }' "$TMP/csv.out"
check "-x cpu-clock is msec, counted all the time" grep -qE '^[0-9]+\.[0-9]{2},msec,cpu-clock,[0-9]+,100\.00,host\+guest,$' "$TMP/csv.out"
"$KVMPROF" stat -x ';' -I 100 -e task-clock -- sleep 0.3 >"$TMP/csv-i.out" 2>&1
check "-x with -I starts each line with its timestamp" awk -F';' '
	NF != 8 || $1 !~ /^[0-9]+\.[0-9]{9}$/ { bad = 1 } END { exit bad || NR < 2 }' "$TMP/csv-i.out"

# -a with a guest list and no QEMU running: said, and no guest block. Run in
# a PID namespace of its own, so that it sees no QEMU whatever else runs on
# the host (other suites start QEMUs).
cat >"$TMP/guests.conf" <<CONF
guest web
    disk raw $TMP/web.img
CONF
truncate -s 1M "$TMP/web.img"
unshare --pid --fork --mount-proc \
	"$KVMPROF" stat -a --guests-conf "$TMP/guests.conf" -e cpu-clock -- sleep 0.2 >"$TMP/conf.out" 2>&1
check "stat -a --guests-conf FILE exits 0" test $? -eq 0
check "no guest running: no guest block, and why" grep -q 'no QEMU was running' "$TMP/conf.out"
check "... and no guest block" bash -c "! grep -q 'vcpu-threads\|guest web' '$TMP/conf.out'"

# Errors say what is wrong.
expect_fail "a bad event name is named" "unknown event 'no-such-event'" \
	"$KVMPROF" stat -e task-clock,no-such-event -- true
expect_fail "-p of a nonexistent pid says so" "-p 999999: no such process" \
	"$KVMPROF" stat -p 999999
expect_fail "a command that cannot run is named" "cannot run /nonexistent/cmd: No such file" \
	"$KVMPROF" stat -- /nonexistent/cmd
expect_fail "a missing --guests-conf is named" "$TMP/missing.conf" \
	"$KVMPROF" stat -a --guests-conf "$TMP/missing.conf" -- true
expect_fail "nothing to count is an error" "nothing to count" "$KVMPROF" stat
check "kvmprof stat exits is its own subcommand" sh -c "\"$KVMPROF\" stat exits 2>&1 | grep -q 'kvmprof stat exits'"
