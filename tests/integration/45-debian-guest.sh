#!/bin/bash
# test-lane: alone (tests/run-tests.sh)
# A real Debian 6.12 kernel as L2 under nested KVM in L1 (KASLR on), busy
# with syscalls and a user spin; perf kvm --guest record and kvmprof record
# sample it side by side. Guest symbols come from the Debian package's
# vmlinuz (its System.map is a placeholder), placed by the slide the file
# records; the top 20 guest-kernel symbols must equal what perf kvm report
# prints with the guest's runtime /proc/kallsyms.
. "$(dirname "$0")/../lib.sh"

debian_612
check "Debian 6.12 vmlinuz available" test -f "$VMLINUZ"
OUT=$BUILD/l1-results/debian
rm -rf "$OUT" && mkdir -p "$OUT" "$BUILD/l2"
"$REPO/tests/qemu/make-l2-initrd.sh" "$BUILD/l2/initrd.gz"
key=$("$REPO/tests/qemu/debian-guest-key.sh" "$BUILD" "$VMLINUZ")
t0=$SECONDS
"$REPO/tests/qemu/l1-run.sh" -t 400 "$OUT" "$REPO/tests/qemu/debian-guest-l1.sh" "$BUILD" \
	"$VMLINUZ" "$BUILD/l2/initrd.gz"
rc=$?
echo "# L1 boot + L2 Debian run: $((SECONDS - t0)) s"
sed 's/^/# /' "$OUT/status" 2>/dev/null
grep -a '^l2:' "$OUT/l2-console.log" 2>/dev/null | sed 's/^/# L2 console: /'
check "L1 run completes" test $rc -eq 0
check "L2 wrote its runtime kallsyms" test "$(wc -l <"$OUT/l2-kallsyms")" -gt 100000
check "L2 powered off by itself" grep -q "^qemu: 0" "$OUT/status"
check "perf kvm --guest record succeeded" grep -q "^perf-record: 0" "$OUT/status"
check "kvmprof record succeeded" grep -q "^record: 0" "$OUT/status"
check "L2 started its work only once the recorders ran" grep -q "^go: 0 " "$OUT/status"
check "kvmprof named the guest from -name" grep -q "name deb12" "$OUT/record.out"
# A complete run: the benchmarks may take its recordings (debian-guest-key.sh).
if [ $rc -eq 0 ] && grep -q "^qemu: 0" "$OUT/status" && grep -q "^record: 0" "$OUT/status" &&
	grep -q "^perf-record: 0" "$OUT/status" && grep -q "^go: 0 " "$OUT/status"; then
	echo "$key" >"$OUT/inputs.key"
fi

# The slide L2 really ran at: its runtime _text minus the package's link-time _text.
l2_slide "$OUT/l2-kallsyms"
slide=$SLIDE rt=$RUNTIME_TEXT
echo "# L2 slide from its own /proc/kallsyms: $slide"

"$KVMPROF" report -i "$OUT/perf-deb.data" --guestkallsyms "$VMLINUZ" --guest -s sym \
	>"$TMP/k-perf.txt" 2>&1
check "perf's file: slide taken from its guest kernel map equals L2's ($slide)" \
	grep -q "slide: $slide (from kernel map (_text))" "$TMP/k-perf.txt"
if diff <(top_g <"$OUT/perf-report.txt") <(top_g <"$TMP/k-perf.txt") >"$TMP/top.diff"; then
	ok "top 20 guest-kernel symbols equal perf kvm report with the runtime kallsyms"
else
	fail "top 20 guest-kernel symbols equal perf kvm report with the runtime kallsyms"
	sed 's/^/#   /' "$TMP/top.diff"
fi
check "perf kvm's top guest symbol is a real syscall path function" \
	grep -qE '\[g\] (do_syscall_64|entry_SYSCALL_64|read_zero|srso_return_thunk|vfs_(read|write))' \
	"$TMP/k-perf.txt"

# kvmprof's own file of the same run.
"$KVMPROF" report -i "$OUT/deb.data" --guestkallsyms "$VMLINUZ" --guest -s guest,sym \
	>"$TMP/k-own.txt" 2>&1
# L1 runs the kernel series: kvmprof's own file carries the guest context,
# whose LSTAR (the runtime entry_SYSCALL_64) gives the slide with no kallsyms.
check "own file: the slide from the guest context's LSTAR equals L2's ($slide)" \
	grep -q "slide: $slide (from guest context (LSTAR))" "$TMP/k-own.txt"
