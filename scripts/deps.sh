#!/bin/bash
# Install the Debian packages kvmprof needs, only when something is missing.
# Idempotent and quiet when everything is present: one dpkg-query, no apt.
set -euo pipefail

PACKAGES=(
	build-essential pkg-config clang libclang-rt-dev clang-format
	libfuse3-dev fuse3 libguestfs-dev libguestfs-tools supermin
	libelf-dev zlib1g-dev liblzma-dev libzstd-dev liblz4-dev libbz2-dev liblzo2-dev
	libselinux1-dev selinux-policy-dev checkpolicy setools attr
	qemu-system-x86 qemu-utils linux-source-6.12 busybox-static
	bc bison flex libssl-dev cpio kmod xz-utils zstd lz4 libcmocka-dev
	linux-perf strace util-linux procps file time libiberty-dev lzop bzip2
	selinux-policy-default systemd semodule-utils tmux jq python3
	debhelper lintian mandoc man-db git golang-go
)

missing=()
known=0
while read -r pkg status; do
	known=$((known + 1))
	[ "$status" = "installed" ] || missing+=("$pkg")
done < <(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${PACKAGES[@]}" 2>/dev/null || true)

# dpkg-query prints nothing for packages it has never heard of: those are
# looked for one by one, only when it did not print a line for each.
[ "$known" -eq ${#PACKAGES[@]} ] || for pkg in "${PACKAGES[@]}"; do
	dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null | grep -qx installed ||
		[[ " ${missing[*]-} " == *" $pkg "* ]] || missing+=("$pkg")
done

[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages: ${missing[*]}; run as root to install them" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
# No host kernel is installed on purpose (linux-image-amd64 is only a
# Recommends of supermin): scripts/appliance.sh fetches one for the appliance.
echo "deps: done"
