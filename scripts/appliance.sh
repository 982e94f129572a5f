#!/bin/bash
# Prepare a fixed libguestfs appliance (kernel, initrd, root, README.fixed)
# once, in $KVMPROF_CACHE/appliance/<key>/, where <key> hashes everything the
# appliance is built from. Later runs find it and do nothing. With
# LIBGUESTFS_PATH pointing at it, libguestfs never runs supermin again.
#
#   scripts/appliance.sh                 build if needed (quiet when cached)
#   scripts/appliance.sh --print-path    same, then print the appliance folder
#
# $KVMPROF_CACHE/appliance/current is a symlink to the appliance in use;
# scripts/guestfs-env.sh reads it.
#
# KVMPROF_APPLIANCE_KERNEL picks the kernel put in the appliance:
#   auto      (default) the newest host kernel with modules, else download
#   host      the host kernel, fail if there is none
#   download  always the current Debian linux-image-*-amd64 package
# Machines set up with --no-install-recommends have no kernel in /boot and
# no /lib/modules at all, so "download" must work without either.
set -euo pipefail

CACHE=${KVMPROF_CACHE:-/var/cache/kvmprof}
ROOT=$CACHE/appliance
DEBS=$CACHE/debs
MODE=${KVMPROF_APPLIANCE_KERNEL:-auto}
VERIFY_TIMEOUT=${KVMPROF_APPLIANCE_TIMEOUT:-300}
# Bump when the recipe below changes, so existing appliances are rebuilt.
RECIPE=1

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

print_path=0
case "${1-}" in
--print-path) print_path=1 ;;
'') ;;
*) echo "usage: $0 [--print-path]" >&2; exit 2 ;;
esac

log() { echo "appliance: $*" >&2; }
die() { log "error: $*"; exit 1; }
pkgver() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true; }