check "record used the guest context" grep -q "guest context: yes" "$OUT/record.out"
# Without guest context (perf's file above has none) the kernel map is the
# fallback, as on kernels without the series.
# The same samples named through L2's own runtime kallsyms must give the
# same top 20: the vmlinuz decoder and the LSTAR slide agree with the guest.
"$KVMPROF" report -i "$OUT/deb.data" --guestkallsyms "$OUT/l2-kallsyms" --guest -s sym \
	>"$TMP/k-own-rt.txt" 2>&1
"$KVMPROF" report -i "$OUT/deb.data" --guestkallsyms "$VMLINUZ" --guest -s sym \
	>"$TMP/k-own-vz.txt" 2>&1
if diff <(top_g <"$TMP/k-own-rt.txt") <(top_g <"$TMP/k-own-vz.txt") >"$TMP/own.diff" &&
	[ "$(top_g <"$TMP/k-own-vz.txt" | wc -l)" -eq 20 ]; then
	ok "own file: top 20 guest symbols from vmlinuz + LSTAR equal those from runtime kallsyms"
else
	fail "own file: top 20 guest symbols from vmlinuz + LSTAR equal those from runtime kallsyms"
	sed 's/^/#   /' "$TMP/own.diff"
fi
# kvmprof record wrote a kernel map for the L2's QEMU pid whose pgoff is the
# L2's runtime entry_SYSCALL_64 (the guest's LSTAR), as perf kvm writes
# them; perf itself reads the file and prints it.
esys=$(awk '$3 == "entry_SYSCALL_64" { print $1; exit }' "$OUT/l2-kallsyms")
qpid=$(sed -n 's/^qemu-pid: //p' "$OUT/status")
echo "# L2 QEMU pid $qpid, runtime entry_SYSCALL_64 0x$esys"
perf report -D -i "$OUT/deb.data" 2>/dev/null | grep 'PERF_RECORD_MMAP.*guest\.kernel' \
	>"$TMP/gmaps.txt"
sed 's/^/#   /' "$TMP/gmaps.txt"
check "own file: perf reads a guest kernel map for pid $qpid at entry_SYSCALL_64" \
	grep -qE "PERF_RECORD_MMAP $qpid/0: \[0x[0-9a-f]+\(0x[0-9a-f]+\) @ 0x$esys\]: x \[guest\.kernel\.kallsyms\.$qpid\]entry_SYSCALL_64\$" \
	"$TMP/gmaps.txt"
check "record summary names the map" \
	grep -q "pid $qpid name deb12.*kernel map: entry_SYSCALL_64 at 0x$esys" "$OUT/record.out"
# lib/kvmdebugfs on the real patched kernel reads the same LSTAR.
sed 's/^/# debugfs: /' "$OUT/guest-regs.out"
check "debugfs guest_lstar through lib/kvmdebugfs equals L2's entry_SYSCALL_64" \
	grep -qE "^vcpu [0-9]+ lstar 0x$esys\$" "$OUT/guest-regs.out"
# perf kvm reads kvmprof's file with the runtime kallsyms and names the same functions.
perf kvm --guest --guestkallsyms="$OUT/l2-kallsyms" report -i "$OUT/deb.data" --stdio \
	--no-children -g none \
	-s sym >"$TMP/p-own.txt" 2>"$TMP/p-own.err"
if diff <(top_g <"$TMP/p-own.txt") <(top_g <"$TMP/k-own-rt.txt") >"$TMP/p-own.diff"; then
	ok "perf kvm report of kvmprof's file: same top 20 guest symbols as kvmprof"
else
	fail "perf kvm report of kvmprof's file: same top 20 guest symbols as kvmprof"
	sed 's/^/#   /' "$TMP/p-own.diff" | head -20
fi
# An override beats the recorded map; a wrong one must not resolve to the right names.
"$KVMPROF" report -i "$OUT/deb.data" --guestkallsyms "$VMLINUZ" --guest -s sym \
	--guest-slide "$slide" >"$TMP/k-override.txt" 2>&1
check "--guest-slide is reported as the source" grep -q "from --guest-slide" "$TMP/k-override.txt"
# Without any slide source (no map, no override), nothing is guessed.
"$KVMPROF" report -i "$OUT/deb.data" --guestkallsyms "$VMLINUZ" --guest -s sym \
	--guest-slide 0 >"$TMP/k-zero.txt" 2>&1
check "a wrong slide leaves KASLR'd addresses unnamed" \
	bash -c "! grep -qE '\[g\] (do_syscall_64|entry_SYSCALL_64)\$' '$TMP/k-zero.txt'"

