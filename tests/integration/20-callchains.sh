#!/bin/bash
# kvmprof record -g, report -g/--children (against perf 6.1) and export of
# the call chains (folded stacks, go tool pprof) on this machine.
. "$(dirname "$0")/../lib.sh"

# main -> outer -> inner -> spin, with frame pointers: a known chain to find.
cat >"$TMP/chain.c" <<'C'
#include <stdlib.h>
#include <time.h>
volatile unsigned long sink;
__attribute__((noinline)) void spin(void)
{
	for (int i = 0; i < 1000000; i++)
		sink += (unsigned long)i;
}
__attribute__((noinline)) void inner(void)
{
	spin();
	for (int i = 0; i < 300000; i++)
		sink += (unsigned long)i;
}
__attribute__((noinline)) void outer(void)
{
	inner();
}
int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 1);

	while (time(NULL) < end)
		outer();
	return 0;
}
C
cc -O0 -fno-omit-frame-pointer -g -o "$TMP/chain" "$TMP/chain.c" || {
	fail "build the chain program"
	exit 1
}

F=$TMP/cc.data
check "record -g exits 0" "$KVMPROF" record -g -q -o "$F" -- "$TMP/chain" 2
expect_fail "record --call-graph dwarf is refused, saying so" "dwarf is not supported" \
	"$KVMPROF" record --call-graph dwarf -q -o "$TMP/x.data" -- true
check "perf script reads several frames per sample" \
	bash -c "perf script -i '$F' -F ip,sym 2>/dev/null | grep -A3 -w spin | grep -qw outer"

"$KVMPROF" report -i "$F" -g >"$TMP/k.report" 2>"$TMP/k.err"
check "report -g prints Children and Self" grep -q '^# Children      Self' "$TMP/k.report"

# The tree under outer (caller order): outer, then inner, then spin below it.
awk '/\[\.\] outer$/ { on = 1; next } on && /^$/ { exit } on' "$TMP/k.report" >"$TMP/outer.tree"
check "outer's tree: inner under outer, spin under inner" \
	bash -c "tr -d ' |-' <'$TMP/outer.tree' | sed 's/^[0-9.]*%//' | grep -v '^$' | head -3 | tr '\n' ' ' | grep -q '^outer inner spin'"
awk '/\[\.\] spin$/ { on = 1; next } on && /^$/ { exit } on' "$TMP/k.report" >"$TMP/spin.tree"
check "spin's tree: main, outer, inner above spin" \
	bash -c "tr -d ' |-' <'$TMP/spin.tree' | sed 's/^[0-9.]*%//' | grep -v '^$' |
		grep -A3 -x main | tr '\n' ' ' | grep -q '^main outer inner spin'"

# Children >= Self on every row, and main's Children at least spin's.
check "Children >= Self on every row" \
	bash -c "grep -E '^ +[0-9.]+% +[0-9.]+%' '$TMP/k.report' | awk '\$1+0 < \$2+0 { bad=1 } END { exit bad }'"
children_of() { awk -v s="$1" '$NF == s && /%.*%/ { print $1+0; exit }' "$TMP/k.report"; }
check "main's Children ($(children_of main)) >= spin's ($(children_of spin))" \
	awk -v a="$(children_of main)" -v b="$(children_of spin)" 'BEGIN { exit !(a >= b && b > 0) }'

# perf 6.1 on the same file: the top 5 Children rows name the same symbols
# with percentages within 2 points. Rows of equal Children may come in
# another order, so both lists are sorted by (Children, symbol).
top5() {
	grep -E '^ +[0-9.]+% +[0-9.]+%' | head -5 | awk '{ printf "%.2f %s\n", $1, $NF }' | sort -k1,1nr -k2
}
perf report -i "$F" --stdio --children -g none -s comm,dso,sym 2>/dev/null >"$TMP/p.report"
top5 <"$TMP/k.report" >"$TMP/k.top"
top5 <"$TMP/p.report" >"$TMP/p.top"
if paste "$TMP/k.top" "$TMP/p.top" | awk 'NF != 4 || $2 != $4 || ($1 - $3) > 2 || ($3 - $1) > 2 { bad = 1 } END { exit bad || NR != 5 }'; then
	ok "top 5 Children rows agree with perf report --children"
else
	fail "top 5 Children rows agree with perf report --children"
	paste "$TMP/k.top" "$TMP/p.top" | sed 's/^/#   /'
fi

# Without -g the report is the flat one, whatever the file holds.
check "report without -g has one Overhead column" grep -q '^# Overhead' \
	<("$KVMPROF" report -i "$F")
check "--no-children -g: Overhead column with trees" \
	bash -c "'$KVMPROF' report -i '$F' --no-children -g callee | grep -A3 -E '\[\.\] spin$' | grep -q -- '---spin'"
"$KVMPROF" record -q -o "$TMP/flat.data" -- true
expect_fail "-g on a file without call chains says so" "no call chains" \
	"$KVMPROF" report -i "$TMP/flat.data" -g

# Export of the same -g file: each stack is the sample's call chain.
"$KVMPROF" export -i "$F" --folded "$TMP/cc.folded" 2>"$TMP/export.err"
check "folded stacks hold the chain, outermost first: main;outer;inner;spin" \
	grep -qE '^chain;(.*;)?main;outer;inner;spin [0-9]+$' "$TMP/cc.folded"
samples=$(sed -n 's/^# Samples: \([0-9]*\) of event.*/\1/p' <("$KVMPROF" report -i "$F"))
sum=$(awk '{ s += $NF } END { print s }' "$TMP/cc.folded")
check "folded counts sum to report's samples ($sum = $samples)" test "$sum" = "$samples"
if ! command -v go >/dev/null; then
	skip "go tool pprof reads the stacks" "no go (scripts/deps.sh: golang-go)"
else
	export PPROF_TMPDIR=$TMP HOME=${HOME:-$TMP}
	"$KVMPROF" export -i "$F" --pprof "$TMP/cc.pb.gz"
	go tool pprof -traces "$TMP/cc.pb.gz" >"$TMP/cc.traces" 2>"$TMP/cc.traces.err"
	check "go tool pprof -traces: spin, then inner, outer and main, its callers" \
		bash -c "awk '{ print \$NF }' '$TMP/cc.traces' | grep -A3 -x spin | tr '\n' ' ' |
			grep -q 'spin inner outer main'"
	cum_of() {
		go tool pprof -top -cum -nodecount=50 "$TMP/cc.pb.gz" 2>/dev/null |
			awk -v s="$1" '$NF == s { print $(NF-1); exit }' | tr -d %
	}
	check "pprof -top -cum: main's cumulative share ($(cum_of main)%) >= spin's ($(cum_of spin)%)" \
		awk -v a="$(cum_of main)" -v b="$(cum_of spin)" 'BEGIN { exit !(a >= b && b > 0) }'
fi
