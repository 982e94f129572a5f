#!/bin/bash
# The access policy and the SELinux module.
#
# SELinux: the module must compile with Debian's reference policy headers,
# and, linked into Debian's complete default policy, the only domains that
# may read the served files (kvmprof_guest_artifact_t) or the cache
# (kvmprof_cache_t) must be the ones listed below.
#
# Access policy: decisions of lib/policy/accesspolicy for real users and groups
# created here, and the kernel's own permission checks on real files given
# the owner, group and mode the library computes, exercised by running
# `cat` as those users with setpriv.
. "$(dirname "$0")/../lib.sh"

cd "$REPO" || exit 1

# --- SELinux module ---------------------------------------------------------

SE_DEVEL=/usr/share/selinux/devel/Makefile
SE_STORE=/var/lib/selinux/default	# Debian's selinux-policy-default

# Built in a scratch copy: the test never writes into the checkout.
mkdir -p "$TMP/policy"
cp policy/kvmprof.te policy/kvmprof.if policy/kvmprof.fc policy/Makefile "$TMP/policy/"
if [ ! -f "$SE_DEVEL" ]; then
	skip "selinux module compiles" "no $SE_DEVEL (selinux-policy-dev)"
	have_pp=0
elif check "selinux module compiles" make -s -C "$TMP/policy"; then
	have_pp=1
else
	have_pp=0
fi

# sesearch reads kernel policies, not modules. A module's .pp only holds its
# own rules, with the types it requires left unresolved, so it cannot answer
# "who may read this type". Instead the module is installed into a scratch
# copy of Debian's module store (selinux-policy-default) with semodule's
# alternate root (-p): libsemanage links and expands every installed module
# plus ours into a complete policy.33, exactly as `semodule -i` would on a
# real host, without touching the host's store or loading anything (-n).
# sesearch then answers for the whole Debian policy: readers that come in
# through attributes (file_type, ...) show up with the attribute's name.
policy_bin=
if [ $have_pp -eq 1 ] && [ -d "$SE_STORE" ] && [ -d /etc/selinux/default ]; then
	root=$TMP/seroot
	mkdir -p "$root/var/lib/selinux" "$root/etc/selinux"
	cp -a "$SE_STORE" "$root/var/lib/selinux/"
	cp -a /etc/selinux/default /etc/selinux/semanage.conf "$root/etc/selinux/"
	if check "selinux module links into Debian's default policy" \
		semodule -p "$root" -s default -n -i "$TMP/policy/kvmprof.pp"; then
		policy_bin=$(ls "$root"/etc/selinux/default/policy/policy.* 2>/dev/null | tail -1)
	fi
else
	skip "selinux module links into Debian's default policy" \
		"no $SE_STORE (selinux-policy-default) or no module"
fi

# Source types or attributes of the allow rules that give PERM on CLASS of TYPE.
sources() {
	sesearch -A -t "$3" -c "$1" -p "$2" "$policy_bin" | awk '$1 == "allow" { print $2 }' |
		sort -u
}

# expect_sources NAME CLASS PERM TYPE SOURCE...: exactly these sources, no other.
expect_sources() {
	local name=$1 class=$2 perm=$3 type=$4 got want extra missing
	shift 4
	got=$(sources "$class" "$perm" "$type")
	want=$(printf '%s\n' "$@" | sort -u)
	extra=$(comm -23 <(echo "$got") <(echo "$want") | tr '\n' ' ')
	missing=$(comm -13 <(echo "$got") <(echo "$want") | tr '\n' ' ')
	if [ -z "$got" ] || [ -n "${extra// }" ] || [ -n "${missing// }" ]; then
		fail "$name"
		echo "#   unexpected: ${extra:-none}; missing: ${missing:-none}"
	else
		ok "$name"
	fi
}

# Who may read every file on the host anyway, and so these files too (the
# same domains may read /etc/shadow): unconfined domains (unconfined_t, the
# unconfined root login, init, dpkg, ...: the files_unconfined_type
# attribute), and the read-everything tools of the reference policy
# (backup, integrity checkers, quota), all through the file_type attribute.
# Deliberately absent: everything granted "non-security" or "non-auth" files
# (sysadm_t, rsync, samba and nfs exports, sosreport, ...).
READ_ALL_FILES=(files_unconfined_type aide_t amanda_t backup_t bacula_t quota_t samhain_t
	samhaind_t siggen_t tripwire_t)

