#!/bin/bash
# Fetch Debian's current 6.1 and 6.12 amd64 kernel packages as real test
# inputs for the kernel image decoder (their vmlinuz carries kallsyms, their
# System.map is a placeholder), extracted with dpkg-deb into
#
#   $KVMPROF_CACHE/debian-kernels/<package>_<version>/
#
# Usage: fetch-debian-kernels.sh [--print] [--no-fetch]
#   --print     print the package folders on stdout, one a line (logs go to stderr)
#   --no-fetch  only report folders already in the cache; never call apt
#
# A package already extracted is not fetched again: its folder holds a
# .complete stamp written last, so an interrupted run is redone cleanly.
set -euo pipefail

KVMPROF_CACHE=${KVMPROF_CACHE:-/var/cache/kvmprof}
DEST="$KVMPROF_CACHE/debian-kernels"
PRINT=0
FETCH=1

for arg in "$@"; do
	case "$arg" in
	--print) PRINT=1 ;;
	--no-fetch) FETCH=0 ;;
	-h | --help)
		sed -n '2,14s/^# \{0,1\}//p' "$0"
		exit 0
		;;
	*)
		echo "fetch-debian-kernels: unknown argument: $arg" >&2
		exit 2
		;;
	esac
done

log() { echo "fetch-debian-kernels: $*" >&2; }

# Does apt know a downloadable version of this package?
candidate() {
	apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ { if ($2 != "(none)") print $2 }'
}

# The package a Debian guest would run: what the metapackage depends on.
from_meta() {
	local meta=$1 regex=$2

	apt-cache depends "$meta" 2>/dev/null |
		awk '/^ *Depends:/ { print $2 }' | grep -E "$regex" | head -n1 || true
}

# Otherwise the newest image of the series that apt can download, signed
# (plain name) or unsigned.
newest() {
	local prefix=$1 regex=$2 pkg

	{ apt-cache pkgnames "$prefix" 2>/dev/null | grep -E "$regex" || true; } | sort -V -r |
		while read -r pkg; do
			if [ -n "$(candidate "$pkg")" ]; then
				echo "$pkg"
				break
			fi
		done
}

resolve() {
	local meta=$1 prefix=$2 regex=$3 pkg

	pkg=$(from_meta "$meta" "$regex")
	if [ -z "$pkg" ] || [ -z "$(candidate "$pkg")" ]; then
		pkg=$(newest "$prefix" "$regex")
	fi
	if [ -z "$pkg" ]; then
		log "no package matching $regex is known to apt (run apt-get update?)"
		return 1
	fi
	echo "$pkg"
}

# A fresh machine has empty package lists: refresh them once, as root.
apt_lists_ready() {
	if [ -n "$(candidate linux-image-amd64)" ]; then
		return 0
	fi
	if [ "$(id -u)" -ne 0 ]; then
		log "apt knows no linux-image-amd64; run apt-get update as root"
		return 1
	fi
	log "refreshing apt's package lists"
	apt-get update -q >/dev/null
}

fetch_one() {
	local pkg=$1 version dir tmp deb

	version=$(candidate "$pkg")
	dir="$DEST/${pkg}_${version}"
	if [ -e "$dir/.complete" ]; then
		echo "$dir"
		return 0
	fi
	log "downloading $pkg $version"
	rm -rf "$dir"
	tmp=$(mktemp -d "$DEST/.tmp.XXXXXX")
	# apt-get download writes into the current directory; as root, since
	# _apt may not reach a folder under the cache.
	if ! (cd "$tmp" && apt-get download -q -o APT::Sandbox::User=root "$pkg=$version" >/dev/null); then
		rm -rf "$tmp"
		log "apt-get download $pkg=$version failed"
		return 1
	fi
	deb=$(find "$tmp" -maxdepth 1 -name '*.deb' | head -n1)
	mkdir -p "$tmp/root"
	dpkg-deb -x "$deb" "$tmp/root"
	rm -f "$deb"
	mv "$tmp/root" "$dir"
	rmdir "$tmp"
	date -u +%Y-%m-%dT%H:%M:%SZ >"$dir/.complete"
	log "extracted into $dir"
	echo "$dir"
}

print_cached() {
	local d

	for d in "$DEST"/linux-image-*/; do
		[ -e "$d.complete" ] && echo "${d%/}"
	done
	return 0
}

main() {
	local dirs=() pkg series

	mkdir -p "$DEST"
	if [ "$FETCH" = 0 ]; then
		[ "$PRINT" = 1 ] && print_cached
		return 0
	fi
	apt_lists_ready
	for series in 6.1 6.12; do
		case "$series" in
		6.1) pkg=$(resolve linux-image-amd64 linux-image-6.1.0- \
			'^linux-image-6\.1\.0-[0-9]+-amd64(-unsigned)?$') ;;
		6.12) pkg=$(resolve linux-image-6.12-amd64 linux-image-6.12. \
			'^linux-image-6\.12\.[0-9]+\+deb[0-9]+-amd64(-unsigned)?$') ;;
		esac
		dirs+=("$(fetch_one "$pkg")")
	done
	if [ "$PRINT" = 1 ]; then
		printf '%s\n' "${dirs[@]}"
	fi
}

main
