#!/bin/bash
# kvmprof diff of two recordings of this host, against perf diff on the same
# files: the rows perf shows with a baseline, the top 10 of them, are
# kvmprof's too, with the same baseline and delta within half a point. (A
# symbol gone from NEW: perf diff leaves its delta empty, kvmprof shows its
# whole share as the loss.)
. "$(dirname "$0")/../lib.sh"

build_spinner "$TMP/spinner" || { fail "build the spinner"; exit 1; }
cat >"$TMP/copier.c" <<'C'
#include <stdlib.h>
#include <string.h>
#include <time.h>
static char a[1 << 16], b[1 << 16];
__attribute__((noinline)) void kvmprof_copy_here(void)
{
	for (int i = 0; i < 64; i++) {
		memcpy(a, b, sizeof(a));
		b[i]++;
	}
}
int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 1);

	while (time(NULL) < end)
		kvmprof_copy_here();
	return a[1];
}
C
cc -O1 -g -o "$TMP/copier" "$TMP/copier.c" || { fail "build the copier"; exit 1; }

check "record the spinner" "$KVMPROF" record -a -q -o "$TMP/old.data" -- "$TMP/spinner" 2
check "record the copier" "$KVMPROF" record -a -q -o "$TMP/new.data" -- "$TMP/copier" 2

"$KVMPROF" diff "$TMP/old.data" "$TMP/new.data" >"$TMP/k.diff" 2>"$TMP/k.err"
check "diff exits 0 and prints rows" grep -q 'kvmprof_spin_here' "$TMP/k.diff"
check "diff has perf diff's columns" \
	grep -qE '^# Baseline +Delta +Shared Object +Symbol$' "$TMP/k.diff"
check "host-only files have no Guest column" bash -c "! grep -q Guest '$TMP/k.diff'"
check "the spinner's function went away" \
	grep -qE '^ +[0-9.]+% +-[0-9.]+% +spinner +\[\.\] kvmprof_spin_here' "$TMP/k.diff"
check "the copier's function came" \
	grep -qE '^ {10}  +\+[0-9.]+% +copier +\[\.\] kvmprof_copy_here' "$TMP/k.diff"
check "rows are sorted by |delta|" python3 - "$TMP/k.diff" <<'PY'
import re, sys
d = [abs(float(m.group(1))) for l in open(sys.argv[1])
     for m in [re.search(r'([+-][0-9.]+)%', l)] if not l.startswith('#') and m]
sys.exit(0 if d and d == sorted(d, reverse=True) else 1)
PY

if ! perf diff "$TMP/old.data" "$TMP/new.data" >"$TMP/p.diff" 2>"$TMP/p.err"; then
	skip "same rows as perf diff" "perf diff failed: $(tail -1 "$TMP/p.err")"
	exit 0
fi
# same_rows PERF_DIFF KVMPROF_DIFF N: perf's top N rows by baseline (0: all
# of them, and then kvmprof may have no row perf lacks) are kvmprof's, with
# the same baseline and delta within half a point.
cat >"$TMP/same_rows.py" <<'PY'
import re, sys

def rows(path):
    """(dso, symbol) -> (baseline, delta); an unresolved address is no symbol."""
    out = {}
    for line in open(path):
        if line.startswith('#') or not line.strip():
            continue
        m = re.match(r'\s*((?:[0-9.]+%)?)\s*((?:[+-][0-9.]+%)?)\s+(\S+)\s+(\[.\] \S+)', line)
        if not m or ' 0x' in m.group(4):
            continue
        pct = lambda s: float(s[:-1]) if s else 0.0
        out[(m.group(3), m.group(4))] = (pct(m.group(1)), pct(m.group(2)) if m.group(2) else None)
    return out

perf, kvmprof = rows(sys.argv[1]), rows(sys.argv[2])
limit = int(sys.argv[3])
top = sorted((k for k in perf if perf[k][0] > 0), key=lambda k: -perf[k][0])
top = top[:limit] if limit else top
bad = 0
for k in top:
    got = kvmprof.get(k)
    # No delta from perf: the symbol is gone, or changed by less than it prints.
    deltas = [perf[k][1]] if perf[k][1] is not None else [-perf[k][0], 0.0]
    if not got or abs(got[0] - perf[k][0]) > 0.5 or \
            min(abs((got[1] or 0) - d) for d in deltas) > 0.5:
        print('perf', k, perf[k], 'kvmprof', got)
        bad += 1
if not limit:
    for k in kvmprof:
        if kvmprof[k][0] > 0 and k not in perf:
            print('kvmprof only', k, kvmprof[k])
            bad += 1
print(len(top), 'rows compared')
sys.exit(1 if bad or len(top) < 5 else 0)
PY
check "same top 10 rows by baseline as perf diff, within 0.5 points" \
	python3 "$TMP/same_rows.py" "$TMP/p.diff" "$TMP/k.diff" 10

# Short processes spend their time in ld.so: its _start is a label, not a
# function, and its calls go through PLT entries no symbol table lists.
# perf names both; every row must be the same.
sh_loop='for i in $(seq 300); do /bin/true; /bin/echo >/dev/null; done'
check "record short processes (old)" "$KVMPROF" record -a -q -o "$TMP/old2.data" -- sh -c "$sh_loop"
check "record short processes (new)" "$KVMPROF" record -a -q -o "$TMP/new2.data" -- sh -c "$sh_loop"
perf diff "$TMP/old2.data" "$TMP/new2.data" >"$TMP/p2.diff" 2>"$TMP/p2.err"
"$KVMPROF" diff "$TMP/old2.data" "$TMP/new2.data" >"$TMP/k2.diff" 2>"$TMP/k2.err"
check "perf names ld.so's _start in them" \
	grep -qE '%  +ld-linux-x86-64\.so\.2 +\[\.\] _start$' "$TMP/p2.diff"
check "short processes: every row with a baseline is perf diff's, and no other" \
	python3 "$TMP/same_rows.py" "$TMP/p2.diff" "$TMP/k2.diff" 0

# perf diff's default files.
(cd "$TMP" && cp old.data perf.data.old && cp new.data perf.data)
check "no files: perf.data.old and perf.data" \
	bash -c "cd '$TMP' && '$KVMPROF' diff | grep -q 'diff of perf.data.old (baseline) and perf.data\$'"
(cd "$TMP" && cp old.data perf.data.host && cp new.data perf.data.guest)
check "no files and --host: perf.data.host and perf.data.guest, as perf kvm diff" \
	bash -c "cd '$TMP' && '$KVMPROF' diff --host | grep -q 'diff of perf.data.host (baseline) and perf.data.guest\$'"
expect_fail "three files are a usage error" "at most two files" \
	"$KVMPROF" diff a b c
