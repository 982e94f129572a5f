#!/bin/bash
# guestfs-mount.service as shipped: systemd accepts every line of it, and
# the sandbox SECURITY.md describes is in it. Needs only systemd's
# systemd-analyze (scripts/deps.sh), not a running systemd.
# tests/integration/35-guestfs-mount-service.sh runs the daemon under it.
. "$(dirname "$0")/../lib.sh"

UNIT=$REPO/guestfs-mount/guestfs-mount.service

command -v systemd-analyze >/dev/null || {
	fail "systemd-analyze available (run scripts/deps.sh: systemd)"
	exit 1
}
[ -x "$GUESTFS_MOUNT" ] || {
	fail "$GUESTFS_MOUNT built (run make)"
	exit 1
}

# verify checks that ExecStart's binary exists: point it at the built one.
mkdir -p "$TMP/units"
sed "s|/usr/sbin/guestfs-mount|$GUESTFS_MOUNT|g" "$UNIT" >"$TMP/units/guestfs-mount.service"
# systemd-analyze exits 0 on unknown keys and bad values, which it only
# warns about and ignores: any output is a failure. --man=no: the pages that
# Documentation= names are checked by 24-manpages, not looked for here on a
# machine where they need not be installed.
verify_clean() {
	local out
	out=$(systemd-analyze verify --man=no "$1" 2>&1) || {
		echo "$out"
		return 1
	}
	[ -z "$out" ] || {
		echo "$out"
		return 1
	}
}
check "systemd-analyze verify: no error or warning" verify_clean "$TMP/units/guestfs-mount.service"

# The check above must catch a misspelt key and a bad value.
sed 's/^LockPersonality=yes/LockPersonalty=yes/; s/^DeviceAllow=block-\* r$/DeviceAllow=block-* q/' \
	"$TMP/units/guestfs-mount.service" >"$TMP/units/bad.service"
caught() { ! verify_clean "$1" >/dev/null; }
check "systemd-analyze verify: a misspelt key and a bad value are caught" \
	caught "$TMP/units/bad.service"

# make install's unit: the shipped one, with the binary under the prefix.
gen_unit() {
	make -s -C "$REPO" BUILD="$BUILD" PREFIX=/opt/kp "$BUILD/guestfs-mount.service" &&
		diff <(sed 's|/usr/sbin/guestfs-mount|/opt/kp/sbin/guestfs-mount|g' "$UNIT") \
			"$BUILD/guestfs-mount.service" &&
		grep -qx 'ExecStart=/opt/kp/sbin/guestfs-mount -f -c /etc/kvmprof/guests.conf' \
			"$BUILD/guestfs-mount.service"
}
check "make install's unit runs PREFIX/sbin/guestfs-mount" gen_unit
make -s -C "$REPO" BUILD="$BUILD" "$BUILD/guestfs-mount.service" >/dev/null 2>&1

# Every hardening line, exactly: removing or weakening one fails here.
has() { grep -qxF -- "$1" "$UNIT"; }
for line in \
	'NoNewPrivileges=yes' \
	'UMask=0077' \
	'CacheDirectoryMode=0700' \
	'CacheDirectory=kvmprof/guestfs-mount kvmprof/guestfs-mount/tmp' \
	'Environment=TMPDIR=/var/cache/kvmprof/guestfs-mount/tmp' \
	'Environment=LIBGUESTFS_CACHEDIR=/var/cache/kvmprof/guestfs-mount/tmp' \
	'CapabilityBoundingSet=CAP_SYS_ADMIN CAP_DAC_READ_SEARCH CAP_SYS_PTRACE' \
	'AmbientCapabilities=' \
	'SystemCallArchitectures=native' \
	'SystemCallFilter=@system-service' \
	'SystemCallFilter=mount umount2' \
	'SystemCallErrorNumber=EPERM' \
	'RestrictAddressFamilies=AF_UNIX' \
	'IPAddressDeny=any' \
	'RestrictNamespaces=yes' \
	'LockPersonality=yes' \
	'RestrictRealtime=yes' \
	'RestrictSUIDSGID=yes' \
	'DevicePolicy=closed' \
	'DeviceAllow=/dev/fuse rw' \
	'DeviceAllow=/dev/kvm rw' \
	'DeviceAllow=block-* r' \
	'MemoryMax=4G' \
	'TasksMax=256'; do
	check "unit has $line" has "$line"
done

# Nothing else may be allowed on top: one CapabilityBoundingSet, one
# RestrictAddressFamilies, no further SystemCallFilter or DeviceAllow lines.
only() { [ "$(grep -c "^$1=" "$UNIT")" -eq "$2" ]; }
check "unit: one CapabilityBoundingSet line" only CapabilityBoundingSet 1
check "unit: one RestrictAddressFamilies line" only RestrictAddressFamilies 1
check "unit: two SystemCallFilter lines" only SystemCallFilter 2
check "unit: three DeviceAllow lines" only DeviceAllow 3
check "unit: no IPAddressAllow" only IPAddressAllow 0

# A private mount namespace would hide the FUSE mount from the host.
no_mount_ns() {
	! grep -E '^(PrivateTmp|PrivateDevices|PrivateMounts|ProtectSystem|ProtectHome|ProtectKernelTunables|ProtectKernelModules|ProtectKernelLogs|ProtectControlGroups|ProtectProc|ProcSubset|ReadOnlyPaths|ReadWritePaths|InaccessiblePaths|TemporaryFileSystem|BindPaths|BindReadOnlyPaths|MountFlags|RootDirectory|RootImage|PrivateUsers|ProtectClock)=' "$UNIT"
}
check "unit: no option that makes a private mount namespace" no_mount_ns
