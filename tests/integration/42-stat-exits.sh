#!/bin/bash
# test-lane: alone (tests/run-tests.sh)
# VM exits counted exactly: inside L1 (the project's kernel, nested KVM) the
# tiny guest writes port 0x80 and reads MSR 0x1b N times each on purpose
# (tinyvmm --exits N). kvmprof stat exits and perf kvm stat record it; both
# reports must count exactly N of each, name the reasons, and put the exits
# on the guest function that made them. Also kvmprof's live views (stat
# exits live, top) on a running guest.
. "$(dirname "$0")/../lib.sh"

N=1000
OUT=$BUILD/l1-results/exits
rm -rf "$OUT" && mkdir -p "$OUT"
t0=$SECONDS
"$REPO/tests/qemu/l1-run.sh" -t 400 "$OUT" "$REPO/tests/qemu/stat-exits-l1.sh" "$BUILD" "$N"
rc=$?
echo "# L1 boot + runs: $((SECONDS - t0)) s"
sed 's/^/# /' "$OUT/status" 2>/dev/null
check "L1 run completes" test $rc -eq 0
check "kvmprof stat exits record succeeded in L1" grep -qx "record: 0" "$OUT/status"
check "the VMM handled exactly $N port writes" \
	grep -qx "tinyvmm: port 0x80 writes handled: $N" "$OUT/record.out"
check "perf kvm stat record succeeded in L1" grep -qx "perf-record: 0" "$OUT/status"
check "perf kvm stat report read perf's file and kvmprof's" \
	bash -c "[ \$(grep -cE '^perf-(on-kvmprof|report)-[a-z]+: 0$' '$OUT/status') = 4 ]"

MAP=$BUILD/tinyvm/payload.map
for ev in vmexit ioport msr; do
	"$KVMPROF" stat exits report -i "$OUT/exits.data" --event $ev --guestkallsyms "$MAP" \
		>"$TMP/kvmprof-$ev.txt" 2>&1
	echo "kvmprof-$ev: $?" >>"$TMP/rc"
done
# count FILE KEY: the Samples column of KEY's first row (the all-vCPU table).
count() { awk -v k="$2" '$1 == k { print $2; exit }' "$1"; }
for who in kvmprof perf perf-on-kvmprof; do
	case $who in
	kvmprof) f=$TMP/kvmprof ;;
	perf) f=$OUT/perf ;;
	perf-on-kvmprof) f=$OUT/perf-on-kvmprof ;;
	esac
	check "$who: port 0x80 writes counted exactly ($(count "$f-ioport.txt" 0x80:POUT) of $N)" \
		test "$(count "$f-ioport.txt" 0x80:POUT)" = "$N"
	# perf 6.1 has no msr view; later perf keys it "0x1b:R" as kvmprof does.
	[ "$who" = kvmprof ] &&
		check "$who: MSR 0x1b reads counted exactly ($(count "$f-msr.txt" 0x1b:R) of $N)" \
			test "$(count "$f-msr.txt" 0x1b:R)" = "$N"
	check "$who: io exits counted exactly ($(count "$f-vmexit.txt" io) of $N)" \
		test "$(count "$f-vmexit.txt" io)" = "$N"
	check "$who: msr exits counted exactly ($(count "$f-vmexit.txt" msr) of $N)" \
		test "$(count "$f-vmexit.txt" msr)" = "$N"
done
# Every reason, not only the designed ones: perf's report of kvmprof's own
# file and kvmprof's report of it count the same.
rows() { awk '/^ +[A-Za-z_]+ +[0-9]+ +[0-9.]+%/ && !seen[$1]++ { print $1, $2 }' "$1" | sort; }
check "kvmprof and perf kvm stat count every exit reason of kvmprof's file alike" \
	cmp <(rows "$TMP/kvmprof-vmexit.txt") <(rows "$OUT/perf-on-kvmprof-vmexit.txt")
check "kvmprof reports ran" bash -c "! grep -v ': 0$' '$TMP/rc'"
check "kvmprof: the guest is named tiny" grep -q "guest tiny (pid" "$TMP/kvmprof-vmexit.txt"
# Every one of the burst's 2N exits is at an instruction of exit_burst.
burst=$(awk '/^Top guest functions/ { on = 1 } on && $3 == "exit_burst" { print $1; exit }' \
	"$TMP/kvmprof-vmexit.txt")
check "kvmprof: exit_burst caused the $((2 * N)) io and msr exits (${burst:-none})" \
	test "${burst:-0}" -ge $((2 * N))
check "kvmprof: exit_burst's reasons are io and msr" \
	bash -c "grep -E ' exit_burst ' '$TMP/kvmprof-vmexit.txt' | head -1 | grep -q 'io $N' &&
		 grep -E ' exit_burst ' '$TMP/kvmprof-vmexit.txt' | head -1 | grep -q 'msr $N'"
"$KVMPROF" stat exits report -i "$OUT/exits.data" --event vmexit --duration 1 \
	--guestkallsyms "$MAP" >"$TMP/duration.txt" 2>&1
check "--duration 1 lists every exit (all take longer) with its function" \
	test "$(grep -c 'exit_burst' "$TMP/duration.txt")" -ge $((2 * N))
echo "# kvmprof stat exits report (vmexit):" && head -30 "$TMP/kvmprof-vmexit.txt" | sed 's/^/#   /'

check "stat exits live ran two intervals" \
	bash -c "grep -qx 'live: 0' '$OUT/status' && [ \$(grep -c '^Analyze events for guest tiny' '$OUT/live.txt') -ge 2 ]"
check "top --stdio: the guest tiny and its kernel_work function" \
	bash -c "grep -qx 'top: 0' '$OUT/status' && grep -q 'tiny' '$OUT/top.txt' && grep -q '\[g\] kernel_work' '$OUT/top.txt'"

