#!/bin/bash
# The Debian packages, built from a clean copy of the working tree with
# dpkg-buildpackage, checked with lintian (no E: tag), installed with apt-get,
# tried (versions, guestfs-mount --check on the shipped example, man pages,
# completion, the unit installed but not enabled), removed (only the
# conffile stays) and purged (nothing stays). The machine is left as it was:
# packages that were not installed before are not installed after, whatever
# fails on the way.
. "$(dirname "$0")/../lib.sh"

PKGS=(kvmprof guestfs-mount)
t0=$SECONDS
elapsed() { echo $((SECONDS - $1)); }

[ "$(id -u)" -eq 0 ] || {
	skip "Debian packages: install, remove, purge" "needs root (apt-get, dpkg)"
	exit 0
}
for tool in dpkg-buildpackage dh lintian git man; do
	command -v $tool >/dev/null || {
		fail "$tool available (run scripts/deps.sh: dpkg-dev, debhelper, lintian, git, man-db)"
		exit 1
	}
done

# --- build from a clean copy --------------------------------------------------
# The tracked and untracked files, not what git ignores (build outputs).
SRC=$TMP/src/kvmprof
mkdir -p "$SRC"
if ! (cd "$REPO" && git ls-files -z -co --exclude-standard | tar -cf - --null -T -) |
	tar -xf - -C "$SRC"; then
	fail "copy the working tree (git ls-files)"
	exit 1
fi
check "a clean copy has no build output" test ! -e "$SRC/build" -a ! -e "$SRC/policy/kvmprof.pp"
if ! out=$(cd "$SRC" && dpkg-checkbuilddeps 2>&1); then
	fail "build dependencies installed (scripts/deps.sh)"
	sed 's/^/#   /' <<<"$out"
	exit 1
fi

t=$SECONDS
(cd "$SRC" && nice -n 10 dpkg-buildpackage -b -us -uc -j2) >"$TMP/build.log" 2>&1
rc=$?
build_s=$(elapsed $t)
if [ $rc -ne 0 ]; then
	fail "dpkg-buildpackage -b -us -uc (status $rc)"
	tail -30 "$TMP/build.log" | sed 's/^/#   /'
	exit 1
fi
ok "dpkg-buildpackage -b -us -uc (${build_s}s)"
DEBS=()
for p in "${PKGS[@]}"; do
	f=$(ls "$TMP/src/${p}"_*_amd64.deb 2>/dev/null | head -1)
	check "built ${p}_*.deb" test -f "$f"
	[ -f "$f" ] && DEBS+=("$f")
