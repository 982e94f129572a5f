# shellcheck shell=bash
# Source this file (". scripts/guestfs-env.sh") before running anything that
# uses libguestfs. It points libguestfs at the fixed appliance that
# scripts/appliance.sh keeps in $KVMPROF_CACHE, so supermin is never run, and
# picks a backend that works here. Returns 1 when no appliance is built yet.

# The direct backend runs QEMU itself; libvirt is not needed.
export LIBGUESTFS_BACKEND=direct

# Software emulation (TCG) or KVM? KVMPROF_FORCE_TCG=1 or 0 decides. Unset,
# TCG is used unless /dev/kvm is usable and this is bare metal: the machines
# this project runs on are VMs whose /dev/kvm exists and opens, yet QEMU
# crashes on it with a stock kernel, and there is no cheap probe short of
# booting the appliance. TCG is only slower (about 10-15 s per launch), never
# wrong, so any VM (the "hypervisor" CPU flag) takes the safe side.
if [ -z "${KVMPROF_FORCE_TCG-}" ]; then
	if [ -c /dev/kvm ] && [ -r /dev/kvm ] && [ -w /dev/kvm ] &&
		! grep -qw hypervisor /proc/cpuinfo 2>/dev/null; then
		KVMPROF_FORCE_TCG=0
	else
		KVMPROF_FORCE_TCG=1
	fi
fi
if [ "$KVMPROF_FORCE_TCG" = 1 ]; then
	export LIBGUESTFS_BACKEND_SETTINGS=force_tcg
else
	unset LIBGUESTFS_BACKEND_SETTINGS
fi

if [ -f "${KVMPROF_CACHE:-/var/cache/kvmprof}/appliance/current/README.fixed" ]; then
	# Resolved, so a later rebuild does not swap it under a running user.
	LIBGUESTFS_PATH=$(readlink -f "${KVMPROF_CACHE:-/var/cache/kvmprof}/appliance/current")
	export LIBGUESTFS_PATH
else
	echo "guestfs-env: no libguestfs appliance yet; run scripts/appliance.sh" >&2
	return 1 2>/dev/null || exit 1
fi
