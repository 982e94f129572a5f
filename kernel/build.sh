#!/bin/bash
# Build the kvmprof test kernel: Debian's linux-source-6.12 plus kernel/series,
# configured from `make tinyconfig` + kernel/config.fragment.
#
#   kernel/build.sh               build if needed; silent when the cache is warm
#   kernel/build.sh --print-dir   same, then print the cache folder on stdout
#   kernel/build.sh --config-only unpack, patch and configure only (checks the
#                                 fragment quickly; nothing is cached)
#
# Results are cached outside the repository, keyed by every input:
#   $KVMPROF_CACHE/kernel/<key>/{bzImage,System.map,vmlinux,config,release,inputs}
# <key> is the sha256 of the "inputs" file: the source tarball's identity, the
# series, each patch, the config fragment, this script and the toolchain.
#
# Work folders (git-ignored): build/linux-6.12 (pristine tarball + series) and
# build/linux-6.12-obj (out-of-tree objects, kept between runs so that a changed
# patch only recompiles what it touches).  Progress goes to stderr, so
# `dir=$(kernel/build.sh --print-dir)` works.
#
# This script only builds.  The kernel runs inside QEMU (tests/qemu/), never on
# the machine that builds it.

set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KDIR=$REPO/kernel
TARBALL=${KVMPROF_KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
PACKAGE=linux-source-6.12
SRC=$REPO/build/linux-6.12
OBJ=$REPO/build/linux-6.12-obj
LOG=$OBJ/build.log
CACHE_ROOT=${KVMPROF_CACHE:-/var/cache/kvmprof}/kernel
ARTIFACTS=(bzImage System.map vmlinux config release inputs)

say() { printf 'kernel: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

print_dir=0
config_only=0
for arg in "$@"; do
	case $arg in
	--print-dir) print_dir=1 ;;
	--config-only) config_only=1 ;;
	-h | --help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) die "unknown argument '$arg' (try --help)" ;;
	esac
done

[[ -f $TARBALL ]] || die "$TARBALL is missing: apt-get install $PACKAGE"

# --- The inputs --------------------------------------------------------------

# Patch names from the series, in order; blank lines and "#" comments ignored.
mapfile -t PATCHES < <(sed -e 's/#.*//' -e 's/^[[:space:]]*//' \
	-e 's/[[:space:]]*$//' -e '/^$/d' "$KDIR/series")
for p in "${PATCHES[@]}"; do
	[[ -f $KDIR/patches/$p ]] || die "kernel/series names $p, not in kernel/patches/"
done

sha() { sha256sum "$1" | cut -d' ' -f1; }

# What the unpacked tree depends on.  The tarball is identified by its package
# version, size and mtime: hashing 150 MB on every call would make the warm-cache
# path slow, and a new tarball always comes with a new package version anyway.
tree_inputs() {
	printf 'tarball %s %s\n' "$TARBALL" "$(stat -c '%s %Y' "$TARBALL")"
	printf 'package %s %s\n' "$PACKAGE" \
		"$(dpkg-query -W -f='${Version}' "$PACKAGE" 2>/dev/null || echo unknown)"
	printf 'series %s\n' "$(sha "$KDIR/series")"
	local p
	for p in "${PATCHES[@]}"; do
		printf 'patch %s %s\n' "$p" "$(sha "$KDIR/patches/$p")"
	done
}

# What the built kernel depends on: the tree, the configuration, this script
# (it decides how things are built) and the toolchain that compiles it.
all_inputs() {
	tree_inputs
	printf 'config.fragment %s\n' "$(sha "$KDIR/config.fragment")"
	printf 'build.sh %s\n' "$(sha "$KDIR/build.sh")"
	printf 'cc %s\n' "$(${CC:-gcc} --version | head -n1)"
	printf 'ld %s\n' "$(${LD:-ld} --version | head -n1)"
}

INPUTS=$(all_inputs)
KEY=$(printf '%s\n' "$INPUTS" | sha256sum | cut -d' ' -f1)
DEST=$CACHE_ROOT/$KEY

cached() {
	local f
	for f in "${ARTIFACTS[@]}"; do
		[[ -s $DEST/$f ]] || return 1
	done
}

finish() {
	if ((print_dir)); then
		printf '%s\n' "$DEST"
	fi
	exit 0
}

# Warm cache: nothing to do, nothing to say.
if ((!config_only)) && cached; then
	finish