if [ -n "$policy_bin" ]; then
	expect_sources "sesearch: only kvmprof_t and read-all-files domains read served files" \
		file read kvmprof_guest_artifact_t kvmprof_t "${READ_ALL_FILES[@]}"
	expect_sources "sesearch: same for open" \
		file open kvmprof_guest_artifact_t kvmprof_t "${READ_ALL_FILES[@]}"
	expect_sources "sesearch: only guestfs-mount and read-all-files domains read the cache" \
		file read kvmprof_cache_t kvmprof_mount_t "${READ_ALL_FILES[@]}"
	expect_sources "sesearch: only unconfined domains may write served files" \
		file write kvmprof_guest_artifact_t files_unconfined_type
	# mount_t (mount(8)), automount_t and virtd_lxc_t may mount any file_type.
	expect_sources "sesearch: only guestfs-mount and mount domains mount the served fs" \
		filesystem mount kvmprof_guest_artifact_t kvmprof_mount_t files_unconfined_type \
		mount_t automount_t virtd_lxc_t
	check "sesearch: served files may live on fuse (associate)" \
		grep -q "allow kvmprof_guest_artifact_t fusefs_t:filesystem associate;" \
			<(sesearch -A -s kvmprof_guest_artifact_t -t fusefs_t -c filesystem "$policy_bin")
	check "sesearch: guestfs-mount may relabel its fuse mount (context=)" \
		grep -q relabelfrom <(sesearch -A -s kvmprof_mount_t -t fusefs_t -c filesystem \
			"$policy_bin")
	check "sesearch: init starts guestfs-mount in kvmprof_mount_t" \
		grep -qx "type_transition init_t kvmprof_mount_exec_t:process kvmprof_mount_t;" \
			<(sesearch -T -s init_t -t kvmprof_mount_exec_t -c process "$policy_bin")
	check "file contexts: cache, mount point, daemon" grep -qE \
		'^/var/cache/kvmprof/guestfs-mount\(/\.\*\)\?.*kvmprof_cache_t' \
		"$root/etc/selinux/default/contexts/files/file_contexts"
else
	skip "sesearch checks" "no linked policy"
fi

# --- access policy: checker -------------------------------------------------

cat >"$TMP/apcheck.c" <<'EOF'
/* apcheck: answer access-policy questions through lib/policy/accesspolicy. */
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/accesspolicy.h"

static struct access_policy *load(const char *path)
{
	struct access_policy *p;
	struct kp_err err = { 0 };

	if (access_policy_load(path, &p, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		exit(2);
	}
	return p;
}

static enum artifact_kind kind_of(const char *name)
{
	enum artifact_kind k;

	if (artifact_kind_parse(name, &k)) {
		fprintf(stderr, "bad kind %s\n", name);
		exit(2);
	}
	return k;
}

int main(int argc, char **argv)
{
	struct access_policy *p;

	if (argc == 3 && !strcmp(argv[1], "load")) {
		access_policy_free(load(argv[2]));
		return 0;
	}
	/* allows FILE USER GUEST KIND [by-pid]: exit 0 allowed, 1 denied */
	if ((argc == 6 || argc == 7) && !strcmp(argv[1], "allows")) {
		struct passwd *pw = getpwnam(argv[3]);
		gid_t gids[256];
		int n = 256;
		bool ok;

		if (!pw || getgrouplist(argv[3], pw->pw_gid, gids, &n) < 0)
			return 2;
		p = load(argv[2]);
		ok = argc == 7 ? access_policy_allows_by_pid(p, pw->pw_uid, gids, (size_t)n,
							      argv[4], kind_of(argv[5]))
			       : access_policy_allows(p, pw->pw_uid, gids, (size_t)n, argv[4],
						      kind_of(argv[5]));
		access_policy_free(p);
		return ok ? 0 : 1;
	}
	/* perm FILE GUEST|- KIND|dir [by-pid]: "MODE GID exact|inexact" */
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "perm")) {
		const char *guest = strcmp(argv[3], "-") ? argv[3] : NULL;
		bool by_pid = argc == 6;
		struct artifact_perm perm;
		int ret;

		p = load(argv[2]);
		ret = !strcmp(argv[4], "dir")
			      ? access_policy_dir_perm(p, guest, by_pid, &perm)
			      : access_policy_file_perm(p, guest, kind_of(argv[4]), by_pid, &perm);
		access_policy_free(p);
		if (ret) {
			printf("error %d\n", ret);
			return 1;
		}
		printf("%04o %u %s\n", (unsigned)perm.mode, (unsigned)perm.gid,
		       perm.exact ? "exact" : "inexact");
		return 0;
	}
	fprintf(stderr, "usage\n");
	return 2;
}
EOF
APCHECK=$TMP/apcheck
if ! check "access policy checker builds against libkvmprof" \
	cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Ilib -o "$APCHECK" "$TMP/apcheck.c" \
		"$BUILD/libkvmprof.a"; then
	exit 1