done
[ ${#DEBS[@]} -eq ${#PKGS[@]} ] || exit 1
# dh_shlibdeps sees only linked libraries; the decoders loaded on first
# use (lib/ksym/codecs.h) must be in Depends by hand.
for f in "${DEBS[@]}"; do
	deps=$(dpkg-deb -f "$f" Depends)
	check "${f##*/}: Depends names the decoders loaded on first use ($deps)" \
		bash -c 'for l in liblzma5 libbz2-1.0 liblzo2-2; do grep -qw "$l" <<<"$0" || exit 1; done' "$deps"
done

t=$SECONDS
lintian "$TMP"/src/kvmprof_*.changes >"$TMP/lintian.out" 2>&1
lintian_s=$(elapsed $t)
if grep -q '^E: ' "$TMP/lintian.out"; then
	fail "lintian: no error"
	grep '^E: ' "$TMP/lintian.out" | sed 's/^/#   /'
else
	ok "lintian: no error (${lintian_s}s)"
fi
grep -E '^[WI]: ' "$TMP/lintian.out" | sed 's/^/#   lintian: /'

# --- install ------------------------------------------------------------------
# Never over packages an administrator installed: they are left alone.
installed() { dpkg-query -W -f='${db:Status-Status}\n' "$1" 2>/dev/null | grep -qvx not-installed; }
for p in "${PKGS[@]}" /etc/kvmprof; do
	if { [[ $p != /* ]] && installed "$p"; } || [ -e "$p" -a "${p:0:1}" = / ]; then
		skip "install, remove and purge the packages" "$p is on this machine; not touched"
		echo "# timing: build ${build_s}s, lintian ${lintian_s}s, total $(elapsed $t0)s"
		exit 0
	fi
done

dpkg_list() { dpkg-query -W -f='${Package} ${db:Status-Status}\n' | awk '$2 != "not-installed" { print $1 }' | sort; }
dpkg_list >"$TMP/before.list"
export DEBIAN_FRONTEND=noninteractive
APT=(apt-get -y -q -o DPkg::Lock::Timeout=300)

# Whatever happens, purge what this test installed: ours, and any package
# apt-get brought in for them.
restore() {
	local extra
	extra=$(comm -13 "$TMP/before.list" <(dpkg_list))
	[ -z "$extra" ] || "${APT[@]}" purge $extra >/dev/null 2>&1 || dpkg -P $extra >/dev/null 2>&1
	rm -rf "$TMP"
}
trap restore EXIT

t=$SECONDS
if ! out=$("${APT[@]}" install --no-install-recommends "${DEBS[@]}" 2>&1); then
	fail "apt-get install ./kvmprof_*.deb ./guestfs-mount_*.deb"
	tail -20 <<<"$out" | sed 's/^/#   /'
	exit 1
fi
ok "apt-get install ./kvmprof_*.deb ./guestfs-mount_*.deb ($(elapsed $t)s)"
new=$(comm -13 "$TMP/before.list" <(dpkg_list) | tr '\n' ' ')
check "apt-get installed only the two packages (new: $new)" test "$new" = "guestfs-mount kvmprof "

version=$(cat "$SRC/VERSION")
check "kvmprof --version: kvmprof $version" test "$(/usr/bin/kvmprof --version)" = "kvmprof $version"
check "guestfs-mount --version: guestfs-mount $version" \
	test "$(/usr/sbin/guestfs-mount --version)" = "guestfs-mount $version"
EXAMPLE=/usr/share/doc/guestfs-mount/examples/guests.conf
check "guestfs-mount --check accepts the shipped example guests.conf" \
	/usr/sbin/guestfs-mount --check "$EXAMPLE"
check "guestfs-mount --check reads the installed /etc/kvmprof/access.conf" \
	/usr/sbin/guestfs-mount --check --policy /etc/kvmprof/access.conf "$EXAMPLE"
check "man kvmprof renders" sh -c 'man -P cat kvmprof 2>/dev/null | grep -q "kvmprof record"'
for page in kvmprof-record kvmprof-report kvmprof-symbols kvmprof-guests guests.conf \
	kvmprof-access.conf guestfs-mount; do
	check "man $page renders" sh -c "man -P cat $page 2>/dev/null | grep -qi '^NAME'"
done
check "the installed completion offers record for kvmprof rec" bash -c \
	'. /usr/share/bash-completion/completions/kvmprof; COMP_WORDS=(kvmprof rec); COMP_CWORD=1
	 _kvmprof; [ "${COMPREPLY[*]}" = record ]'
check "the SELinux module is shipped" test -s /usr/share/selinux/packages/kvmprof.pp
check "the unit is installed" test -f /lib/systemd/system/guestfs-mount.service
check "the unit runs /usr/sbin/guestfs-mount" \
	grep -qx 'ExecStart=/usr/sbin/guestfs-mount -f -c /etc/kvmprof/guests.conf' \
	/lib/systemd/system/guestfs-mount.service
check "the unit is not enabled" test -z "$(find /etc/systemd/system -name 'guestfs-mount.service' 2>/dev/null)"
check "/etc/kvmprof/access.conf is a conffile" \
	sh -c "dpkg-query -W -f='\${Conffiles}' guestfs-mount | grep -q ' /etc/kvmprof/access.conf '"
check "no guests.conf is installed in /etc" test ! -e /etc/kvmprof/guests.conf

# --- remove, then purge ----------------------------------------------------------
# The files (not folders) the packages installed.
dpkg -L "${PKGS[@]}" | while read -r f; do [ -d "$f" ] || echo "$f"; done | sort >"$TMP/files"
check "dpkg -L lists the programs" grep -qx /usr/bin/kvmprof "$TMP/files"
dpkg-query -W -f='${Conffiles}\n' "${PKGS[@]}" | awk 'NF { print $1 }' | sort >"$TMP/conffiles"
remaining() { while read -r f; do [ ! -e "$f" ] || echo "$f"; done <"$TMP/files"; }

check "dpkg -r kvmprof guestfs-mount" dpkg -r "${PKGS[@]}"
check "after remove: only the conffiles remain" test "$(remaining)" = "$(cat "$TMP/conffiles")"
check "after remove: guestfs-mount's config files are known to dpkg" \
	test "$(dpkg-query -W -f='${db:Status-Status}' guestfs-mount)" = config-files
check "apt-get purge kvmprof guestfs-mount" "${APT[@]}" purge "${PKGS[@]}"
check "after purge: none of the files remains" test -z "$(remaining)"
check "after purge: /etc/kvmprof is gone" test ! -e /etc/kvmprof
for p in "${PKGS[@]}"; do
	check "after purge: $p is not installed" sh -c "! dpkg-query -W -f='\${db:Status-Status}' $p 2>/dev/null | grep -qvx not-installed"
done
check "the machine has the packages it had before" test "$(dpkg_list)" = "$(cat "$TMP/before.list")"
echo "# timing: build ${build_s}s, lintian ${lintian_s}s, total $(elapsed $t0)s"
