#!/bin/bash
# kvmprof record and report on this machine, against perf 6.1 on the same files.
. "$(dirname "$0")/../lib.sh"

build_spinner "$TMP/spinner" || { fail "build the spinner"; exit 1; }

# Rows at or above 2%, whitespace folded and sorted, so that the two tools'
# column widths and the order of equal rows do not matter.
top_rows() {
	grep -v '^#' | grep -E '^ +[0-9]' | awk '$1+0 >= 2.0 { $1=$1; print }' | sort
}
event_count() {
	sed -n 's/^# Event count (approx.): //p' | head -1
}

F=$TMP/k.data
check "record -a -- spinner exits 0" "$KVMPROF" record -a -q -o "$F" -- "$TMP/spinner" 2
check "record wrote a file" test -s "$F"

"$KVMPROF" report -i "$F" --stdio >"$TMP/k.report" 2>"$TMP/k.err"
check "report reads kvmprof's file" test -s "$TMP/k.report"
check "report names the spinner's function from its ELF .symtab" \
	grep -qE 'spinner +spinner +\[\.\] kvmprof_spin_here' "$TMP/k.report"
check "report names host kernel functions" grep -qE '\[kernel\.kallsyms\] +\[k\] [a-z_]' "$TMP/k.report"

# One event: its samples need no IDENTIFIER to find it, and carry none.
check "one event: samples without IDENTIFIER ($(perf evlist -v -i "$F" 2>/dev/null | grep -o 'sample_type: [A-Z_|]*'))" \
	bash -c "perf evlist -v -i '$F' 2>/dev/null | grep -q 'sample_type: IP|TID|TIME|CPU|PERIOD,'"

perf report -i "$F" --stdio -s comm,dso,sym >"$TMP/p.report" 2>"$TMP/p.err"
check "perf 6.1 reads kvmprof's file" test -s "$TMP/p.report"
k_total=$(event_count <"$TMP/k.report")
p_total=$(event_count <"$TMP/p.report")
check "same event count as perf ($k_total)" test -n "$k_total" -a "$k_total" = "$p_total"
if diff <(top_rows <"$TMP/k.report") <(top_rows <"$TMP/p.report") >"$TMP/top.diff"; then
	ok "same rows above 2% as perf report"
else
	fail "same rows above 2% as perf report"
	sed 's/^/#   /' "$TMP/top.diff"
fi

# The other direction: perf's own file, read by kvmprof.
P=$TMP/p.data
perf record -q -a -e cpu-clock -o "$P" -- "$TMP/spinner" 2 >/dev/null 2>&1
"$KVMPROF" report -i "$P" --stdio >"$TMP/k2.report" 2>"$TMP/k2.err"
perf report -i "$P" --stdio -s comm,dso,sym >"$TMP/p2.report" 2>/dev/null
check "kvmprof reads perf record's file" grep -q 'kvmprof_spin_here' "$TMP/k2.report"
check "same event count as perf on perf's file" \
	test "$(event_count <"$TMP/k2.report")" = "$(event_count <"$TMP/p2.report")"
if diff <(top_rows <"$TMP/k2.report") <(top_rows <"$TMP/p2.report") >"$TMP/top2.diff"; then
	ok "same rows above 2% as perf report on perf's file"
else
	fail "same rows above 2% as perf report on perf's file"
	sed 's/^/#   /' "$TMP/top2.diff"
fi

# --host/--guest default names and filtering.
(cd "$TMP" && "$KVMPROF" record -q --host -- sleep 0.2 && test -s perf.data.host)
check "--host writes perf.data.host" test -s "$TMP/perf.data.host"
(cd "$TMP" && "$KVMPROF" record -q --guest -- sleep 0.2)
check "--guest writes perf.data.guest" test -s "$TMP/perf.data.guest"
check "--guest keeps no host samples" \
	bash -c "! '$KVMPROF' report -i '$TMP/perf.data.guest' | grep -qE '\[[k.]\] '"

# Build-ids: a binary rebuilt after recording must not lend its new symbols.
cp "$TMP/spinner" "$TMP/spin2"
"$KVMPROF" record -q -o "$TMP/b.data" -- "$TMP/spin2" 1
check "perf reads kvmprof's build-id table" \
	bash -c "perf buildid-list -i '$TMP/b.data' 2>/dev/null | grep -q spin2"
sed 's/kvmprof_spin_here/other_function_now/' "$TMP/spinner.c" >"$TMP/spin2.c"
cc -O0 -g -o "$TMP/spin2" "$TMP/spin2.c"
"$KVMPROF" report -i "$TMP/b.data" >"$TMP/b.report" 2>&1
check "a rebuilt binary is flagged in the header" grep -q "spin2 changed since recording" "$TMP/b.report"
check "and its samples are not given the new binary's names" \
	bash -c "! grep -q other_function_now '$TMP/b.report'"

# A command whose name carries an escape sequence: the report neutralises it.
evil="$TMP/"$'x\033[31m'
cp "$TMP/spinner" "$evil"
"$KVMPROF" record -q -o "$TMP/e.data" -- "$evil" 1
check "escape sequences in command names never reach the report" \
	bash -c "'$KVMPROF' report -i '$TMP/e.data' -s comm,dso,sym | grep -q 'x?\[31m' &&
		! '$KVMPROF' report -i '$TMP/e.data' | grep -q $'\\033'"