fi

# --- access policy: real users and groups ------------------------------------

# Unique names, removed however the test ends.
made_users=() made_groups=()
cleanup() {
	local u g
	for u in "${made_users[@]}"; do userdel "$u" >/dev/null 2>&1; done
	for g in "${made_groups[@]}"; do groupdel "$g" >/dev/null 2>&1; done
	rm -rf "$TMP"
}
trap cleanup EXIT

if [ "$(id -u)" -ne 0 ]; then
	skip "access policy with real users" "needs root"
	exit 0
fi
# UA in GA; UB in GB; UC in neither; UD in both.
tag=kpt$$
if ! make_test_users "$tag"; then
	fail "create test users and groups"
	exit 1
fi

# The shipped example (group kvmprof: kallsyms and modules, not vmlinux or
# module files), with GA as kvmprof, plus grants that exercise the rest.
POL=$TMP/access.conf
{
	sed -n '/^expose/p' policy/access.conf | sed 's/^expose \*/expose web1 web2/'
	sed -n 's/^#   \(allow\|deny\)\( *\)group:kvmprof/\1\2group:'"$GA"'/p' policy/access.conf
	echo "allow group:$GB system-map guest=web1"
	echo "allow * version"
	echo "allow user:$UB config guest=web1"
	echo "allow group:$GB vmlinux guest=web2"
} >"$POL"
chmod 0644 "$POL"
check "shipped policy loads" "$APCHECK" load policy/access.conf
check "test policy loads" "$APCHECK" load "$POL"
check "test policy carries the shipped example" grep -q "^deny  group:$GA vmlinux,module-files" "$POL"