# Newest /boot/vmlinuz-V that has its modules in /lib/modules/V.
host_kernel() {
	local k v
	for k in $(printf '%s\n' /boot/vmlinuz-* | sort -rV); do
		v=${k#/boot/vmlinuz-}
		if [ -r "$k" ] && [ -d "/lib/modules/$v/kernel" ]; then
			echo "$v"
			return
		fi
	done
}

# Name and version of the kernel package that linux-image-amd64 points at.
# apt-cache takes about a second here (Debian's container images turn off
# its binary cache), so the answer is remembered until the package lists
# change: the cached path stays instant on machines without a host kernel.
lists_stamp() { { stat -c '%n %s %Y' /var/lib/apt/lists/*_Packages* 2>/dev/null || true; } | cksum; }
debian_kernel() {
	local memo=$ROOT/.debian-kernel pkg ver
	if [ -f "$memo" ] && [ "$(head -n1 "$memo")" = "$(lists_stamp)" ]; then
		tail -n1 "$memo"
		return
	fi
	pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }')
	if [ -z "$pkg" ]; then
		# Fresh machines may have no package lists yet.
		apt-get update -q >/dev/null
		pkg=$(apt-cache depends linux-image-amd64 |
			awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }')
	fi
	[ -n "$pkg" ] || die "cannot find the Debian kernel package (apt-cache depends linux-image-amd64)"
	ver=$(apt-cache policy "$pkg" | awk '$1 == "Candidate:" { print $2 }')
	mkdir -p "$ROOT"
	printf '%s\n%s %s\n' "$(lists_stamp)" "$pkg" "$ver" >"$memo.$$"
	mv "$memo.$$" "$memo"
	echo "$pkg $ver"
}

# --- which kernel, and the key ------------------------------------------------

kver=
case $MODE in
auto | host) kver=$(host_kernel) ;;
download) ;;
*) die "KVMPROF_APPLIANCE_KERNEL must be auto, host or download, not '$MODE'" ;;
esac
[ -n "$kver" ] || [ "$MODE" != host ] || die "no host kernel with modules in /boot and /lib/modules"

if [ -n "$kver" ]; then
	kpkg=
	# Size and mtime also catch kernels that no package owns.
	kid="host $kver $(stat -c '%s %Y' "/boot/vmlinuz-$kver")"
else
	kinfo=$(debian_kernel)
	read -r kpkg kpkgver <<<"$kinfo"
	[ -n "$kpkgver" ] && [ "$kpkgver" != "(none)" ] || die "$kpkg has no installable version"
	kver=${kpkg#linux-image-}
	kid="deb $kpkg $kpkgver"
fi

# What supermin builds from: libguestfs's supermin.d (daemon, package lists,
# including the xfs/hfsplus/reiserfs add-ons), supermin and the kernel. Host
# packages copied into the appliance are left out on purpose: a fixed
# appliance is a snapshot and keeps working after they are upgraded.
supermin_d=$(env -u LIBGUESTFS_PATH guestfish get-path)/supermin.d
inputs="recipe=$RECIPE
libguestfs=$(pkgver libguestfs0)
supermin.d=$(cat "$supermin_d"/* | sha256sum | cut -c1-16)
supermin=$(pkgver supermin)
kernel=$kid
cpu=$(uname -m)"
key=$(printf '%s\n' "$inputs" | sha256sum | cut -c1-16)
dir=$ROOT/$key

finish() {
	# Repoint "current" atomically: readers see the old or the new target.
	if [ "$(readlink "$ROOT/current" 2>/dev/null)" != "$key" ]; then
		ln -sfn "$key" "$ROOT/.current.$$"
		mv -T "$ROOT/.current.$$" "$ROOT/current"
	fi
	[ "$print_path" = 0 ] || echo "$dir"
	exit 0
}

# Fast path: nothing to do, say nothing.
[ -f "$dir/README.fixed" ] && finish

mkdir -p "$ROOT"
# One builder at a time; a second caller waits, then finds the result.
exec 9>"$ROOT/.lock"
flock 9
[ -f "$dir/README.fixed" ] && finish

# Left over by builds that were killed (we hold the lock, so none is running).
rm -rf "$ROOT"/.tmp-*

start=$SECONDS
log "building libguestfs appliance $key (kernel $kver, about half a minute)"
tmp=$(mktemp -d "$ROOT/.tmp-$key.XXXXXX")
trap 'wait; rm -rf "$tmp"' EXIT
printf '%s\n' "$inputs" >"$tmp/inputs"

# --- kernel and modules for supermin -------------------------------------------

if [ -n "$kpkg" ]; then
	mkdir -p "$DEBS"
	deb=$DEBS/${kpkg}_${kpkgver//:/%3a}_amd64.deb
	if [ ! -f "$deb" ]; then
		log "downloading $kpkg $kpkgver"
		# Root downloads unsandboxed anyway; say so to keep apt quiet.
		(cd "$DEBS" && apt-get download -q -o APT::Sandbox::User=root \
			"$kpkg=$kpkgver" >/dev/null)
		[ -f "$deb" ] || die "apt-get download did not produce $deb"
		# Older kernel packages are of no further use.
		find "$DEBS" -name 'linux-image-*.deb' ! -path "$deb" -delete
	fi
	dpkg-deb -x "$deb" "$tmp/k"
	# The package leaves modules.dep to its postinst; supermin and the
	# appliance's modprobe both need it.
	depmod -b "$tmp/k" "$kver"
	export SUPERMIN_KERNEL=$tmp/k/boot/vmlinuz-$kver
	export SUPERMIN_MODULES=$tmp/k/lib/modules/$kver
else
	export SUPERMIN_KERNEL=/boot/vmlinuz-$kver
	export SUPERMIN_MODULES=/lib/modules/$kver
fi
export SUPERMIN_KERNEL_VERSION=$kver
[ -f "$SUPERMIN_KERNEL" ] && [ -d "$SUPERMIN_MODULES" ] ||
	die "kernel $SUPERMIN_KERNEL or modules $SUPERMIN_MODULES missing"

# supermin 5.2.2 copies the host's /lib/modules directory entry into the
# appliance (lstat, then copy) even when SUPERMIN_MODULES points elsewhere,
# and fails if it does not exist. Instead of creating it on the host, run
# supermin in a private mount namespace where an overlay adds an empty
# modules/ to /lib's real directory: no other process sees it, and nothing is
# left behind even if the build is killed.
with_lib_modules() {
	if [ -e /lib/modules ]; then
		"$@"
		return
	fi
	local lib
	lib=$(readlink -f /lib) # /usr/lib on merged-/usr systems
	mkdir -p "$tmp/ovl/upper/modules" "$tmp/ovl/work"
	unshare --mount --propagation private -- sh -c \
		'mount -t overlay kvmprof-lib -o "lowerdir=$1,upperdir=$2,workdir=$3" "$1" &&
		 shift 3 && exec "$@"' \
		sh "$lib" "$tmp/ovl/upper" "$tmp/ovl/work" "$@"
}

# --- build: the same supermin call libguestfs makes, into our folder -----------

if ! with_lib_modules supermin --build --copy-kernel -f ext2 \
	--host-cpu "$(uname -m)" "$supermin_d" -o "$tmp/appliance" \
	>"$tmp/build.log" 2>&1; then
	cat "$tmp/build.log" >&2
	die "supermin failed"
fi
# Deleting the unpacked kernel package takes seconds on this disk; let it
# overlap the test launch below.
[ -z "$kpkg" ] || rm -rf "$tmp/k" &

# libguestfs treats a folder with README.fixed, kernel, initrd and root as a
# fixed appliance. Only the rename below makes it visible under $ROOT.
cat >"$tmp/appliance/README.fixed" <<EOF
Fixed libguestfs appliance built by kvmprof scripts/appliance.sh with
supermin from this host's Debian packages. Use it with
LIBGUESTFS_PATH=<this folder>. Inputs:
$inputs
EOF

# --- verify once: the appliance must boot and answer ----------------------------

# Only the backend settings are wanted from guestfs-env.sh; it complains
# (harmlessly) until "current" exists.
. "$here/guestfs-env.sh" 2>/dev/null || true
export LIBGUESTFS_PATH=$tmp/appliance LIBGUESTFS_CACHEDIR=$tmp
t0=$SECONDS
if ! timeout "$VERIFY_TIMEOUT" guestfish -a /dev/null run >"$tmp/verify.log" 2>&1; then
	cat "$tmp/verify.log" >&2
	die "the new appliance failed to launch (timeout ${VERIFY_TIMEOUT}s)" \
		"(LIBGUESTFS_BACKEND=$LIBGUESTFS_BACKEND" \
		"LIBGUESTFS_BACKEND_SETTINGS=${LIBGUESTFS_BACKEND_SETTINGS-})"
fi
launch=$((SECONDS - t0))

# --- publish ----------------------------------------------------------------------

rm -rf "$dir" # a leftover without README.fixed
mv -T "$tmp/appliance" "$dir"
# Appliances built from older inputs are not used any more.
for old in "$ROOT"/*/; do
	old=${old%/}
	[ "$old" = "$dir" ] || [ -L "$old" ] || rm -rf "$old"
done
log "built $dir in $((SECONDS - start))s (test launch ${launch}s)"
finish