# Damaged inputs: a clear error naming the file, never a crash.
head -c 3000 "$F" >"$TMP/trunc.data"
expect_fail "truncated file: error names the file" "trunc.data" "$KVMPROF" report -i "$TMP/trunc.data"
# Cut in the middle of the data section (header: data.offset at 40, data.size at 48).
data_off=$(od -An -t u8 -j 40 -N 8 "$F" | tr -d ' ')
data_size=$(od -An -t u8 -j 48 -N 8 "$F" | tr -d ' ')
cp "$F" "$TMP/cut.data"
truncate -s $((data_off + data_size / 2)) "$TMP/cut.data"
expect_fail "file cut in its data: error names file and offset" "cut.data.*offset [0-9]" \
	"$KVMPROF" report -i "$TMP/cut.data"
head -c 100000 /dev/urandom >"$TMP/random.data"
expect_fail "random bytes: not a perf.data file" "random.data.*not a perf.data file" \
	"$KVMPROF" report -i "$TMP/random.data"
# Cut in the features after the data: samples still report, with a warning.
size=$(stat -c %s "$F")
cp "$F" "$TMP/feat.data"
truncate -s $((size - 100)) "$TMP/feat.data"
"$KVMPROF" report -i "$TMP/feat.data" >"$TMP/feat.report" 2>&1
check "damaged header features are reported, samples still shown" \
	grep -q "warning: .*feature" "$TMP/feat.report"
expect_fail "missing file" "nonexistent.*No such file" "$KVMPROF" report -i "$TMP/nonexistent"
expect_fail "unknown sort key is named" "unknown sort key 'bogus'" "$KVMPROF" report -i "$F" -s bogus

# guests.conf names guests for record as it does for guestfs-mount: one parser.
printf 'guest web1\n  disk raw /nonexistent.img\n  disk vmdk /x.vmdk\n' >"$TMP/bad-guests.conf"
expect_fail "record: a malformed --guests-conf is refused, file and line named" \
	"bad-guests.conf:3: 'disk' wants a format" \
	"$KVMPROF" record -q --guests-conf "$TMP/bad-guests.conf" -o "$TMP/g.data" -- true
expect_fail "record: a missing --guests-conf is refused" "nonexistent-guests.conf" \
	"$KVMPROF" record -q --guests-conf "$TMP/nonexistent-guests.conf" -o "$TMP/g.data" -- true
printf 'guest web1\n  disk raw /nonexistent.img\n' >"$TMP/good-guests.conf"
check "record: a valid --guests-conf is read" \
	"$KVMPROF" record -q --guests-conf "$TMP/good-guests.conf" -o "$TMP/g.data" -- true

# A program that lives in the vDSO: its samples are named as perf names them,
# from the vDSO whose build-id the recording holds.
cat >"$TMP/clock.c" <<'C'
#include <stdlib.h>
#include <time.h>
int main(int argc, char **argv)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while (t.tv_sec - t0.tv_sec < (argc > 1 ? atoi(argv[1]) : 1));
	return 0;
}
C
cc -O1 -o "$TMP/clock" "$TMP/clock.c"
check "record a clock_gettime loop" "$KVMPROF" record -q -o "$TMP/vdso.data" -- "$TMP/clock" 2
# The named functions of the [vdso] rows (perf too leaves some addresses
# unnamed: the vDSO exports only its entry points).
vdso_named() { grep -E '^ +[0-9.]+% .*\[vdso\] +\[\.\] [^0]' | awk '{ print $NF }' | sort; }
"$KVMPROF" report -i "$TMP/vdso.data" -s dso,sym 2>/dev/null | vdso_named >"$TMP/k.vdso"
perf report -i "$TMP/vdso.data" --stdio -s dso,sym 2>/dev/null | vdso_named >"$TMP/p.vdso"
check "the vDSO's functions are named ($(tr '\n' ' ' <"$TMP/k.vdso")), as perf names them" \
	bash -c "grep -q clock_gettime '$TMP/k.vdso' && cmp -s '$TMP/k.vdso' '$TMP/p.vdso'"
check "perf reads the [vdso] build-id kvmprof record wrote" \
	bash -c "perf buildid-list -i '$TMP/vdso.data' 2>/dev/null | grep -q '\[vdso\]'"

# The benchmarks' file of repeated samples (bench/bench_grow_perfdata.c)
# is made from a recording like this one: report and perf read it, with
# the sample count asked for.
check "bench_grow_perfdata repeats a recording to 50000 samples" \
	"$BUILD/bench/bench_grow_perfdata" "$TMP/vdso.data" "$TMP/grown.data" 50000
check "kvmprof report reads the grown file: 50000 samples" \
	bash -c "'$KVMPROF' report -i '$TMP/grown.data' --stdio | grep -q '^# Samples: 50000 of event'"
check "perf report reads it too" \
	bash -c "perf report -i '$TMP/grown.data' --stdio 2>/dev/null | grep -q '^# Samples: 50K of event'"

# Two events: each sample names its event by IDENTIFIER, and both tools
# count each event's samples alike.
F2=$TMP/two.data
"$KVMPROF" record -a -q -e cpu-clock,task-clock -o "$F2" -- "$TMP/spinner" 1
check "two events: both keep IDENTIFIER" \
	test "$(perf evlist -v -i "$F2" 2>/dev/null | grep -c 'sample_type: .*|IDENTIFIER,')" = 2
per_event() { sed -n "s/^# Samples: \([0-9]*\) of event '\(.*\)'/\2 \1/p"; }
k_two=$("$KVMPROF" report -i "$F2" --stdio 2>/dev/null | per_event | xargs)
p_two=$(perf script -i "$F2" -F event 2>/dev/null | sed 's/: *$//; s/^ *//' | sort | uniq -c |
	awk '{ print $2, $1 }' | xargs)
check "two events: kvmprof and perf count each event's samples alike ($k_two; $p_two)" \
	bash -c "[ -n '$k_two' ] && [ '$k_two' = '$p_two' ]"
