#!/bin/bash
# test-lane: disk-images (tests/run-tests.sh)
# Three guests in one shared appliance whose fstabs name their filesystems
# /dev/sda2 (/) and /dev/sda1 (/boot), as many images do: inside its VM a
# guest sees only its own disk. In the appliance /dev/sda is the first
# guest's disk; the others' names must be mapped onto their own drives
# (guestfs-mount/devmap.c), so that one launch serves all three, each with
# the kernel from its own /boot, and none is judged ambiguous and inspected
# again alone.
. "$(dirname "$0")/../lib.sh"
. "$REPO/tests/gm-daemon.sh"

MNT=$TMP/mnt
CACHE=$TMP/cache
DPID=
cleanup() {
	gm_down
	rm -rf "$TMP"
}
trap cleanup EXIT

need() {
	fail "guestfs-mount shared appliance: $1"
	exit 1
}
gm_prereqs "guestfs-mount shared appliance"

# Three copies of deb-2part whose fstabs name devices; guest3's /boot
# lacks the 6.1 kernel, so a guest mounting another's /boot would show a
# kernel it does not have.
"$REPO/tests/data-builders/devname-copies.sh" 3 "$TMP" --drop-61 3 >"$TMP/prepare.out" 2>&1 ||
	need "prepare the copies: $(tail -2 "$TMP/prepare.out")"

mkdir -p "$MNT"
cat >"$TMP/guests.conf" <<EOF
appliance shared
guest guest1
    disk qcow2 $TMP/guest1.qcow2
guest guest2
    disk qcow2 $TMP/guest2.qcow2
guest guest3
    disk qcow2 $TMP/guest3.qcow2
EOF
t0=$SECONDS
start_daemon "$TMP/guests.conf" "$TMP/daemon.log" ||
	need "daemon mounts $MNT: $(tail -3 "$TMP/daemon.log")"
for g in guest1 guest2 guest3; do ls "$MNT/$g/" >/dev/null 2>&1; done
echo "# three guests ready or failed after $((SECONDS - t0)) s"
grep -E 'launching|inspection found|alone|ambiguous|not on this' "$TMP/daemon.log" | sed 's/^/#   /'

for g in guest1 guest2 guest3; do
	check "$g is ready" grep -qx 'state: ready' "$MNT/$g/info"
done
check "one appliance launch served all three" \
	test "$(grep -c 'launching the libguestfs appliance' "$TMP/daemon.log")" = 1
check "none was judged ambiguous or inspected again alone" \
	bash -c "! grep -qE 'alone|ambiguous|not on this guest' '$TMP/daemon.log'"
letter() { case $1 in guest1) echo a ;; guest2) echo b ;; guest3) echo c ;; esac; }
for g in guest1 guest2 guest3; do
	d=/dev/sd$(letter $g)
	check "$g: / and /boot mounted from its own disk ($d)" \
		bash -c "grep -qx 'mount: ${d}2 on /' '$MNT/$g/info' &&
			 grep -qx 'mount: ${d}1 on /boot' '$MNT/$g/info'"
done
# guest3's /boot lost the 6.1 kernel: only its own disk says so.
check "guest1 lists the 6.1 kernel of its own /boot" grep -qE '^kernels: .*\b6\.1\.' "$MNT/guest1/info"
check "guest3 does not: its own /boot has none" \
	bash -c "grep -q '^kernels: ' '$MNT/guest3/info' && ! grep -qE '^kernels: .*\\b6\\.1\\.' '$MNT/guest3/info'"
for g in guest1 guest2 guest3; do
	check "$g's kallsyms is served" test -s "$MNT/$g/kallsyms"
done
if stop_daemon; then
	ok "the daemon stops cleanly"
else
	fail "the daemon stops cleanly"
fi
