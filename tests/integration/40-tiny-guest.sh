#!/bin/bash
# test-lane: alone (tests/run-tests.sh)
# The tiny purpose-built guest under real nested KVM inside an L1 QEMU guest
# running the project's kernel: guest samples must land on the designed
# guest functions in the designed proportions (kernel_work 70%, each user
# loop 15%). TCG delivers interrupts only at block boundaries, so user
# samples are checked by address range, not exact address.
. "$(dirname "$0")/../lib.sh"

# Results must be on a host path that L1 sees through its 9p root (not /tmp).
OUT=$BUILD/l1-results/tiny
rm -rf "$OUT" && mkdir -p "$OUT"
t0=$SECONDS
"$REPO/tests/qemu/l1-run.sh" -t 300 "$OUT" "$REPO/tests/qemu/tiny-guest-l1.sh" "$BUILD"
rc=$?
echo "# L1 boot + tiny guest run: $((SECONDS - t0)) s"
check "L1 run completes" test $rc -eq 0
check "tinyvmm ran the guest" grep -q "vmm: 0" "$OUT/status"
check "kvmprof record succeeded in L1" grep -q "record: 0" "$OUT/status"
check "record saw the guest by its -name" grep -q "name tiny" "$OUT/record.out"

MAP=$BUILD/tinyvm/payload.map
"$KVMPROF" report -i "$OUT/tiny.data" --guestkallsyms "$MAP" -s guest,sym -n --guest \
	>"$TMP/report" 2>&1
check "report of guest samples" grep -q "tiny (pid" "$TMP/report"

# share PATTERN: percent of guest samples on rows whose symbol column matches.
share() {
	pat=$1 awk '
		/^ +[0-9.]+%/ { total += $2; if ($0 ~ ENVIRON["pat"]) n += $2 }
		END { if (total) printf "%.1f", 100 * n / total; else print 0 }' "$TMP/report"
}
in_range() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'; }
k=$(share '\[g\] kernel_work$')
a=$(share '\[u\] 0x000000000040000[0-9a-f]$|\[u\] 0x000000000040001[0-9a-f]$')
b=$(share '\[u\] 0x000000000060000[0-9a-f]$|\[u\] 0x000000000060001[0-9a-f]$')
check "kernel_work gets ~70% of guest samples ($k%)" in_range "$k" 60 80
check "user loop A (0x400000-0x40001f) gets ~15% ($a%)" in_range "$a" 10 20
check "user loop B (0x600000-0x60001f) gets ~15% ($b%)" in_range "$b" 10 20
check "guest kernel slide reported as unknown, table unrelocated" \
	grep -q "slide: unknown" "$TMP/report"

# perf kvm's own file from the same guest: kvmprof reads it and agrees.
check "perf kvm --guest record succeeded in L1" grep -q "perf-record: 0" "$OUT/status"
"$KVMPROF" report -i "$OUT/perf-tiny.data" --guestkallsyms "$MAP" -s sym -n >"$TMP/perf-file" 2>&1
check "kvmprof reads perf kvm's guest file" grep -q "\[g\] kernel_work" "$TMP/perf-file"

# The kernel series' guest context: per guest address space and vCPU.
"$KVMPROF" report -i "$OUT/tiny.data" --guestkallsyms "$MAP" --guest -s cr3 -n >"$TMP/cr3" 2>&1
cr3s=$(grep -E '^ +[0-9.]+%' "$TMP/cr3" | awk '{ print $3 }' | sort | tr '\n' ' ')
check "guest samples carry exactly the two CR3s 0x2000 and 0x3000 ($cr3s)" \
	test "$cr3s" = "0x2000 0x3000 "
"$KVMPROF" report -i "$OUT/tiny.data" --guestkallsyms "$MAP" --guest -s vcpu -n >"$TMP/vcpu" 2>&1
check "all guest samples come from vCPU 0" \
	test "$(grep -E '^ +[0-9.]+%' "$TMP/vcpu" | awk '{ print $3 }' | sort -u)" = 0
"$KVMPROF" report -i "$OUT/tiny.data" --guestkallsyms "$MAP" --guest -s cr3,sym -n >"$TMP/cr3sym" 2>&1
check "user program A runs only under CR3 0x2000, B only under 0x3000" \
	bash -c "! grep -qE '0x3000 +\[u\] 0x00000000004|0x2000 +\[u\] 0x00000000006' '$TMP/cr3sym'"
