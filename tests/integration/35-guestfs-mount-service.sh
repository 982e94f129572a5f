#!/bin/bash
# test-lane: disk-images (tests/run-tests.sh)
# guestfs-mount under the sandbox of guestfs-mount.service: the unit's
# hardening properties, read from the unit file, given to `systemd-run`;
# the daemon inspects a guest image in the real appliance and serves its
# kallsyms through a mount the host sees. Needs systemd as PID 1 (skipped
# otherwise, saying so), root, the appliance and the test images
# (tests/data-builders/guest-images.sh), like 30-guestfs-mount.sh.
. "$(dirname "$0")/../lib.sh"

UNIT=$REPO/guestfs-mount/guestfs-mount.service
SVC=kvmprof-test-guestfs-mount-$$
MNT=$TMP/mnt
RPID=

cleanup() {
	systemctl stop "$SVC" >/dev/null 2>&1
	[ -n "$RPID" ] && wait "$RPID" 2>/dev/null
	if mountpoint -q "$MNT" 2>/dev/null; then
		umount -l "$MNT" 2>/dev/null
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT

if [ ! -d /run/systemd/system ]; then
	skip "guestfs-mount under the unit's sandbox" \
		"systemd is not PID 1 on this machine ($(ps -o comm= -p 1)): systemd-run cannot start a service"
	exit 0
fi
need() {
	fail "guestfs-mount under systemd: $1"
	exit 1
}
[ "$(id -u)" = 0 ] || need "not root: run as root"
[ -c /dev/fuse ] || need "no /dev/fuse: modprobe fuse"
[ -x "$GUESTFS_MOUNT" ] || need "no $GUESTFS_MOUNT: run make"
. "$REPO/scripts/guestfs-env.sh" || need "no libguestfs appliance: run scripts/appliance.sh"
IMG=$("$REPO/tests/data-builders/guest-images.sh" 2>"$TMP/images.err") ||
	need "test disk images (tests/data-builders/guest-images.sh): $(tail -1 "$TMP/images.err")"
V61=$(awk '$1 == "v61" { print $2; exit }' "$IMG/inputs")

# The sandbox as the unit states it. The cache and its tmp folder are the
# test's own (CacheDirectory= only names folders under /var/cache).
props=()
while IFS= read -r line; do
	props+=(-p "$line")
done < <(sed -n '/^\[Service\]/,/^\[/p' "$UNIT" | grep -E '^(UMask|NoNewPrivileges|CapabilityBoundingSet|AmbientCapabilities|SystemCallArchitectures|SystemCallFilter|SystemCallErrorNumber|RestrictAddressFamilies|IPAddressDeny|RestrictNamespaces|LockPersonality|RestrictRealtime|RestrictSUIDSGID|DevicePolicy|DeviceAllow|MemoryMax|TasksMax)=')
check "the unit states its sandbox (20 properties read)" test "${#props[@]}" -eq 40

mkdir -p "$MNT" "$TMP/cache" "$TMP/tmp"
chmod 0700 "$TMP/cache" "$TMP/tmp"
cat >"$TMP/guests.conf" <<EOF
cache $TMP/cache
mountpoint $MNT
guest deb1p
    disk raw $IMG/deb-1part.raw
EOF
chmod 0600 "$TMP/guests.conf"

env_props=(-p "Environment=TMPDIR=$TMP/tmp" -p "Environment=LIBGUESTFS_CACHEDIR=$TMP/tmp"
	-p "Environment=LIBGUESTFS_BACKEND=$LIBGUESTFS_BACKEND"
	-p "Environment=LIBGUESTFS_PATH=$LIBGUESTFS_PATH")
[ -n "${LIBGUESTFS_BACKEND_SETTINGS-}" ] &&
	env_props+=(-p "Environment=LIBGUESTFS_BACKEND_SETTINGS=$LIBGUESTFS_BACKEND_SETTINGS")

systemd-run --quiet --wait --unit="$SVC" "${props[@]}" "${env_props[@]}" \
	"$GUESTFS_MOUNT" -f -c "$TMP/guests.conf" >"$TMP/run.out" 2>&1 &
RPID=$!

for _ in $(seq 300); do
	mountpoint -q "$MNT" && break
	sleep 1
done
check "the daemon's FUSE mount is visible on the host" mountpoint -q "$MNT"

MAINPID=$(systemctl show -p MainPID --value "$SVC")
status_is() { grep -qE "^$1:[[:space:]]+$2\$" "/proc/$MAINPID/status"; }
# CAP_DAC_READ_SEARCH (2), CAP_SYS_PTRACE (19), CAP_SYS_ADMIN (21).
check "the daemon's bounding set is the unit's three capabilities" status_is CapBnd 0000000000280004
check "the daemon runs under a seccomp filter" status_is Seccomp 2
check "the daemon cannot gain privileges" status_is NoNewPrivs 1

kallsyms() { timeout 600 cat "$MNT/deb1p/kallsyms" >"$TMP/kallsyms" && grep -qw entry_SYSCALL_64 "$TMP/kallsyms"; }
check "deb1p/kallsyms read through the mount under the sandbox" kallsyms
check "deb1p: info names kernel $V61, inspected in the appliance under the sandbox" \
	grep -q "$V61" "$MNT/deb1p/info"

systemctl stop "$SVC"
wait "$RPID"
rc=$?
RPID=
check "SIGTERM: the service ended cleanly (systemd-run status $rc)" test "$rc" -eq 0
check "SIGTERM: the mount is gone" bash -c "! mountpoint -q '$MNT'"