# Export of this real guest recording: the guest's name roots its folded
# stacks, and go tool pprof reads the same guest functions and totals as
# kvmprof report.
G=(-i "$OUT/deb.data" --guestkallsyms "$VMLINUZ" --guest)
"$KVMPROF" export "${G[@]}" --folded "$TMP/g.folded" --pprof "$TMP/g.pb.gz" 2>"$TMP/g.err"
guest_samples=$(sed -n 's/^# Samples: \([0-9]*\) of event.*/\1/p' "$TMP/k-own-vz.txt")
sum=$(awk '/^deb12;/ { s += $NF } END { print s + 0 }' "$TMP/g.folded")
check "folded: every guest sample under the root frame deb12 ($sum = $guest_samples)" \
	test "$sum" = "$guest_samples"
# Leaf frames of guest kernel samples by count, heaviest first, as report's rows.
folded_g() {
	awk '/^deb12;/ { n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); s[f[k]] += n }
	     END { for (x in s) print s[x], x }' "$TMP/g.folded" |
		sort -k1,1nr -k2 | awk '$2 !~ /^\[/ { print $2 }' | head -5
}
report_g() {
	grep -E '^ +[0-9.]+% +\[g\] ' "$TMP/k-own-vz.txt" | awk '{ print $1 + 0, $NF }' |
		sort -k1,1nr -k2 | awk '{ print $2 }' | head -5
}
if diff <(report_g) <(folded_g) >"$TMP/g-folded.diff"; then
	ok "folded: the top 5 guest functions are report's"
else
	fail "folded: the top 5 guest functions are report's"
	sed 's/^/#   /' "$TMP/g-folded.diff"
fi
if ! command -v go >/dev/null; then
	skip "go tool pprof reads the guest profile" "no go (scripts/deps.sh: golang-go)"
else
	export PPROF_TMPDIR=$TMP HOME=${HOME:-$TMP}
	go tool pprof -top -nodefraction=0 -tagfocus=mode=guest-kernel "$TMP/g.pb.gz" \
		>"$TMP/g.top" 2>"$TMP/g.top.err"
	pprof_g() { sed '1,/flat%/d' "$TMP/g.top" | awk '{ print $6 }' | head -3; }
	if diff <(report_g | head -3) <(pprof_g) >"$TMP/g-pprof.diff"; then
		ok "go tool pprof: guest-kernel samples' top 3 functions are report's"
	else
		fail "go tool pprof: guest-kernel samples' top 3 functions are report's"
		sed 's/^/#   /' "$TMP/g-pprof.diff"
	fi
	total=$(go tool pprof -top -sample_index=samples "$TMP/g.pb.gz" 2>/dev/null |
		sed -n 's/.* of \([0-9]*\) total.*/\1/p')
	check "go tool pprof: $total samples, report's guest total ($guest_samples)" \
		test "$total" = "$guest_samples"
	go tool pprof -raw "$TMP/g.pb.gz" >"$TMP/g.raw" 2>/dev/null
	check "pprof: the guest frames' mapping names the guest's kernel, with its build-id" \
		grep -qE '^[0-9]+: .*\[guest\.kernel\] deb12 [0-9a-f]{40}' "$TMP/g.raw"
	check "pprof: samples carry guest=deb12 and a vcpu label" \
		bash -c "grep -q 'guest:\[deb12\]' '$TMP/g.raw' && grep -q 'vcpu:\[0\]' '$TMP/g.raw'"
fi

# The host's call chains in the same recording (record -g): KVM's path
# from the vCPU ioctl down, read by report -g, export and perf.
"$KVMPROF" export -i "$OUT/deb.data" --host --folded "$TMP/h.folded" 2>"$TMP/h.err"
check "folded: host stacks hold KVM's call path, kvm_vcpu_ioctl above kvm_arch_vcpu_ioctl_run" \
	grep -qE ';kvm_vcpu_ioctl;(.*;)?kvm_arch_vcpu_ioctl_run;' "$TMP/h.folded"
"$KVMPROF" report -i "$OUT/deb.data" --host -g -s sym >"$TMP/h-g.txt" 2>&1
children_of() { awk -v s="$1" '$NF == s && /%.*%/ { print $1 + 0; exit }' "$TMP/h-g.txt"; }
check "report -g: kvm_vcpu_ioctl's Children ($(children_of kvm_vcpu_ioctl)%) >= its callee kvm_arch_vcpu_ioctl_run's ($(children_of kvm_arch_vcpu_ioctl_run)%)" \
	awk -v a="$(children_of kvm_vcpu_ioctl)" -v b="$(children_of kvm_arch_vcpu_ioctl_run)" \
	'BEGIN { exit !(a >= b && b > 0) }'
# perf script prints a sample's chain one address per line, a blank line after.
check "perf script reads host call chains of 4 frames and more from kvmprof's file" \
	bash -c "perf script -i '$OUT/deb.data' -F ip 2>/dev/null |
		awk 'NF == 0 { if (n >= 4) deep++; n = 0; next } { n++ } END { exit !(deep > 0) }'"
