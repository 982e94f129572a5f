# Shell helpers for integration tests: TAP-style lines the runner counts.
# Sourced by tests/integration/*.sh; BUILD and REPO come from the runner.
set -uo pipefail

REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BUILD=$(cd "$REPO" && cd "${BUILD:-build}" && pwd)
KVMPROF=$BUILD/kvmprof
GUESTFS_MOUNT=$BUILD/guestfs-mount
export KVMPROF_CACHE=${KVMPROF_CACHE:-/var/cache/kvmprof}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/kvmprof-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

ok() { echo "ok - $*"; }
fail() { echo "not ok - $*"; }
skip() { echo "ok - $1 # SKIP ${2:-}"; }

# check NAME CMD...: passes when CMD exits 0; shows its output when it fails.
check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		ok "$name"
	else
		fail "$name"
		printf '%s\n' "$out" | tail -20 | sed 's/^/#   /'
	fi
}

# build_spinner OUT: a program that spins for its argument's seconds (1 by
# default) in kvmprof_spin_here(), with symbols, for tests to sample. The
# seconds are counted on the monotonic clock: time()'s whole seconds made
# "1" anything from a few milliseconds to a second.
build_spinner() {
	cat >"$1.c" <<'C'
#include <stdlib.h>
#include <time.h>
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
__attribute__((noinline)) void kvmprof_spin_here(double secs)
{
	volatile unsigned long x = 0;
	double end = now() + secs;

	while (now() < end)
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i;
}
int main(int argc, char **argv)
{
	kvmprof_spin_here(argc > 1 ? atof(argv[1]) : 1);
	return 0;
}
C
	cc -O1 -g -o "$1" "$1.c"
}

# expect_fail NAME PATTERN CMD...: passes when CMD fails and its stderr matches PATTERN.
expect_fail() {
	local name=$1 pattern=$2 out rc
	shift 2
	out=$("$@" 2>&1 >/dev/null)
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -lt 128 ] && grep -qE -- "$pattern" <<<"$out"; then
		ok "$name"
	else
		fail "$name (status $rc, wanted an error matching '$pattern')"
		printf '%s\n' "$out" | tail -10 | sed 's/^/#   /'
	fi
}

# make_test_users TAG: real groups GA=${TAG}ga, GB=${TAG}gb and users
# UA=${TAG}a (in GA), UB=${TAG}b (in GB), UC=${TAG}c (in neither) and
# UD=${TAG}d (in both), all with primary group nogroup and no login. Appends
# them to the caller's made_users and made_groups arrays, which its cleanup
# must remove (userdel, groupdel). Returns 1 when any could not be made.
make_test_users() {
	local tag=$1 g
	GA=${tag}ga GB=${tag}gb
	UA=${tag}a UB=${tag}b UC=${tag}c UD=${tag}d
	for g in "$GA" "$GB"; do
		groupadd "$g" && made_groups+=("$g")
	done
	useradd -M -N -g nogroup -s /usr/sbin/nologin -G "$GA" "$UA" && made_users+=("$UA")
	useradd -M -N -g nogroup -s /usr/sbin/nologin -G "$GB" "$UB" && made_users+=("$UB")
	useradd -M -N -g nogroup -s /usr/sbin/nologin "$UC" && made_users+=("$UC")
	useradd -M -N -g nogroup -s /usr/sbin/nologin -G "$GA,$GB" "$UD" && made_users+=("$UD")
	[ ${#made_users[@]} -ge 4 ] && [ ${#made_groups[@]} -ge 2 ]
}

# --- the Debian 6.12 guest of the L1 tests ------------------------------------

# debian_612: DEBIAN_612 (the unpacked linux-image-6.12 package) and VMLINUZ.
debian_612() {
	DEBIAN_612=$("$REPO/scripts/fetch-debian-kernels.sh" --print | grep 'linux-image-6\.12' | head -1)
	VMLINUZ=$(ls "$DEBIAN_612"/boot/vmlinuz-* 2>/dev/null | head -1)
}

# l2_slide KALLSYMS: SLIDE, the slide the guest ran at (its runtime _text in
# KALLSYMS minus VMLINUZ's link-time _text), and RUNTIME_TEXT (hex, no 0x).
l2_slide() {
	local lt
	RUNTIME_TEXT=$(awk '$3 == "_text" { print $1; exit }' "$1")
	lt=$("$KVMPROF" symbols "$VMLINUZ" | awk '$3 == "_text" { print $1; exit }')
	SLIDE=$(printf '0x%x' $((0x$RUNTIME_TEXT - 0x$lt)))
}

# The first 20 guest-kernel symbols ([g] rows) of a report on stdin.
top_g() { grep -E '\[g\] ' | head -20 | awk '{ print $NF }'; }

# same_top20 NAME REFERENCE REPORT: both reports have the same top 20 guest
# symbols, and REPORT has 20.
same_top20() {
	if diff <(top_g <"$2") <(top_g <"$3") >"$TMP/top.diff" && [ "$(top_g <"$3" | wc -l)" -eq 20 ]; then
		ok "$1"
	else
		fail "$1"
		sed 's/^/#   /' "$TMP/top.diff"
	fi
}
