#!/bin/bash
# test-lane: alone (tests/run-tests.sh)
# The same real Debian 6.12 L2 as 45-debian-guest, but with Debian's own
# linux-image-6.12 as L1: a host kernel without the kvmprof series. The
# recorder must see that there is no guest context (no PERF_SAMPLE_GUEST_CTX,
# no debugfs LSTAR) and the report must still name guest kernel functions,
# with the slide from the fallback source: the guest kernel map that record
# synthesizes from the guest's runtime kallsyms, as perf kvm record does.
. "$(dirname "$0")/../lib.sh"

debian_612
check "Debian 6.12 package available (L1 and L2 kernel)" test -f "$VMLINUZ"
OUT=$BUILD/l1-results/unpatched
rm -rf "$OUT" && mkdir -p "$OUT" "$BUILD/l2"
"$REPO/tests/qemu/make-l2-initrd.sh" "$BUILD/l2/initrd.gz"
t0=$SECONDS
"$REPO/tests/qemu/l1-run.sh" -k "$DEBIAN_612" -t 400 "$OUT" "$REPO/tests/qemu/unpatched-l1.sh" \
	"$BUILD" "$VMLINUZ" "$BUILD/l2/initrd.gz"
rc=$?
echo "# L1 (Debian kernel) boot + L2 Debian run: $((SECONDS - t0)) s"
sed 's/^/# /' "$OUT/status" 2>/dev/null
grep -a '^l2:' "$OUT/l2-console.log" 2>/dev/null | sed 's/^/# L2 console: /'
check "L1 run completes" test $rc -eq 0
check "L1 runs Debian's kernel, not the project's" \
	grep -qx "l1-kernel: ${VMLINUZ##*/vmlinuz-}" "$OUT/status"
check "L1 has KVM (modules loaded from the package)" grep -qx "kvm: yes" "$OUT/status"
check "L1 has no guest_lstar debugfs files" grep -qx "debugfs-lstar: 0" "$OUT/status"
check "L2 powered off by itself" grep -q "^qemu: 0" "$OUT/status"
check "kvmprof record succeeded" grep -q "^record: 0" "$OUT/status"
check "L2 started its work only once the recorders ran" grep -q "^go: 0 " "$OUT/status"
check "record saw that the kernel has KVM but no guest context (not: no KVM, no permission)" \
	grep -q "guest context: not supported by this kernel: it has KVM but not PERF_SAMPLE_GUEST_CTX" \
	"$OUT/record.out"
check "record still took guest samples" \
	grep -qE "wrote deb.data: [0-9]+ samples \([1-9][0-9]* guest\)" "$OUT/record.out"

l2_slide "$OUT/l2-kallsyms"
slide=$SLIDE rt=$RUNTIME_TEXT
echo "# L2 slide from its own /proc/kallsyms: $slide"


"$KVMPROF" report -i "$OUT/deb.data" --guestkallsyms "$VMLINUZ" --guest -s sym \
	>"$TMP/own-vz.txt" 2>&1
check "own file: slide from the synthesized guest kernel map equals L2's ($slide)" \
	grep -q "slide: $slide (from kernel map (_text))" "$TMP/own-vz.txt"
"$KVMPROF" report -i "$OUT/deb.data" --guestkallsyms "$OUT/l2-kallsyms" --guest -s sym \
	>"$TMP/own-rt.txt" 2>&1
same_top20 "own file: top 20 guest symbols from vmlinuz equal those from runtime kallsyms" \
	"$TMP/own-rt.txt" "$TMP/own-vz.txt"
check "own file: the top guest symbols are real kernel functions" \
	grep -qE '\[g\] (do_syscall_64|entry_SYSCALL_64|read_zero|srso_return_thunk|native_write_msr|vfs_(read|write))' \
	"$TMP/own-vz.txt"

"$KVMPROF" report -i "$OUT/perf-deb.data" --guestkallsyms "$VMLINUZ" --guest -s sym \
	>"$TMP/perf-vz.txt" 2>&1
check "perf kvm's file from the unpatched host: slide from its kernel map ($slide)" \
	grep -q "slide: $slide (from kernel map (_text))" "$TMP/perf-vz.txt"
same_top20 "perf kvm's file: top 20 guest symbols equal perf kvm report with runtime kallsyms" \
	"$OUT/perf-report.txt" "$TMP/perf-vz.txt"