fi

# --- One build at a time per repository ---------------------------------------

mkdir -p "$REPO/build"
exec 9>"$REPO/build/.linux-6.12.lock"
if ! flock -n 9; then
	say "waiting for another kernel build in this repository"
	flock 9
fi
# Someone else may have built the same inputs while we waited.
if ((!config_only)) && cached; then
	finish
fi

# Whatever is in flight when the script ends (error, Ctrl-C) goes away with it.
TMPD=$(mktemp -d)
make_pid=
cache_tmp=
# shellcheck disable=SC2317 # called through the EXIT trap
cleanup() {
	if [[ -n $make_pid ]]; then
		kill "$make_pid" 2>/dev/null || true
	fi
	rm -rf "$TMPD" ${cache_tmp:+"$cache_tmp"}
}
trap cleanup EXIT

START=$SECONDS
elapsed() { echo "$((SECONDS - START)) s"; }

# Files that any patch touches, one per line, from the "--- a/" and "+++ b/"
# headers (git and plain diffs alike).
patched_files() {
	local p
	for p in "$@"; do
		sed -n -e 's#^+++ b/\([^[:space:]]*\).*#\1#p' \
			-e 's#^--- a/\([^[:space:]]*\).*#\1#p' "$KDIR/patches/$p"
	done | sort -u
}

# --- Unpack and patch ------------------------------------------------------------

# The tree is right when its stamp matches the current tree inputs and no file
# in it is newer than the stamp.  Anything else (no tree, a changed series or
# patch, an interrupted unpack, hand edits) gets a fresh unpack: simpler and
# safer than reversing old patches, and a hand-edited tree must never be built
# and cached under the key of the clean inputs.
#
# Hand edits are files newer than the stamp (patches are often written in this
# tree); such a tree is set aside, never deleted.
TREE_INPUTS=$(tree_inputs)
edited=$TMPD/edited
: >"$edited"
if [[ -f $SRC/.kvmprof-tree ]]; then
	find "$SRC" -newer "$SRC/.kvmprof-tree" -type f ! -name '.kvmprof-*' \
		-printf '%P\n' >"$edited"
