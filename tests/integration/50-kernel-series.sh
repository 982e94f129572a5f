#!/bin/bash
# test-lane: alone (tests/run-tests.sh)
# The guest-context kernel series (kernel/series, kernel/patches/):
#
#  a) every patch applies in order with `git apply --check` to Debian's
#     pristine linux-source-6.12 and is clean for checkpatch --strict;
#  b) the patched kernel, booted as L1 under QEMU software emulation, runs the
#     tiny guest under nested KVM while guestctx-check samples cpu-clock
#     system-wide with PERF_SAMPLE_GUEST_CTX: guest samples must name
#     tinyvmm's pid, vCPU 0, exactly the guest's two CR3s (0x2000 and 0x3000)
#     and its LSTAR (entry_syscall in payload.map); host samples must carry
#     zeros, as must guest samples of an exclude_guest event; the vCPU's
#     debugfs guest_lstar (mode 0400) must read the same LSTAR while the
#     guest runs, and there is no guest_cr3 any more; at the default
#     perf_event_paranoid (2) only root may use the bit (EACCES otherwise);
#  c) the series' KVM selftest (x86_64/guest_ctx_test), built from the
#     patched tree, passes in the same L1.
#
# Slow inputs are reused: the pristine unpack ($BUILD/linux-6.12-pristine),
# the kernel (kernel/build.sh's cache), the selftest objects ($BUILD/kselftest).
. "$(dirname "$0")/../lib.sh"

