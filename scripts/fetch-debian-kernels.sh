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

# apt-cache reads every package list on each call when apt keeps no binary
# cache (as in Debian's container images): about 0.6 s a call here. So the
# two series are resolved in two calls, one "depends" and one "policy".

# candidates PKG...: "PKG VERSION" for each package apt can download.
candidates() {
	apt-cache policy "$@" 2>/dev/null |
		awk '/^[^ ].*:$/ { p = substr($0, 1, length($0) - 1) }
		     /^ +Candidate:/ { if ($2 != "(none)") print p, $2 }'
}

# depends_of META REGEX <DEPENDS: the first dependency of META matching
# REGEX, in the output of apt-cache depends for several metapackages.
depends_of() {
	awk -v meta="$1" '/^[^ ]/ { m = ($1 == meta) } m && /^ *Depends:/ { print $2 }' |
		grep -E "$2" | head -n1 || true
}

# newest PREFIX REGEX: the newest image of the series that apt can
# download, signed (plain name) or unsigned; for when the metapackage
# names none.
newest() {
	local names

	names=$(apt-cache pkgnames "$1" 2>/dev/null | grep -E "$2" || true)
	[ -n "$names" ] || return 0
	# shellcheck disable=SC2086
	candidates $names | sort -k1,1Vr | head -n1
}

# A fresh machine has empty package lists: refresh them once, as root.
refresh_lists() {
	if [ "$(id -u)" -ne 0 ]; then
		log "apt knows no Debian kernel packages; run apt-get update as root"
		return 1
	fi
	log "refreshing apt's package lists"
	apt-get update -q >/dev/null
}

# metas_depends: apt-cache depends of both series' metapackages at once.
metas_depends() {
	local series meta prefix regex metas=()

	for series in "${SERIES[@]}"; do
		series_of "$series"
		metas+=("$meta")
	done
	apt-cache depends "${metas[@]}" 2>/dev/null || true
}

# resolve: "PKG VERSION" for the 6.1 and the 6.12 image a Debian guest
# would run, one line each.
resolve() {
	local deps pkgs=() found series meta prefix regex line

	deps=$(metas_depends)
	if ! grep -q 'Depends:' <<<"$deps"; then
		refresh_lists || return 1
		deps=$(metas_depends)
	fi
	for series in "${SERIES[@]}"; do
		series_of "$series"
		pkgs+=("$(depends_of "$meta" "$regex" <<<"$deps")")
	done
	found=$(candidates "${pkgs[@]}")
	for series in "${SERIES[@]}"; do
		series_of "$series"
		line=$(grep -E "$regex" <<<"$found" | head -n1 || true)
		[ -n "$line" ] || line=$(newest "$prefix" "$regex")
		if [ -z "$line" ]; then
			log "no package matching $regex is known to apt (run apt-get update?)"
			return 1
		fi
		echo "$line"
	done
}

SERIES=(6.1 6.12)

# series_of SERIES: sets meta, prefix and regex for that kernel series.
series_of() {
	case "$1" in
	6.1)
		meta=linux-image-amd64 prefix=linux-image-6.1.0-
		regex='^linux-image-6\.1\.0-[0-9]+-amd64(-unsigned)?( |$)'
		;;
	6.12)
		meta=linux-image-6.12-amd64 prefix=linux-image-6.12.
		regex='^linux-image-6\.12\.[0-9]+\+deb[0-9]+-amd64(-unsigned)?( |$)'
		;;
	esac
}

# fetch_one PKG VERSION: the package's folder, extracted if not yet.
fetch_one() {
	local pkg=$1 version=$2 dir tmp deb

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
	local dirs=() lines=() line pkg version

	mkdir -p "$DEST"
	if [ "$FETCH" = 0 ]; then
		[ "$PRINT" = 1 ] && print_cached
		return 0
	fi
	mapfile -t lines < <(resolve)
	[ ${#lines[@]} -eq ${#SERIES[@]} ] || return 1
	for line in "${lines[@]}"; do
		read -r pkg version <<<"$line"
		dirs+=("$(fetch_one "$pkg" "$version")")
	done
	if [ "$PRINT" = 1 ]; then
		printf '%s\n' "${dirs[@]}"
	fi
}

main