# decide NAME USER GUEST KIND [by-pid] allow|deny
decide() {
	local name=$1 user=$2 guest=$3 kind=$4 want=${!#} got rc
	local args=("$user" "$guest" "$kind")
	[ $# -eq 6 ] && args+=(by-pid)
	"$APCHECK" allows "$POL" "${args[@]}"
	rc=$?
	got=$([ $rc -eq 0 ] && echo allow || echo deny)
	[ $rc -le 1 ] && [ "$got" = "$want" ] && ok "$name" ||
		fail "$name (policy says $got, status $rc)"
}

decide "policy: kvmprof-like group reads kallsyms" "$UA" web1 kallsyms allow
decide "policy: kvmprof-like group reads modules" "$UA" web2 modules allow
decide "policy: kvmprof-like group reads kallsyms through by-pid" "$UA" web1 kallsyms by-pid allow
decide "policy: kvmprof-like group may not read vmlinux" "$UA" web1 vmlinux deny
decide "policy: kvmprof-like group may not read module files" "$UA" web1 module-files deny
decide "policy: kvmprof-like group may not read System.map" "$UA" web1 system-map deny
decide "policy: non-member may not read kallsyms" "$UC" web1 kallsyms deny
decide "policy: everyone reads version" "$UC" web2 version allow
decide "policy: group grant scoped to web1" "$UB" web1 system-map allow
decide "policy: group grant not valid for web2" "$UB" web2 system-map deny
decide "policy: user grant" "$UB" web1 config allow
decide "policy: user grant is that user's only" "$UD" web1 config deny
decide "policy: group grant for vmlinux" "$UB" web2 vmlinux allow
decide "policy: deny of one group beats allow of another" "$UD" web2 vmlinux deny
decide "policy: unexposed guest denied" "$UA" web3 kallsyms deny
decide "policy: unexposed guest denied to root" root web3 kallsyms deny
decide "policy: root reads everything of exposed guests" root web1 vmlinux allow

# --- the kernel enforces the computed modes -----------------------------------

# A tree shaped like the mount, every node with the owner, group and mode
# apcheck computes. Reached through $TMP, which others may only traverse.
chmod 0711 "$TMP"
M=$TMP/mnt
FILES=()	# "path guest kind [by-pid]"

# place PATH dir|file GUEST|- KIND|dir [by-pid]
place() {
	local path=$1 what=$2 out mode gid
	shift 2
	out=$("$APCHECK" perm "$POL" "$@") || { fail "perm for $path: $out"; return 1; }
	read -r mode gid _ <<<"$out"
	if [ "$what" = dir ]; then mkdir -p "$path"; else echo data >"$path"; fi
	chown "0:$gid" "$path" && chmod "$mode" "$path"
}
# Module-file folders take the module-files file mode plus search bits.
dirmode() {
	local out mode gid
	out=$("$APCHECK" perm "$POL" "$1" module-files) || return 1
	read -r mode gid _ <<<"$out"
	printf '%o %s\n' $((0$mode | ((0$mode & 0444) >> 2))) "$gid"
}

place "$M" dir - dir
for g in web1 web2; do
	place "$M/$g" dir "$g" dir
	for k in kallsyms:kallsyms System.map:system-map vmlinux:vmlinux modules:modules \
		config:config version:version build-id:build-id info:info; do
		place "$M/$g/${k%%:*}" file "$g" "${k#*:}" && FILES+=("$M/$g/${k%%:*} $g ${k#*:}")
	done
	read -r dmode dgid < <(dirmode "$g")
	for d in lib lib/modules lib/modules/6.1.0 lib/modules/6.1.0/kernel; do
		mkdir -p "$M/$g/$d" && chown "0:$dgid" "$M/$g/$d" && chmod "$dmode" "$M/$g/$d"
	done
	place "$M/$g/lib/modules/6.1.0/kernel/virtio.ko" file "$g" module-files &&
		FILES+=("$M/$g/lib/modules/6.1.0/kernel/virtio.ko $g module-files")
done
place "$M/by-pid" dir - dir by-pid
place "$M/by-pid/4242" dir web1 dir by-pid
place "$M/by-pid/4242/proc" dir web1 dir by-pid
for k in kallsyms modules version; do
	place "$M/by-pid/4242/proc/$k" file web1 "$k" by-pid &&
		FILES+=("$M/by-pid/4242/proc/$k web1 $k by-pid")
done

check "example: kallsyms is 0440 root:$GA" \
	test "$(stat -c '%a %U %G' "$M/web1/kallsyms")" = "440 root $GA"
check "example: vmlinux is 0400 root:root" \
	test "$(stat -c '%a %U %G' "$M/web1/vmlinux")" = "400 root root"
check "example: module files are 0400 root:root" \
	test "$(stat -c '%a %U %G' "$M/web1/lib/modules/6.1.0/kernel/virtio.ko")" = "400 root root"
check "example: guest folder listable by all (version is for everyone)" \
	test "$(stat -c '%a %U %G' "$M/web1")" = "555 root root"
# by-pid needs $GA, System.map $GB: folders holding both are searchable by
# anyone and listable by root only; files keep their own exact modes.
check "example: by-pid folders with mixed readers are 0511 root:root" \
	test "$(stat -c '%a %U %G' "$M/by-pid/4242/proc")" = "511 root root"
check "example: by-pid kallsyms is 0440 root:$GA" \
	test "$(stat -c '%a %U %G' "$M/by-pid/4242/proc/kallsyms")" = "440 root $GA"
check "unexposed guest has no permissions" \
	grep -q "^error -2" <("$APCHECK" perm "$POL" web3 kallsyms)

# For every user and file: what the kernel lets the user read must be what the
# policy allows when the modes express it exactly, and never more otherwise.
mismatch=0 more=0 exact_n=0 inexact_n=0 denied_inexact=0
for user in "$UA" "$UB" "$UC" "$UD"; do
	for entry in "${FILES[@]}"; do
		read -r path guest kind bypid <<<"$entry"
		"$APCHECK" allows "$POL" "$user" "$guest" "$kind" $bypid && policy=1 || policy=0
		setpriv --reuid="$user" --regid=nogroup --init-groups cat "$path" >/dev/null 2>&1 &&
			kernel=1 || kernel=0
		read -r _ _ exact < <("$APCHECK" perm "$POL" "$guest" "$kind" $bypid)
		if [ "$exact" = exact ]; then
			exact_n=$((exact_n + 1))
			if [ $policy -ne $kernel ]; then
				mismatch=$((mismatch + 1))
				echo "#   $user $path: policy $policy, kernel $kernel"
			fi
		else
			inexact_n=$((inexact_n + 1))
			[ $policy -eq 1 ] && [ $kernel -eq 0 ] && denied_inexact=$((denied_inexact + 1))
			if [ $kernel -eq 1 ] && [ $policy -eq 0 ]; then
				more=$((more + 1))
				echo "#   $user $path: kernel grants what the policy denies"
			fi
		fi
	done
done
check "kernel enforces the policy on exactly expressible files ($exact_n checks)" \
	test $mismatch -eq 0 -a $exact_n -gt 0
check "kernel never grants more than the policy ($inexact_n inexact checks)" \
	test $more -eq 0 -a $inexact_n -gt 0
check "inexact grants fail closed (user grant, deny exceptions: $denied_inexact refused)" \
	test $denied_inexact -gt 0
check "root reads a root-only file" cat "$M/web1/vmlinux"
check "kvmprof-like group member reads kallsyms as itself" \
	setpriv --reuid="$UA" --regid=nogroup --init-groups cat "$M/by-pid/4242/proc/kallsyms"
expect_fail "kvmprof-like group member cannot read vmlinux" "Permission denied" \
	setpriv --reuid="$UA" --regid=nogroup --init-groups cat "$M/web1/vmlinux"
expect_fail "kvmprof-like group member cannot read module files" "Permission denied" \
	setpriv --reuid="$UA" --regid=nogroup --init-groups \
		cat "$M/web1/lib/modules/6.1.0/kernel/virtio.ko"

# --- malformed policies -------------------------------------------------------

# bad NAME LINE PATTERN TEXT: loading TEXT fails with "FILE:LINE: ...PATTERN".
bad() {
	local name=$1 line=$2 pattern=$3 f=$TMP/bad-$RANDOM.conf
	printf '%b' "$4" >"$f"
	chmod 0644 "$f"
	expect_fail "$name" "^$f:$line: .*$pattern" "$APCHECK" load "$f"
}
bad "error: unknown directive names file:line" 3 "unknown directive 'permit'" \
	"expose *\n# c\npermit group:$GA kallsyms\n"
bad "error: unknown option names file:line" 2 "unknown option 'host'" \
	"expose *\nallow group:$GA kallsyms host=web1\n"
bad "error: unknown kind names file:line" 4 "unknown kind 'symbols'" \
	"expose *\n\n\nallow group:$GA kallsyms,symbols\n"
bad "error: unknown group names file:line" 2 "unknown group '${tag}zz'" \
	"expose *\nallow group:${tag}zz kallsyms\n"
bad "error: unknown user names file:line" 2 "unknown user '${tag}zz'" \
	"expose *\ndeny user:${tag}zz vmlinux\n"
bad "error: missing kinds names file:line" 2 "needs a subject and kinds" \
	"expose *\nallow group:$GA\n"
bad "error: rule for an unexposed guest names file:line" 2 "not exposed" \
	"expose web1\nallow group:$GA kallsyms guest=web2\n"
f=$TMP/noexpose.conf
printf 'allow group:%s kallsyms\n' "$GA" >"$f"
expect_fail "error: no expose line" "no 'expose' line" "$APCHECK" load "$f"
chmod 0666 "$POL"
expect_fail "error: policy writable by others is refused" "fix with chmod go-w" \
	"$APCHECK" load "$POL"
chmod 0644 "$POL"
groupdel "$GB" && made_groups=("$GA")
expect_fail "error: a group deleted since is refused at load" \
	"^$POL:[0-9]+: unknown group '$GB'" "$APCHECK" load "$POL"
