#!/bin/bash
# make install and make uninstall into a DESTDIR: what lands where for the
# default prefix and for /usr, that an administrator's configuration is never
# overwritten nor removed, that uninstall leaves nothing of what install
# wrote; and that the release has one source (VERSION).
. "$(dirname "$0")/../lib.sh"

mk() { make -s --no-print-directory -C "$REPO" BUILD="$BUILD" "$@"; }
version=$(cat "$REPO/VERSION")

check "kvmprof --version says kvmprof $version" \
	test "$("$KVMPROF" --version)" = "kvmprof $version"
check "kvmprof version says the same" test "$("$KVMPROF" version)" = "kvmprof $version"
check "guestfs-mount --version says guestfs-mount $version" \
	test "$("$GUESTFS_MOUNT" --version)" = "guestfs-mount $version"
if [ -f "$REPO/debian/changelog" ]; then
	check "debian/changelog's version is VERSION ($version)" \
		test "$(cd "$REPO" && dpkg-parsechangelog -SVersion)" = "$version"
fi

# The files a DESTDIR holds, relative to it, sorted.
files_in() { (cd "$1" && find . -type f -o -type l | sed 's|^\./|/|' | sort); }

# --- the default prefix -------------------------------------------------------
D=$TMP/root
echo fake-module >"$TMP/kvmprof.pp"
check "make install DESTDIR (default prefix) succeeds" mk install DESTDIR="$D" SELINUX_PP="$TMP/kvmprof.pp"
files_in "$D" >"$TMP/default.list"
for f in /usr/local/bin/kvmprof /usr/local/sbin/guestfs-mount \
	/usr/local/lib/systemd/system/guestfs-mount.service \
	/usr/local/share/man/man1/kvmprof.1 /usr/local/share/man/man1/kvmprof-record.1 \
	/usr/local/share/man/man5/guests.conf.5 /usr/local/share/man/man8/guestfs-mount.8 \
	/usr/local/share/bash-completion/completions/kvmprof \
	/usr/local/share/bash-completion/completions/guestfs-mount \
	/usr/local/share/doc/kvmprof/examples/guests.conf \
	/usr/local/share/doc/kvmprof/examples/access.conf \
	/usr/local/share/selinux/packages/kvmprof.pp \
	/etc/kvmprof/access.conf; do
	check "installs $f" grep -qxF "$f" "$TMP/default.list"
done
check "installs no guests.conf in /etc (its guests are not this host's)" \
	test ! -e "$D/etc/kvmprof/guests.conf"
check "every page in man/ is installed" \
	test "$(ls "$REPO"/man/*.[1-8] | wc -l)" -eq "$(grep -c '^/usr/local/share/man/' "$TMP/default.list")"
check "the unit runs /usr/local/sbin/guestfs-mount" grep -qx \
	'ExecStart=/usr/local/sbin/guestfs-mount -f -c /etc/kvmprof/guests.conf' \
	"$D/usr/local/lib/systemd/system/guestfs-mount.service"
check "the installed kvmprof runs" test "$("$D/usr/local/bin/kvmprof" --version)" = "kvmprof $version"
check "programs are 0755, the rest 0644" test -z "$(cd "$D" && find . -type f \
	! \( -perm 0755 -path '*bin/*' \) ! \( -perm 0644 ! -path '*bin/*' \))"
check "the installed example guests.conf passes guestfs-mount --check" \
	"$GUESTFS_MOUNT" --check --policy "$D/etc/kvmprof/access.conf" \
	"$D/usr/local/share/doc/kvmprof/examples/guests.conf"

check "make uninstall succeeds" mk uninstall DESTDIR="$D"
check "uninstall leaves no file" test -z "$(files_in "$D")"
check "uninstall removes kvmprof's own folders" test ! -e "$D/usr/local/share/doc/kvmprof" \
	-a ! -e "$D/etc/kvmprof"

# --- /usr, and an administrator's configuration -------------------------------
D=$TMP/usr-root
mkdir -p "$D/etc/kvmprof"
echo "expose web1" >"$D/etc/kvmprof/access.conf"
check "make install PREFIX=/usr succeeds" mk install DESTDIR="$D" PREFIX=/usr
files_in "$D" >"$TMP/usr.list"
unitdir=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null || echo /lib/systemd/system)
for f in /usr/bin/kvmprof /usr/sbin/guestfs-mount "$unitdir/guestfs-mount.service" \
	/usr/share/man/man1/kvmprof.1 /usr/share/bash-completion/completions/kvmprof; do
	check "PREFIX=/usr installs $f" grep -qxF "$f" "$TMP/usr.list"
done
check "PREFIX=/usr: the unit runs /usr/sbin/guestfs-mount" \
	grep -qx 'ExecStart=/usr/sbin/guestfs-mount -f -c /etc/kvmprof/guests.conf' \
	"$D$unitdir/guestfs-mount.service"
check "PREFIX=/usr: nothing under /usr/local" test ! -e "$D/usr/local"
check "install keeps an existing /etc/kvmprof/access.conf" \
	test "$(cat "$D/etc/kvmprof/access.conf")" = "expose web1"
check "no SELinux module is installed when none was built" \
	test "$(grep -c selinux "$TMP/usr.list")" -eq 0 -o -f "$REPO/policy/kvmprof.pp"
check "make uninstall PREFIX=/usr succeeds" mk uninstall DESTDIR="$D" PREFIX=/usr
check "uninstall leaves the administrator's access.conf, and nothing else" \
	test "$(files_in "$D")" = /etc/kvmprof/access.conf

# The shipped access.conf, still unchanged, goes with uninstall.
D=$TMP/again
mk install DESTDIR="$D" PREFIX=/usr >/dev/null 2>&1
echo "# edited" >>"$D/etc/kvmprof/access.conf"
mk uninstall DESTDIR="$D" PREFIX=/usr >/dev/null 2>&1
check "uninstall keeps an access.conf edited after install" test -f "$D/etc/kvmprof/access.conf"

# Leave the build's unit as make builds it.
mk "$BUILD/guestfs-mount.service" >/dev/null 2>&1