fi
if [[ ! -f $SRC/.kvmprof-tree ]] || [[ -s $edited ]] ||
	[[ $(cat "$SRC/.kvmprof-tree") != "$TREE_INPUTS" ]]; then
	t0=$SECONDS
	say "unpacking $(basename "$TARBALL")"
	NEW=$SRC.new
	rm -rf "$NEW"
	mkdir -p "$NEW"
	tar -xJf "$TARBALL" -C "$NEW" --strip-components=1
	say "unpacked in $((SECONDS - t0)) s"

	if ((${#PATCHES[@]})); then
		say "applying ${#PATCHES[@]} patch(es)"
		for p in "${PATCHES[@]}"; do
			patch -d "$NEW" -p1 --batch --forward --quiet \
				<"$KDIR/patches/$p" >&2 || die "patch $p does not apply"
		done
	fi

	# tar restores the archive's (old) mtimes, so the kept object folder would
	# look up to date for a file that the old tree had patched or edited
	# differently.  Touch every file the old or the new tree changed, so that
	# make recompiles exactly those; a file whose content is the same as in
	# the old tree keeps the old tree's mtime, so that a change to one patch
	# does not rebuild what the others touch (a header rebuilds everything).
	: >"$NEW/.kvmprof-patched-files"
	if ((${#PATCHES[@]})); then
		patched_files "${PATCHES[@]}" >"$NEW/.kvmprof-patched-files"
	fi
	old_list=$SRC/.kvmprof-patched-files
	if [[ ! -f $old_list ]]; then
		old_list=/dev/null
	fi
	sort -u "$old_list" "$edited" "$NEW/.kvmprof-patched-files" | while read -r f; do
		if [[ ! -e $NEW/$f ]]; then
			continue
		elif [[ -f $SRC/$f ]] && cmp -s "$SRC/$f" "$NEW/$f"; then
			touch -r "$SRC/$f" "$NEW/$f"
		else
			touch "$NEW/$f"
		fi
	done

	# The stamp goes in last: a tree without it is never trusted.
	printf '%s\n' "$TREE_INPUTS" >"$NEW/.kvmprof-tree"

	if [[ -s $edited ]]; then
		saved=$SRC.edited-$(date +%Y%m%d-%H%M%S)
		mv -T "$SRC" "$saved"
		say "the old tree had hand edits ($(wc -l <"$edited") files): kept as ${saved#"$REPO"/}"
	fi
	rm -rf "$SRC"
	mv -T "$NEW" "$SRC"
fi

# --- Configure -----------------------------------------------------------------

mkdir -p "$OBJ"
: >"$LOG"
# Fixed user and host names keep the machine's name out of the version banner.
MAKE=(make -C "$SRC" O="$OBJ" KBUILD_BUILD_USER=kvmprof KBUILD_BUILD_HOST=kvmprof)

say "configuring: tinyconfig + config.fragment"
{
	"${MAKE[@]}" tinyconfig
	# merge_config.sh writes its temporary files in the current folder.
	(cd "$OBJ" && "$SRC/scripts/kconfig/merge_config.sh" -m .config "$KDIR/config.fragment")
	"${MAKE[@]}" olddefconfig
} >>"$LOG" 2>&1 || { tail -n 30 "$LOG" >&2; die "configuration failed (log: $LOG)"; }

# Kconfig drops any option whose dependencies are unmet, without an error.
# Compare every request in the fragment with what olddefconfig kept.
missing=()
while IFS= read -r line; do
	if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)= ]]; then
		name=${BASH_REMATCH[1]}
		grep -qxF -- "$line" "$OBJ/.config" && continue
	elif [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
		name=${BASH_REMATCH[1]}
		grep -q "^$name=" "$OBJ/.config" || continue
	else
		continue
	fi
	got=$(grep -E "^$name=|^# $name is not set" "$OBJ/.config" || true)
	missing+=("$line  (got: ${got:-absent, dependencies unmet})")
done <"$KDIR/config.fragment"
if ((${#missing[@]})); then
	say "error: olddefconfig did not keep these config.fragment requests:"
	printf '  %s\n' "${missing[@]}" >&2
	die "fix their dependencies in kernel/config.fragment ($OBJ/.config)"
fi
say "configuration verified: $(grep -c '^CONFIG_' "$KDIR/config.fragment") options as requested"

if ((config_only)); then
	exit 0
fi

# --- Build -----------------------------------------------------------------------

JOBS=$(nproc)
say "building bzImage with -j$JOBS (log: ${LOG#"$REPO"/})"
t0=$SECONDS
"${MAKE[@]}" -j"$JOBS" bzImage >>"$LOG" 2>&1 &
make_pid=$!

# A line every 30 s, so that a long build visibly makes progress.
next=30
while kill -0 "$make_pid" 2>/dev/null; do
	sleep 1
	if ((SECONDS - t0 >= next)); then
		say "  ... $((SECONDS - t0)) s, $(grep -c '^  CC ' "$LOG" || true) files compiled"
		next=$((next + 30))
	fi
done
if ! wait "$make_pid"; then
	make_pid=
	# The first errors matter; without any, the end of the log.
	{ grep -E -B2 -A8 'error|Error' "$LOG" || tail -n 40 "$LOG"; } | head -n 40 >&2
	die "build failed (log: $LOG)"
fi
make_pid=
say "built in $((SECONDS - t0)) s"

# --- Cache -------------------------------------------------------------------------

# Fill a temporary folder, then rename it into place: the rename is atomic, so
# an interrupted run never leaves a folder that looks like a valid result.
mkdir -p "$CACHE_ROOT"
cache_tmp=$(mktemp -d "$CACHE_ROOT/.tmp-$KEY.XXXXXX")
cp "$OBJ/arch/x86/boot/bzImage" "$OBJ/System.map" "$OBJ/vmlinux" "$cache_tmp/"
cp "$OBJ/.config" "$cache_tmp/config"
"${MAKE[@]}" -s kernelrelease >"$cache_tmp/release"
printf '%s\n' "$INPUTS" >"$cache_tmp/inputs"
chmod 0755 "$cache_tmp"
if [[ -d $DEST ]] && ! cached; then
	rm -rf "$DEST" # incomplete, e.g. emptied by hand
fi
if mv -T "$cache_tmp" "$DEST" 2>/dev/null; then
	cache_tmp=
else
	# Another repository sharing the cache finished the same key first.
	cached || die "cannot move the result into $DEST"
fi
say "cached in $DEST ($(elapsed) in all)"
finish
