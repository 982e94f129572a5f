#!/bin/bash
# kvmprof export on a recording of this host, read back by real consumers:
# go tool pprof (the same top functions and total as kvmprof report), the
# folded stacks (the same total and top frames), the SVG (well-formed XML).
. "$(dirname "$0")/../lib.sh"

build_spinner "$TMP/spinner" || { fail "build the spinner"; exit 1; }
F=$TMP/k.data
check "record -a -- spinner exits 0" "$KVMPROF" record -a -q -o "$F" -- "$TMP/spinner" 2

"$KVMPROF" report -i "$F" -s sym >"$TMP/report" 2>"$TMP/report.err"
samples=$(sed -n "s/^# Samples: \([0-9]*\) of event.*/\1/p" "$TMP/report")
# The symbol of each row, heaviest first: "[k] name" -> "name", "[.] 0x..." -> "0x...".
report_syms() { grep -E '^ +[0-9.]+%' "$TMP/report" | awk '{ print $3 }'; }
check "report has samples ($samples)" test -n "$samples" -a "${samples:-0}" -gt 0

check "export writes pprof, folded and SVG" "$KVMPROF" export -i "$F" \
	--pprof "$TMP/k.pb.gz" --folded "$TMP/k.folded" --svg "$TMP/k.svg"
check "export --folded with no file writes to standard output" \
	bash -c "'$KVMPROF' export -i '$F' --folded | cmp - '$TMP/k.folded'"
expect_fail "export with nothing to write is a usage error" "--pprof, --folded or --svg" \
	"$KVMPROF" export -i "$F"

# --- pprof ----------------------------------------------------------------------
if ! command -v go >/dev/null; then
	skip "go tool pprof reads the profile" "no go (scripts/deps.sh: golang-go)"
else
	export PPROF_TMPDIR=$TMP HOME=${HOME:-$TMP}
	# No node dropped for being small: an idle machine's report has tiny rows.
	pprof_top() {
		go tool pprof "$@" -top -nodecount=20 -nodefraction=0 "$TMP/k.pb.gz" 2>"$TMP/pprof.err"
	}
	pprof_top >"$TMP/pprof.top"
	check "go tool pprof -top reads the profile" grep -q 'flat%' "$TMP/pprof.top"
	pprof_syms() { sed '1,/flat%/d' "$TMP/pprof.top" | awk '{ print $6 }'; }
	# Rows of 0.1% and more (at most 5): rows of a few equal samples may
	# come in either order.
	n=$(grep -cE '^ +([1-9][0-9]*\.[0-9]+|0\.[1-9][0-9]*)%' "$TMP/report")
	n=$((n > 5 ? 5 : n))
	if [ "$n" -gt 0 ] && diff <(report_syms | head -$n) <(pprof_syms | head -$n) >"$TMP/top.diff"; then
		ok "pprof's top $n functions are report's top $n symbols, in order"
	else
		fail "pprof's top $n functions are report's top $n symbols, in order"
		sed 's/^/#   /' "$TMP/top.diff"
	fi
	total=$(pprof_top -sample_index=samples | sed -n 's/.* of \([0-9]*\) total.*/\1/p')
	check "pprof's sample total is report's ($total = $samples)" test "$total" = "$samples"
	go tool pprof -traces "$TMP/k.pb.gz" >"$TMP/traces" 2>"$TMP/traces.err"
	check "go tool pprof -traces shows labelled stacks" \
		grep -q 'mode:  host-user' "$TMP/traces"
	check "pprof -traces names the spinner" grep -q kvmprof_spin_here "$TMP/traces"
fi

# --- folded stacks -----------------------------------------------------------------
sum=$(awk '{ s += $NF } END { print s }' "$TMP/k.folded")
check "folded counts sum to report's samples ($sum = $samples)" test "$sum" = "$samples"
check "folded lines are root;...;leaf count" \
	bash -c "! grep -vE '^[^;]+(;[^;]+)+ [0-9]+\$' '$TMP/k.folded'"
check "the spinner's stack is rooted at its command" \
	grep -q '^spinner;kvmprof_spin_here [0-9]*$' "$TMP/k.folded"
# Leaf frames summed by period, resolved ones only: report's order.
"$KVMPROF" export -i "$F" --folded "$TMP/p.folded" --period
folded_leaves() {
	awk '{ n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); s[f[k]] += n }
	     END { for (x in s) print s[x], x }' "$TMP/p.folded" |
		sort -k1,1nr | awk '$2 !~ /^\[/ { print $2 }'
}
if diff <(report_syms | grep -v '^0x' | head -3) <(folded_leaves | head -3) >"$TMP/f.diff"; then
	ok "the top 3 folded leaf frames by period are report's top 3 symbols"
else
	fail "the top 3 folded leaf frames by period are report's top 3 symbols"
	sed 's/^/#   /' "$TMP/f.diff"
fi

# --- SVG ------------------------------------------------------------------------
check "the SVG is well-formed XML" python3 -c \
	'import xml.dom.minidom, sys; xml.dom.minidom.parse(sys.argv[1])' "$TMP/k.svg"
top=$(report_syms | grep -v '^0x' | head -1)
check "the SVG shows the top symbol ($top)" grep -q "<title>$top (" "$TMP/k.svg"
check "the SVG has no script" bash -c "! grep -qi '<script' '$TMP/k.svg'"