TARBALL=${KVMPROF_KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
PRISTINE=$BUILD/linux-6.12-pristine
KSRC=$REPO/build/linux-6.12 # kernel/build.sh's patched source tree
KSELF=$BUILD/kselftest
T0=$SECONDS
lap() { echo "# $1: $((SECONDS - ${2:-$T0})) s"; }

mapfile -t PATCHES < <(sed -e 's/#.*//' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' \
	-e '/^$/d' "$REPO/kernel/series")
check "kernel/series lists patches" test ${#PATCHES[@]} -gt 0
COVER=$REPO/kernel/patches/0000-cover-letter.patch
listed=$(printf '%s\n' "${PATCHES[@]}" | sort)
present=$(find "$REPO/kernel/patches" -maxdepth 1 -name '*.patch' \
	! -name "${COVER##*/}" -printf '%f\n' | sort)
check "kernel/series lists every patch in kernel/patches/, and only those" \
	test "$listed" = "$present"
# The cover letter names every patch of the series by its subject.
subjects=$(for p in "${PATCHES[@]}"; do
	sed -n 's/^Subject: \[PATCH [0-9]*\/[0-9]*\] //p' "$REPO/kernel/patches/$p"
done)
covered=$(sed -n '/^Subject:/,/^-- *$/p' "$COVER" 2>/dev/null | tr '\n' ' ')
check "kernel/patches has a cover letter, [PATCH 0/${#PATCHES[@]}]" \
	grep -qE "^Subject: \[PATCH (v[0-9]+ )?0/${#PATCHES[@]}\]" "$COVER"
while read -r subj; do
	check "the cover letter lists: ${subj:0:60}" grep -qF "${subj:0:40}" <<<"$covered"
done <<<"$subjects"

# --- a) apply and checkpatch ---------------------------------------------------

# A pristine unpack, made once per tarball and never written to afterwards.
stamp="$(stat -c '%s %Y' "$TARBALL" 2>/dev/null)"
if [[ ! -f $PRISTINE/.stamp || $(cat "$PRISTINE/.stamp") != "$stamp" ]]; then
	rm -rf "$PRISTINE" "$PRISTINE.new"
	mkdir -p "$PRISTINE.new"
	tar -xJf "$TARBALL" -C "$PRISTINE.new" --strip-components=1 &&
		echo "$stamp" >"$PRISTINE.new/.stamp" && mv -T "$PRISTINE.new" "$PRISTINE"
fi
check "pristine linux-source-6.12 unpacked" test -f "$PRISTINE/.stamp"
lap "pristine tree ready"

# git apply needs only the files the series touches: copy those.
TREE=$TMP/tree
mkdir -p "$TREE"
for p in "${PATCHES[@]}"; do
	sed -n 's#^--- a/\([^[:space:]]*\).*#\1#p' "$REPO/kernel/patches/$p"
done | sort -u | while read -r f; do
	mkdir -p "$TREE/$(dirname "$f")"
	cp -p "$PRISTINE/$f" "$TREE/$f"
done
for p in "${PATCHES[@]}"; do
	check "$p: git apply --check" git -C "$TREE" apply --check "$REPO/kernel/patches/$p"
	git -C "$TREE" apply "$REPO/kernel/patches/$p" 2>/dev/null
	check "$p: has a Signed-off-by" grep -q '^Signed-off-by: ' "$REPO/kernel/patches/$p"
	# checkpatch resolves its data files from the tree it runs in.  Its
	# FILE_PATH_CHANGES warning ("does MAINTAINERS need updating?") comes for
	# every patch that adds a file; it is checked below instead: each new file
	# must fall under an existing MAINTAINERS "F:" folder.
	check "$p: checkpatch --strict" \
		bash -c 'cd "$1" && scripts/checkpatch.pl --strict --no-summary --quiet \
			--ignore FILE_PATH_CHANGES "$2"' _ "$PRISTINE" "$REPO/kernel/patches/$p"
	new_files=$(awk '/^diff --git / { f = $4; sub("^b/", "", f) }
		/^new file mode/ { print f }' "$REPO/kernel/patches/$p")
	for f in $new_files; do
		check "$p: new file $f is covered by MAINTAINERS" \
			awk -v f="$f" '/^F:\t.*\/$/ && index(f, $2) == 1 { found = 1 }
				END { exit !found }' "$PRISTINE/MAINTAINERS"
	done
done
lap "apply + checkpatch"

# --- Programs for L1 ---------------------------------------------------------------

t=$SECONDS
KDIR=$("$REPO/kernel/build.sh" --print-dir)
check "patched kernel builds" test -s "$KDIR/bzImage"
lap "kernel (cached unless the series changed)" "$t"

for f in tinyvmm payload.elf payload.map; do
	[[ -s $BUILD/tinyvm/$f ]] || make -C "$REPO" --no-print-directory BUILD="$BUILD" "$BUILD/tinyvm/$f" >/dev/null
done
check "tiny guest is built" test -x "$BUILD/tinyvm/tinyvmm"
mkdir -p "$BUILD/guestctx"
check "guestctx-check builds" \
	cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -O2 -g -o "$BUILD/guestctx/guestctx-check" \
	"$REPO/tests/qemu/guestctx/guestctx-check.c"

# The selftest, from kernel/build.sh's patched tree: uapi headers and objects go
# to $KSELF, nothing is written to the tree (build.sh would take it for edits).
# When the kernel came from the cache there is no such tree: patch a copy of
# the pristine one, kept (keyed by the series) for later runs.
t=$SECONDS
if [[ ! -d $KSRC/tools/testing/selftests/kvm ]]; then
	KSRC=$BUILD/linux-6.12-selftest
	key=$(cat "$REPO/kernel/series" "$REPO"/kernel/patches/*.patch | sha256sum | cut -c1-16)
	if [[ ! -f $KSRC/.series-$key ]]; then
		rm -rf "$KSRC" && cp -a "$PRISTINE" "$KSRC"
		for p in "${PATCHES[@]}"; do
			patch -s -p1 -d "$KSRC" <"$REPO/kernel/patches/$p" || break
		done && touch "$KSRC/.series-$key"
	fi
fi
SELFTEST=$KSELF/kvm/x86_64/guest_ctx_test
mkdir -p "$KSELF/hdr" "$KSELF/kvm"
if make -C "$KSRC" O="$KSELF/hdr" -j"$(nproc)" headers >"$KSELF/build.log" 2>&1 &&
	make -C "$KSRC/tools/testing/selftests/kvm" -j"$(nproc)" OUTPUT="$KSELF/kvm" \
		LINUX_HDR_PATH="$KSELF/hdr/usr/include/" "$SELFTEST" >>"$KSELF/build.log" 2>&1; then
	ok "KVM selftest x86_64/guest_ctx_test builds"
else
	fail "KVM selftest x86_64/guest_ctx_test builds"
	tail -20 "$KSELF/build.log" | sed 's/^/#   /'
	SELFTEST=
fi
lap "selftest build" "$t"

# --- b, c) in L1 ----------------------------------------------------------------------

OUT=$BUILD/l1-results/guestctx
rm -rf "$OUT" && mkdir -p "$OUT"
t=$SECONDS
"$REPO/tests/qemu/l1-run.sh" -k "$KDIR" -t 240 "$OUT" \
	"$REPO/tests/qemu/guestctx-selftest-l1.sh" "$BUILD" ${SELFTEST:+"$SELFTEST"}
rc=$?
lap "L1 boot + tiny guest + selftest" "$t"
check "L1 run completes" test $rc -eq 0
check "tinyvmm ran the guest" grep -qx "vmm: 0" "$OUT/status"
check "guestctx-check ran" grep -qx "check: 0" "$OUT/status"

# val FILE KEY: the value of "KEY: value" in FILE.
val() { sed -n "s/^$2: //p" "$1" 2>/dev/null | head -n1; }
C=$OUT/check.out
vmm=$(val "$OUT/status" vmm-pid)
lstar=$(awk '$3 == "entry_syscall" { print "0x" $1 }' "$BUILD/tinyvm/payload.map")
lstar=$(printf '%#x' "$((lstar))")
echo "# tinyvmm pid $vmm, entry_syscall $lstar; checker:"
sed 's/^/#   /' "$C" 2>/dev/null

check "the next sample_type bit (1 << 26) is still rejected" test "$(val "$C" probe-next-bit)" = EINVAL
check "perf_event_open accepts PERF_SAMPLE_GUEST_CTX" test "$(val "$C" open)" = ok
check "every sample is 48 bytes (IP, TID, then the 24-byte context)" \
	test "$(val "$C" bad-size)" = 0 -a "$(val "$C" samples)" -gt 0
check "guest samples carry reserved == 0" test "$(val "$C" guest-reserved-nonzero)" = 0
check "guest samples were taken ($(val "$C" guest-samples))" test "$(val "$C" guest-samples)" -ge 20
check "host samples were taken ($(val "$C" host-samples))" test "$(val "$C" host-samples)" -ge 20
check "host samples carry an all-zero context" test "$(val "$C" host-nonzero)" = 0
X=$OUT/check-xg.out
echo "# with exclude_guest:" && sed 's/^/#   /' "$X" 2>/dev/null | grep -v '^#   ctx:'
check "with exclude_guest, cpu-clock still takes guest samples ($(val "$X" guest-samples))" \
	test "$(val "$X" guest-samples)" -ge 5
check "with exclude_guest, guest samples carry an all-zero context" \
	test "$(val "$X" guest-nonzero)" = 0

# Every distinct guest context, as "pid vcpu cr3 lstar mode ip2m".
grep '^ctx: ' "$C" | sed -E 's/^ctx: pid=([0-9]+) vcpu=([0-9]+) cr3=(0x[0-9a-f]+|0) lstar=(0x[0-9a-f]+|0) mode=([a-z]+) ip2m=(0x[0-9a-f]+|0) .*/\1 \2 \3 \4 \5 \6/' \
	>"$TMP/ctx"
check "guest contexts were reported" test -s "$TMP/ctx"
check "guest samples carry tinyvmm's pid ($vmm)" awk -v p="$vmm" '$1 != p { exit 1 }' "$TMP/ctx"
check "guest samples carry vCPU id 0" awk '$2 != 0 { exit 1 }' "$TMP/ctx"
check "guest samples carry lstar == entry_syscall ($lstar)" awk -v l="$lstar" '$4 != l { exit 1 }' "$TMP/ctx"
cr3s=$(awk '{ print $3 }' "$TMP/ctx" | sort -u | paste -sd' ')
check "guest samples carry exactly the CR3s 0x2000 and 0x3000 (got: $cr3s)" test "$cr3s" = "0x2000 0x3000"
# CR3 must be the one of the exit being handled, not one exit stale: user
# program A (0x400000) only runs under CR3 A, program B (0x600000) under B.
check "guest user samples: CR3 0x2000 only in program A, 0x3000 only in B" \
	awk '$5 == "user" && !(($3 == "0x2000" && $6 == "0x400000") ||
		($3 == "0x3000" && $6 == "0x600000")) { exit 1 }' "$TMP/ctx"

D=$OUT/debugfs.out
echo "# debugfs:" && sed 's/^/#   /' "$D" 2>/dev/null
check "debugfs vcpu0/guest_lstar has mode 0400" test "$(val "$D" guest_lstar-mode)" = 400
check "debugfs vcpu0/guest_cr3 is gone (it was stale by design)" test "$(val "$D" guest_cr3)" = absent
check "debugfs guest_lstar reads entry_syscall while the guest runs" \
	test "$(val "$D" guest_lstar)" = "$lstar"
check "debugfs guest_lstar is unreadable for an unprivileged user" \
	test "$(val "$D" guest_lstar-nobody)" = denied

P=$OUT/perm.out
echo "# who may open events with the bit:" && sed 's/^/#   /' "$P" 2>/dev/null
check "perf_event_paranoid in L1 is the kernel's default (2)" test "$(val "$P" paranoid)" = 2
for t in cpu-wide self pid1; do
	check "root may open $t events with the bit" test "$(val "$P" "perm-root: $t bit=1")" = ok
done
check "nobody may not open cpu-wide events with the bit (guest contexts of others' VMs)" \
	test "$(val "$P" "perm-nobody: cpu-wide bit=1")" = EACCES
check "nobody may not open events on another user's process with the bit" \
	test "$(val "$P" "perm-nobody: pid1 bit=1")" = EACCES
# The gate: cycles:u on its own process is fine for nobody, but not with the
# bit, which discloses guest kernel layout (perf_allow_kernel, like PHYS_ADDR).
check "nobody may sample its own user space without the bit" \
	test "$(val "$P" "perm-nobody: self bit=0")" = ok
check "nobody may not sample even its own user space with the bit (EACCES)" \
	test "$(val "$P" "perm-nobody: self bit=1")" = EACCES

if [[ -n $SELFTEST ]]; then
	check "KVM selftest guest_ctx_test passes in L1" grep -qx "selftest: 0" "$OUT/status"
	sed 's/^/#   selftest: /' "$OUT/selftest.out" 2>/dev/null | head -20
	S=$OUT/selftest.out
	check "selftest: cpu-clock samples were checked under both CR3s" \
		grep -qE "cpu-clock: [0-9]+ phases, [0-9]+ guest samples \([1-9][0-9]* under root 0, [1-9][0-9]* under root 1" "$S"
	check "selftest: guest_lstar followed the running vCPU" \
		grep -qE "guest_lstar changed [1-9][0-9]* times while the vCPU ran" "$S"
	check "selftest: the PMI/NMI pass ran, or was skipped with its reason" \
		grep -qE "cycles \(PMI\): [0-9]+ phases|skipping the PMI/NMI pass: " "$S"
fi
lap "total"
