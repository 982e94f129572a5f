#!/bin/bash
# test-lane: disk-images (tests/run-tests.sh)
# guestfs-mount with real components: disk images built by
# tests/data-builders/guest-images.sh (real Debian kernel packages and the
# project's kernel), the real libguestfs appliance, a real FUSE mount, real
# QEMU processes for the by-pid view.
#
#   phase 1  cold start, one shared appliance launch: files checked against
#            the packages, access rules, labels, bad inputs, by-pid
#   phase 2  restart with one more (truncated) disk and a touched image,
#            per-guest appliances: the rest is served from the cache
#   phase 3  restart: everything from the cache, no appliance at all
#   phase 4  restart with an access policy (policy/access.conf format) and
#            real users and groups: what each may see and read, SIGHUP reload
#   phase 5  fresh caches under small copy limits
. "$(dirname "$0")/../lib.sh"
. "$REPO/tests/gm-daemon.sh"

MNT=$TMP/mnt
CACHE=$TMP/cache
DISKS=$TMP/disks
DPID=
QPIDS=()
made_users=() made_groups=()

cleanup() {
	local p u g
	for p in "${QPIDS[@]}"; do
		kill "$p" 2>/dev/null
	done
	for u in "${made_users[@]}"; do userdel "$u" >/dev/null 2>&1; done
	for g in "${made_groups[@]}"; do groupdel "$g" >/dev/null 2>&1; done
	if [ -n "$DPID" ]; then
		kill -TERM "$DPID" 2>/dev/null
		wait "$DPID" 2>/dev/null
	fi
	if mountpoint -q "$MNT" 2>/dev/null; then
		fusermount3 -u "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null
	fi
	# The daemon's own logs, next to this test's.
	for l in "$TMP"/log[0-9]; do
		[ -f "$l" ] && cp "$l" "$BUILD/test-logs/30-guestfs-mount-daemon-${l##*/}.log" 2>/dev/null
	done
	rm -rf "$TMP"
}
trap cleanup EXIT

need() {
	fail "guestfs-mount integration: $1"
	exit 1
}
gm_prereqs "guestfs-mount integration"

t0=$SECONDS
if ! IMG=$("$REPO/tests/data-builders/guest-images.sh" 2>"$TMP/images.err"); then
	fail "test disk images built (tests/data-builders/guest-images.sh)"
	tail -5 "$TMP/images.err" | sed 's/^/#   /'
	exit 1
fi
ok "test disk images available ($((SECONDS - t0)) s)"
input() { awk -v k="$1" '$1 == k { print $2; exit }' "$IMG/inputs"; }
V61=$(input v61) V612=$(input v612) PVER=$(input pver)
K61=$(input k61) K612=$(input k612) PDIR=$(input pdir)

mkdir -p "$MNT" "$DISKS"
ln -s "$IMG/sysmap.raw" "$DISKS/raw-as-qcow2"
cp "$IMG/nokernel.qcow2" "$DISKS/nokernel.qcow2"
head -c 1M "$IMG/trunc-src.qcow2" >"$DISKS/trunc.qcow2"
head -c 8M "$IMG/deb-1part.raw" >"$DISKS/trunc.raw"
# What a hostile guest can write to the start of its raw disk: a qcow2 header
# whose backing file is a host file (here another guest's image, with an OS).
qemu-img create -q -f qcow2 -b "$IMG/sysmap.raw" -F raw "$DISKS/evil.raw"
# A qcow2 whose backing file has no recorded format (older qemu-img made
# these; today's refuses, so the header extension is blanked): QEMU would
# probe the backing file's format.
qemu-img create -q -f qcow2 -b "$IMG/sysmap.raw" -F raw "$DISKS/nobackfmt.qcow2"
perl -0777 -pi -e 's/\xe2\x79\x2a\xca/\x00\x00\x00\x00/' "$DISKS/nobackfmt.qcow2"
# qcow2 chains reach only files in allow-backing folders ($DISKS/base): a
# host secret as backing file, a data file elsewhere, and an allowed chain.
mkdir -p "$DISKS/base" "$DISKS/outside"
qemu-img create -q -f qcow2 -u -b /etc/shadow -F raw "$DISKS/backshadow.qcow2" 1M
qemu-img create -q -f qcow2 -o data_file="$DISKS/outside/d.raw" "$DISKS/datafile.qcow2" 8M
truncate -s 8M "$DISKS/base/blank.raw"
qemu-img create -q -f qcow2 -b "$DISKS/base/blank.raw" -F raw "$DISKS/backok.qcow2"
mkdir -p "$BUILD/test-logs"

KALLSYMS_LABEL=system_u:object_r:kvmprof_guest_kallsyms_t:s0
DEFAULT_LABEL=system_u:object_r:kvmprof_guest_artifact_t:s0
write_config() {
	cat <<-EOF
	# guestfs-mount test configuration
	appliance $1
	label kallsyms $KALLSYMS_LABEL
	kvm-debugfs $KVMDBG
	allow-backing $DISKS/base

	guest deb2p
	    disk qcow2 $IMG/deb-2part.qcow2
	guest deb1p
	    disk raw $IMG/deb-1part.raw
	    kernel $V61
	guest sysmap
	    disk raw $IMG/sysmap.raw
	guest debug
	    disk qcow2 $IMG/debug.qcow2
	guest noos
	    disk raw $IMG/noos.raw
	guest nokernel
	    disk qcow2 $DISKS/nokernel.qcow2
	guest missing
	    disk raw $DISKS/missing.img
	guest wrongfmt
	    disk qcow2 $DISKS/raw-as-qcow2
	guest nobackfmt
	    disk qcow2 $DISKS/nobackfmt.qcow2
	guest truncq
	    disk qcow2 $DISKS/trunc.qcow2
	guest evil
	    disk raw $DISKS/evil.raw
	guest backshadow
	    disk qcow2 $DISKS/backshadow.qcow2
	guest datafile
	    disk qcow2 $DISKS/datafile.qcow2
	guest backok
	    disk qcow2 $DISKS/backok.qcow2
	guest bls
	    disk qcow2 $IMG/bls.qcow2
	EOF
}
# Laid out as the kernel series' per-vCPU debugfs files (lib/guest/kvmdebugfs.h);
# the real files are read in the patched kernel by 45-debian-guest.
KVMDBG=$TMP/kvmdbg
mkdir -p "$KVMDBG"
write_config shared >"$TMP/phase1.conf"

# --- configuration checks ------------------------------------------------------------

check "--check accepts the test configuration" "$GUESTFS_MOUNT" --check "$TMP/phase1.conf"
printf 'guest a\n  disk raw /a.img\n  disk vmdk /b.img\n' >"$TMP/bad.conf"
expect_fail "--check names file:line of a bad disk format" "bad.conf:3: .*raw or qcow2" \
	"$GUESTFS_MOUNT" --check "$TMP/bad.conf"
printf 'guest ../x\n  disk raw /a.img\n' >"$TMP/bad2.conf"
expect_fail "--check refuses an invalid guest name" "bad2.conf:1: invalid guest name" \
	"$GUESTFS_MOUNT" --check "$TMP/bad2.conf"
expect_fail "a config error stops the daemon before mounting" "bad.conf:3:" \
	"$GUESTFS_MOUNT" -f -c "$TMP/bad.conf" --cache "$CACHE" "$MNT"
expect_fail "non-root users cannot start it" "must run as root" \
	setpriv --reuid=65534 --regid=65534 --clear-groups "$GUESTFS_MOUNT" -f \
	-c "$TMP/phase1.conf" --cache "$TMP/nobody-cache" "$TMP/nobody-mnt"

# --- phase 1: cold --------------------------------------------------------------------


# Every mount on the host, to show afterwards that inspection added none.
mounts() { findmnt -rn -o TARGET,FSTYPE,SOURCE | sort; }
mounts >"$TMP/mounts.before"
LOG=$TMP/log1
t_start=$(now)
if ! start_daemon "$TMP/phase1.conf" "$TMP/log1"; then
	fail "daemon mounts $MNT"
	sed 's/^/#   /' "$TMP/log1" | tail -20
	exit 1
fi
ok "daemon mounts (in $(elapsed "$t_start" "$(now)") s)"
check "mount is FUSE, read-only, default_permissions, allow_other" \
	grep -qE " $MNT fuse\.kvmprof ro,.*default_permissions,allow_other" /proc/mounts
check "guests are listed before inspection ends" \
	bash -c "ls '$MNT' | tr '\n' ' ' | grep -q '^backok backshadow bls by-pid datafile deb1p deb2p debug evil missing nobackfmt nokernel noos sysmap truncq wrongfmt \$'"
check "info answers at once during the inspection" grep -qE '^state: (pending|inspecting)' "$MNT/deb2p/info"
head -c 1 "$MNT/deb2p/kallsyms" >/dev/null
t_first=$(now)
echo "# cold start to first byte of deb2p/kallsyms: $(elapsed "$t_start" "$t_first") s"
grep -E 'appliance up|inspection found|ready:' "$TMP/log1" | sed 's/^/# /'

# Wait for the other guests (reading any file of a guest waits for its inspection).
for g in deb1p sysmap debug noos nokernel missing wrongfmt nobackfmt truncq backshadow \
	datafile backok bls; do
	ls "$MNT/$g/" >/dev/null 2>&1
done
ls "$MNT/evil/" >/dev/null 2>&1
check "exactly one appliance launch for all guests" \
	test "$(grep -c 'launching the libguestfs appliance' "$TMP/log1")" = 1
cpus=$(($(nproc) < 2 ? $(nproc) : 2))
check "the appliance launched with appliance-cpus' default ($cpus vCPUs here)" \
	grep -q "appliance up in .* ($cpus vCPUs\?)" "$TMP/log1"

# deb2p: two partitions, two Debian kernels, placeholder System.map.
info=$MNT/deb2p/info
check "deb2p: ready" grep -qx 'state: ready' "$info"
check "deb2p: distro, hostname and arch from inspection" \
	bash -c "grep -qx 'distro: debian' '$info' && grep -qx 'hostname: deb2p' '$info' && grep -qx 'arch: x86_64' '$info'"
check "deb2p: / and /boot mounted (two partitions)" \
	bash -c "grep -q 'on /\$' '$info' && grep -q 'on /boot\$' '$info'"
check "deb2p: both kernels found" grep -qx "kernels: $V612 $V61" "$info"
check "deb2p: newest kernel is the default" grep -qx "kernel: $V612 (newest)" "$info"
check "deb2p: symbols decoded from vmlinuz" grep -q "^symbols: kallsyms tables decoded from /boot/vmlinuz-$V612" "$info"
check "deb2p: info.json is JSON with the same default kernel" \
	test "$(jq -r .kernel "$MNT/deb2p/info.json")" = "$V612"
check "deb2p: info.json lists both kernels" \
	test "$(jq '.kernels | length' "$MNT/deb2p/info.json")" = 2
"$KVMPROF" symbols "$K612/boot/vmlinuz-$V612" >"$TMP/ref612"
"$KVMPROF" symbols "$K61/boot/vmlinuz-$V61" >"$TMP/ref61"
check "deb2p: kallsyms == kvmprof symbols of the package's vmlinuz ($V612)" cmp "$TMP/ref612" "$MNT/deb2p/kallsyms"
check "deb2p: kernels/$V61/kallsyms == kvmprof symbols of its vmlinuz" cmp "$TMP/ref61" "$MNT/deb2p/kernels/$V61/kallsyms"
check "deb2p: System.map made from the same symbols (placeholder replaced)" cmp "$TMP/ref612" "$MNT/deb2p/System.map"
# The symbol cache keeps big kallsyms text, but never a served file's: the
# daemon makes it afresh when the guest changes, under times of its own.
# The same text copied to a regular file is cached (the check means something).
sc=$TMP/served-symcache
KVMPROF_SYMBOL_CACHE=$sc "$KVMPROF" symbols "$MNT/deb2p/kallsyms" >"$TMP/served.txt"
check "deb2p: the served kallsyms read as a symbol source, and not cached" \
	bash -c "cmp -s '$TMP/served.txt' '$TMP/ref612' && ! ls '$sc'/*.ksym >/dev/null 2>&1"
cp "$MNT/deb2p/kallsyms" "$TMP/copied-kallsyms"
KVMPROF_SYMBOL_CACHE=$sc "$KVMPROF" symbols "$TMP/copied-kallsyms" >/dev/null
KVMPROF_SYMBOL_CACHE=$sc "$KVMPROF" symbols "$TMP/copied-kallsyms" >"$TMP/copied.txt"
check "deb2p: a copy of it in a regular file is cached, and reads the same from there" \
	bash -c "test \$(ls '$sc'/*.ksym | wc -l) = 1 && cmp -s '$TMP/copied.txt' '$TMP/ref612'"
check "deb2p: config == the package's" cmp "$K612/boot/config-$V612" "$MNT/deb2p/config"
check "deb2p: config-$V61 read through an absolute symlink resolved in the guest" \
	cmp "$K61/boot/config-$V61" "$MNT/deb2p/kernels/$V61/config"
check "deb2p: vmlinuz == the package's" cmp "$K612/boot/vmlinuz-$V612" "$MNT/deb2p/kernels/$V612/vmlinuz"
check "deb2p: version is the kernel's banner" \
	bash -c "grep -qF 'Linux version $V612 (' '$MNT/deb2p/version' && grep -q ') #1 SMP' '$MNT/deb2p/version'"
bid=$("$KVMPROF" symbols --info "$K612/boot/vmlinuz-$V612" | awk '$1 == "build-id:" { print $2 }')
check "deb2p: build-id == kvmprof's ($bid)" test "$(cat "$MNT/deb2p/build-id")" = "$bid"
check "deb2p: vmlinux is the kernel ELF with that build-id" \
	bash -c "'$KVMPROF' symbols --info '$MNT/deb2p/vmlinux' | grep -qx 'build-id: $bid'"
check "deb2p: vmlinux symbols == vmlinuz symbols" \
	bash -c "'$KVMPROF' symbols '$MNT/deb2p/vmlinux' | cmp -s - '$TMP/ref612'"
mods=$MNT/deb2p/modules
check "deb2p: modules lists kvm with its size, address 0" \
	grep -qE '^kvm [1-9][0-9]+ 0 - Live 0x0000000000000000$' "$mods"
check "deb2p: modules lists every module of the tree (9)" test "$(wc -l <"$mods")" = 9
kvmko=kernel/arch/x86/kvm/kvm.ko
check "deb2p: lib/modules/$V612/$kvmko is the .ko.xz decompressed" \
	bash -c "xz -dc '$K612/lib/modules/$V612/$kvmko.xz' | cmp -s - '$MNT/deb2p/lib/modules/$V612/$kvmko'"
check "deb2p: no .xz names in the module tree" \
	bash -c "! find '$MNT/deb2p/lib/modules/$V612' -name '*.xz' | grep -q ."
check "deb2p: lib/modules/$V61/$kvmko (plain .ko) == the package's" \
	cmp "$K61/lib/modules/$V61/$kvmko" "$MNT/deb2p/lib/modules/$V61/$kvmko"
check "deb2p: modules.order copied" cmp "$K612/lib/modules/$V612/modules.order" "$MNT/deb2p/lib/modules/$V612/modules.order"
check "deb2p: the guest's 'build' symlink is not followed or served" test ! -e "$MNT/deb2p/lib/modules/$V612/build"

# deb1p: one partition, configured (older) kernel.
check "deb1p: ready, configured kernel chosen" grep -qx "kernel: $V61 (configured)" "$MNT/deb1p/info"
check "deb1p: kallsyms == the $V61 vmlinuz symbols" cmp "$TMP/ref61" "$MNT/deb1p/kallsyms"
check "deb1p: version names $V61" grep -q "^Linux version $V61 " "$MNT/deb1p/version"

# bls: Fedora's layout. grub.cfg only runs blscfg; the BLS entries in
# /boot/loader/entries make the menu, and grubenv's saved_entry names the
# older kernel's entry, so without reading them the newest kernel would win.
check "bls: distro fedora, / and /boot mounted" \
	bash -c "grep -qx 'distro: fedora' '$MNT/bls/info' && grep -q 'on /boot\$' '$MNT/bls/info'"
check "bls: the saved BLS entry's kernel is chosen" grep -qx "kernel: $V61 (bootloader default)" "$MNT/bls/info"
check "bls: kallsyms == the $V61 vmlinuz symbols" cmp "$TMP/ref61" "$MNT/bls/kallsyms"

# sysmap: a real System.map is the symbol source and is served as is.
check "sysmap: symbols from the real System.map" grep -q "^symbols: /boot/System.map-$PVER" "$MNT/sysmap/info"
check "sysmap: System.map == the project kernel's" cmp "$PDIR/System.map" "$MNT/sysmap/System.map"
check "sysmap: kallsyms == kvmprof symbols of that System.map" \
	bash -c "'$KVMPROF' symbols '$PDIR/System.map' | cmp -s - '$MNT/sysmap/kallsyms'"

# debug: a debug vmlinux wins over everything.
check "debug: symbols from the debug vmlinux" grep -q '^symbols: debug vmlinux' "$MNT/debug/info"
check "debug: vmlinux == the debug vmlinux" cmp "$PDIR/vmlinux" "$MNT/debug/vmlinux"
check "debug: kallsyms == kvmprof symbols of the vmlinux" \
	bash -c "'$KVMPROF' symbols '$PDIR/vmlinux' | cmp -s - '$MNT/debug/kallsyms'"
check "debug: the placeholder System.map was recognised" grep -q 'System.map(placeholder)' "$MNT/debug/info"

# Bad inputs: each a clear per-guest error, the others unaffected.
guest_error() {
	local g=$1 pattern=$2
	grep -qx 'state: error' "$MNT/$g/info" && grep -qE "^error: .*$pattern" "$MNT/$g/info" &&
		[ "$(ls "$MNT/$g" | tr '\n' ' ')" = "info info.json " ] &&
		[ "$(jq -r .state "$MNT/$g/info.json")" = error ] &&
		grep -qE "$g: error: .*$pattern" "$LOG"
}
check "noos: error 'no operating system'" guest_error noos "no operating system found"
check "nokernel: error 'no kernel installed'" guest_error nokernel "no kernel installed"
check "missing: error names the missing disk" guest_error missing "disk $DISKS/missing.img: No such file"
check "wrongfmt: a raw file configured as qcow2 is refused before launch" guest_error wrongfmt "no qcow2 header"
check "nobackfmt: a backing file without a recorded format is refused" \
	guest_error nobackfmt "a backing file has no recorded format"
check "nobackfmt: refused before any appliance saw it" \
	bash -c "! grep -q 'nobackfmt.*launching\|nobackfmt: ready' '$LOG'"
check "backshadow: a backing file outside every allow-backing folder (/etc/shadow) is refused" \
	guest_error backshadow "backing file /etc/shadow is outside every allow-backing folder"
check "datafile: a data file outside every allow-backing folder is refused" \
	guest_error datafile "data file $DISKS/outside/d.raw is outside every allow-backing folder"
check "backshadow, datafile: refused before any appliance saw them" \
	bash -c "! grep -q 'backshadow.*launching\|backshadow: ready\|datafile.*launching\|datafile: ready' '$LOG'"
check "backok: a backing file in an allow-backing folder is inspected" \
	guest_error backok "no operating system"
check "inspection mounted nothing on the host (only the FUSE mount is new)" \
	bash -c "mounts() { findmnt -rn -o TARGET,FSTYPE,SOURCE | sort; }
		 [ \"\$(comm -13 '$TMP/mounts.before' <(mounts))\" = '$MNT fuse.kvmprof guestfs-mount' ]"
check "no loop or nbd device holds a test image" \
	bash -c "! losetup -a 2>/dev/null | grep -qF '$IMG' && ! grep -qs . /sys/block/nbd*/pid"
check "evil: a raw disk starting with a qcow2 header naming a host file is read as raw" \
	guest_error evil "no operating system.*starts like a qcow2 image"
check "evil: nothing of the host file it names is served" \
	bash -c "! grep -rqF '$PVER' '$MNT/evil/'"
check "truncq: a truncated qcow2 image: no OS" guest_error truncq "no operating system"

# Access: root only, read only, labelled.
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
expect_fail "nobody cannot read kallsyms (EACCES)" "Permission denied" nobody cat "$MNT/deb2p/kallsyms"
expect_fail "nobody cannot list the mount (EACCES)" "Permission denied" nobody ls "$MNT"
expect_fail "nobody cannot read labels (EACCES)" "Permission denied" \
	nobody getfattr -n security.selinux "$MNT/deb2p/kallsyms"
check "files are 0400 root:root" test "$(stat -c '%a %U %G' "$MNT/deb2p/kallsyms")" = "400 root root"
check "folders are 0500 root:root" test "$(stat -c '%a %U %G' "$MNT/deb2p/kernels")" = "500 root root"
check "mount root is 0500 root:root" test "$(stat -c '%a %U %G' "$MNT")" = "500 root root"
expect_fail "root: create a file -> EROFS" "Read-only file system" touch "$MNT/deb2p/new"
expect_fail "root: write kallsyms -> EROFS" "Read-only file system" bash -c "echo x >>'$MNT/deb2p/kallsyms'"
expect_fail "root: truncate -> EROFS" "Read-only file system" truncate -s 0 "$MNT/deb2p/kallsyms"
expect_fail "root: mkdir -> EROFS" "Read-only file system" mkdir "$MNT/deb2p/d"
expect_fail "root: unlink -> EROFS" "Read-only file system" rm -f "$MNT/deb2p/kallsyms"
expect_fail "root: rename -> EROFS" "Read-only file system" mv "$MNT/deb2p/kallsyms" "$MNT/deb2p/k"
expect_fail "root: chmod -> EROFS" "Read-only file system" chmod 0644 "$MNT/deb2p/kallsyms"
expect_fail "root: touch (setattr) -> EROFS" "Read-only file system" touch "$MNT/deb2p/kallsyms"
expect_fail "root: setfattr -> EROFS" "Read-only file system" setfattr -n security.selinux -v x "$MNT/deb2p/kallsyms"
label() { getfattr --only-values -n security.selinux "$1" 2>/dev/null | tr -d '\0'; }
check "kallsyms carries the configured kallsyms label" test "$(label "$MNT/deb2p/kallsyms")" = "$KALLSYMS_LABEL"
check "by default files carry $DEFAULT_LABEL" test "$(label "$MNT/deb2p/config")" = "$DEFAULT_LABEL"
check "folders and module files are labelled too" \
	bash -c "[ \"\$(getfattr --only-values -n security.selinux '$MNT/deb2p/lib' | tr -d '\0')\" = '$DEFAULT_LABEL' ] &&
		 [ \"\$(getfattr --only-values -n security.selinux '$MNT/deb2p/lib/modules/$V612/$kvmko' | tr -d '\0')\" = '$DEFAULT_LABEL' ]"
check "listxattr shows security.selinux" bash -c "getfattr -m - '$MNT/deb1p/vmlinux' | grep -qx security.selinux"

# Warm reads straight from the cache.
t=$(now)
md5sum "$MNT/deb2p/kallsyms" "$MNT/deb2p/vmlinux" >/dev/null
echo "# warm read of kallsyms + vmlinux ($(($(stat -c %s "$MNT/deb2p/kallsyms") + $(stat -c %s "$MNT/deb2p/vmlinux"))) bytes): $(elapsed "$t" "$(now)") s"

# by-pid: a paused QEMU holding deb2p's disk (matched by the open file) and
# one named deb1p with no disk (matched by -name).
qemu-system-x86_64 -S -display none -nodefaults -machine accel=tcg -m 32 \
	-drive "file=$IMG/deb-2part.qcow2,format=qcow2,readonly=on,if=virtio" \
	-daemonize -pidfile "$TMP/q1.pid" >/dev/null 2>&1
qemu-system-x86_64 -S -display none -nodefaults -machine accel=tcg -m 32 \
	-name guest=deb1p,debug-threads=on -daemonize -pidfile "$TMP/q2.pid" >/dev/null 2>&1
P1=$(cat "$TMP/q1.pid" 2>/dev/null) P2=$(cat "$TMP/q2.pid" 2>/dev/null)
QPIDS=("$P1" "$P2")
check "two QEMU processes started" test -n "$P1" -a -n "$P2"
sleep 1.1 # the by-pid listing is cached for a second
check "by-pid lists both QEMU pids" \
	bash -c "ls '$MNT/by-pid' | grep -qx '$P1' && ls '$MNT/by-pid' | grep -qx '$P2'"
check "by-pid/$P1 (disk held open) proc/kallsyms == deb2p/kallsyms" cmp "$MNT/deb2p/kallsyms" "$MNT/by-pid/$P1/proc/kallsyms"
check "by-pid/$P1 proc/modules and proc/version are deb2p's" \
	bash -c "cmp -s '$MNT/deb2p/modules' '$MNT/by-pid/$P1/proc/modules' && cmp -s '$MNT/deb2p/version' '$MNT/by-pid/$P1/proc/version'"
check "by-pid/$P1 sys/kernel/notes holds the build-id note" \
	bash -c "od -An -tx1 -v '$MNT/by-pid/$P1/sys/kernel/notes' | tr -d ' \n' | grep -q '474e5500${bid}'"
check "by-pid/$P1 lib/modules/$V612/$kvmko is there" test -s "$MNT/by-pid/$P1/lib/modules/$V612/$kvmko"
check "by-pid/$P2 (-name deb1p) proc/version names $V61" grep -q "^Linux version $V61 " "$MNT/by-pid/$P2/proc/version"
check "by-pid/<not qemu> does not exist" test ! -e "$MNT/by-pid/$$"

# Any local user can start a QEMU saying -name deb1p: without deb1p's disk
# and not running as root or the QEMU user, it is not deb1p.
# (setpriv execs QEMU: same pid. nobody may not write a pidfile in $TMP.)
setpriv --reuid=65534 --regid=65534 --clear-groups qemu-system-x86_64 -S -display none \
	-nodefaults -machine accel=tcg -m 32 -name guest=deb1p >/dev/null 2>&1 &
PF=$!
QPIDS+=("$PF")
sleep 1.1
check "untrusted QEMU: nobody's -name deb1p is not in by-pid" \
	bash -c "[ -n '$PF' ] && ! ls '$MNT/by-pid' | grep -qx '$PF' && [ ! -e '$MNT/by-pid/$PF' ]"
check "untrusted QEMU: deb1p's info still names the trusted QEMU" \
	grep -q "running: qemu pid $P2" "$MNT/deb1p/info"
sleep 1.1
check "untrusted QEMU: the log says once that its -name is ignored" \
	bash -c "[ \$(grep -c 'QEMU process $PF runs as uid 65534.*-name deb1p is ignored' '$LOG') -eq 1 ]"
kill "$PF" 2>/dev/null

# A running guest's slide from its LSTAR (the kernel series' debugfs files):
# P1 runs deb2p; its vCPU 1 reports entry_SYSCALL_64 moved by 0x2a400000.
# Expected files are made here with perl from the link-time kallsyms: kernel
# addresses (top 2 GiB) move, per-CPU offsets and zeros stay.
relocate() { perl -Mbigint -ne 'if (/^([0-9a-f]{16}) (.*)$/s) { my $a = hex("0x$1");
	$a += hex("'"$2"'") if $a >= hex("0xffffffff80000000");
	printf("%016s %s", substr($a->as_hex(), 2), $2) } else { print }' "$1"; }
link_addr() { awk -v s="$2" '$3 == s { print $1; exit }' "$1"; }
SLIDE=0x2a400000
E612=$(link_addr "$TMP/ref612" entry_SYSCALL_64)
LSTAR=$(perl -Mbigint -e 'print substr((hex("0x'"$E612"'") + hex("'"$SLIDE"'"))->as_hex(), 0)')
mkdir -p "$KVMDBG/$P1-11/vcpu0" "$KVMDBG/$P1-11/vcpu1" "$KVMDBG/99999999-3/vcpu0"
printf '0x0\n' >"$KVMDBG/$P1-11/vcpu0/guest_lstar"
printf '0x0\n' >"$KVMDBG/$P1-11/vcpu0/guest_cr3"
printf '%s\n' "$LSTAR" >"$KVMDBG/$P1-11/vcpu1/guest_lstar"
printf '0x1234000\n' >"$KVMDBG/$P1-11/vcpu1/guest_cr3"
relocate "$TMP/ref612" 0x2a400000 >"$TMP/live612"
check "running guest: the expected relocated kallsyms differ from link time" \
	bash -c "! cmp -s '$TMP/ref612' '$TMP/live612' && [ \$(stat -c %s '$TMP/ref612') = \$(stat -c %s '$TMP/live612') ]"
sleep 1.1
check "running guest: by-pid/$P1/proc/kallsyms is relocated by the slide from LSTAR" \
	cmp "$TMP/live612" "$MNT/by-pid/$P1/proc/kallsyms"
check "running guest: entry_SYSCALL_64 reads as the guest's LSTAR" \
	test "0x$(link_addr "$MNT/by-pid/$P1/proc/kallsyms" entry_SYSCALL_64)" = "$LSTAR"
check "running guest: deb2p/kallsyms is relocated too" cmp "$TMP/live612" "$MNT/deb2p/kallsyms"
check "running guest: the other kernel's kallsyms stays link-time" \
	cmp "$TMP/ref61" "$MNT/deb2p/kernels/$V61/kallsyms"
check "running guest: info names the QEMU pid and the slide" \
	bash -c "grep -qx 'running: qemu pid $P1' '$MNT/deb2p/info' &&
		 grep -qx 'running kernel: $V612 (its LSTAR fits $V61 too)' '$MNT/deb2p/info' &&
		 grep -qx 'slide: $SLIDE (from the guest.s LSTAR $LSTAR)' '$MNT/deb2p/info'"
check "running guest: info.json carries pid, kernel and slide" \
	bash -c "python3 -c 'import json,sys; r = json.load(open(sys.argv[1]))[\"running\"]; sys.exit(not (r[\"pid\"] == $P1 and r[\"kernel\"] == \"$V612\" and r[\"slide\"] == \"$SLIDE\"))' '$MNT/deb2p/info.json' 2>/dev/null ||
		 grep -q '\"running\": {\"pid\": $P1, \"kernel\": \"$V612\", \"slide\": \"$SLIDE\"' '$MNT/deb2p/info.json'"
check "running guest: a guest not running has no running section" \
	bash -c "! grep -q '^running' '$MNT/sysmap/info'"
# Above, LSTAR fits both kernels (Debian's 6.1 has entry_SYSCALL_64 2 MiB
# below 6.12's): the default kernel is assumed and info says so. Now the
# guest runs 6.1 without KASLR: 6.12 would need a negative slide, so by-pid
# follows 6.1.
E61=$(link_addr "$TMP/ref61" entry_SYSCALL_64)
printf '0x%s\n' "$E61" >"$KVMDBG/$P1-11/vcpu1/guest_lstar"
relocate "$TMP/ref61" 0x0 >"$TMP/live61"
sleep 1.1
check "running guest: by-pid serves the kernel the guest runs (proc/version)" \
	cmp "$MNT/deb2p/kernels/$V61/version" "$MNT/by-pid/$P1/proc/version"
check "running guest: ... and its kallsyms (slide 0)" cmp "$TMP/live61" "$MNT/by-pid/$P1/proc/kallsyms"
check "running guest: ... and its module tree" test -d "$MNT/by-pid/$P1/lib/modules/$V61"
check "running guest: deb2p/kallsyms (the default kernel, not running) is link-time again" \
	cmp "$TMP/ref612" "$MNT/deb2p/kallsyms"
# An LSTAR no installed kernel explains: said in info, nothing relocated.
printf '0xffffffff81234567\n' >"$KVMDBG/$P1-11/vcpu1/guest_lstar"
sleep 1.1
check "running guest: an unexplained LSTAR leaves link-time kallsyms" \
	cmp "$TMP/ref612" "$MNT/by-pid/$P1/proc/kallsyms"
check "running guest: info says why the slide is unknown" \
	grep -q "^slide: unknown (LSTAR 0xffffffff81234567 is no installed kernel" "$MNT/deb2p/info"
printf '%s\n' "$LSTAR" >"$KVMDBG/$P1-11/vcpu1/guest_lstar"
sleep 1.1
if command -v perf >/dev/null; then
	# Stock perf reads the guest's kallsyms through the mount (no guest samples: it is paused).
	perf kvm --guest --guestmount="$MNT/by-pid" record -a -e cpu-clock -o "$TMP/perf.data.guest" \
		sleep 0.5 >/dev/null 2>&1
	T612=$(link_addr "$TMP/live612" _text)
	check "stock perf kvm --guestmount=$MNT/by-pid maps the guest kernel at its runtime _text" \
		bash -c "perf script -i '$TMP/perf.data.guest' --show-mmap-events 2>/dev/null |
			 grep 'guest.kernel.kallsyms.$P1\]_text' | grep -q '@ 0x${T612#"${T612%%[!0]*}"}'"
else
	fail "stock perf kvm --guestmount reads by-pid: no perf: run scripts/deps.sh (linux-perf)"
fi
kill "$P1" "$P2" 2>/dev/null
QPIDS=()

if stop_daemon; then
	ok "SIGTERM: daemon exits cleanly"
else
	fail "SIGTERM: daemon exits cleanly"
fi
check "SIGTERM: mount is gone" bash -c "! mountpoint -q '$MNT'"
check "cache folder is 0700" test "$(stat -c '%a' "$CACHE")" = 700

# --- phase 2: restart, one more disk, one touched disk ------------------------------

write_config per-guest >"$TMP/phase2.conf"
printf 'guest truncr\n    disk raw %s\n' "$DISKS/trunc.raw" >>"$TMP/phase2.conf"
# The brief's read-only drives (libguestfs's own overlay), with the checks that go with them.
sed -i 's/^appliance per-guest$/appliance per-guest\noverlay libguestfs/' "$TMP/phase2.conf"
touch -d '+1 minute' "$DISKS/nokernel.qcow2"
t_start=$(now)
start_daemon "$TMP/phase2.conf" "$TMP/log2" || { fail "phase 2: daemon mounts"; exit 1; }
head -c 1 "$MNT/deb2p/kallsyms" >/dev/null
echo "# restart to first byte (from the cache): $(elapsed "$t_start" "$(now)") s"
check "phase 2: deb2p served from the cache" grep -q 'deb2p: serving the inspection cached' "$TMP/log2"
check "phase 2: deb2p readable while other guests are inspected" cmp "$TMP/ref612" "$MNT/deb2p/kallsyms"
# Listing a guest's folder waits for its inspection; a failed wait says why.
ls "$MNT/truncr/" "$MNT/nokernel/" >/dev/null 2>"$TMP/ls.err" || sed 's/^/#   /' "$TMP/ls.err"
check "phase 2: the touched image is inspected again" grep -q 'nokernel: launching the libguestfs appliance' "$TMP/log2"
if grep -qx 'state: error' "$MNT/truncr/info" && grep -qE '^error: inspection failed: .*partition' "$MNT/truncr/info"; then
	ok "truncr: truncated raw image: 'inspection failed' error naming the partition problem"
else
	fail "truncr: truncated raw image: 'inspection failed' error naming the partition problem"
	sed 's/^/#   /' "$MNT/truncr/info"
fi
check "phase 2: two appliance launches (truncr, nokernel), none for the others" \
	test "$(grep -c 'launching the libguestfs appliance' "$TMP/log2")" = 2
check "phase 2: other guests unaffected" cmp "$TMP/ref61" "$MNT/deb1p/kallsyms"
LOG=$TMP/log2
check "phase 2 (overlay libguestfs): a raw disk starting with a qcow2 header is refused before launch" \
	guest_error evil "starts like a qcow2 image, which libguestfs's read-only overlay would let QEMU probe"
check "phase 2 (overlay libguestfs): the touched image was inspected through readonly drives" \
	grep -q "^error: no kernel installed" "$MNT/nokernel/info"
stop_daemon || fail "phase 2: daemon exits cleanly"

# --- phase 3: everything from the cache -------------------------------------------------

LOG=$TMP/log3
sed 's/^overlay libguestfs$/overlay libguestfs\ninspect on-access/' "$TMP/phase2.conf" >"$TMP/phase3.conf"
t_start=$(now)
start_daemon "$TMP/phase3.conf" "$TMP/log3" || { fail "phase 3: daemon mounts"; exit 1; }
sleep 1
check "phase 3 (inspect on-access): nothing is looked at before it is read" \
	bash -c "! grep -q 'serving the inspection cached' '$TMP/log3'"
check "phase 3 (inspect on-access): info says pending" grep -qx 'state: pending' "$MNT/deb1p/info"
for g in deb2p deb1p sysmap debug noos nokernel missing wrongfmt truncq truncr evil; do
	ls "$MNT/$g/" >/dev/null 2>&1
done
echo "# restart to every guest ready: $(elapsed "$t_start" "$(now)") s"
check "phase 3: no appliance launched" bash -c "! grep -q 'launching' '$TMP/log3'"
check "phase 3: every cached guest served on first access" \
	test "$(grep -c 'serving the inspection cached' "$TMP/log3")" = 8
check "phase 3: cached errors still shown" guest_error truncq "no operating system"
check "phase 3: truncr's error cached" grep -q '^error: inspection failed' "$MNT/truncr/info"
check "phase 3: kallsyms still right" cmp "$TMP/ref612" "$MNT/deb2p/kallsyms"
stop_daemon || fail "phase 3: daemon exits cleanly"

# --- phase 4: the access policy ----------------------------------------------------------
#
# Real users and groups; each reads through the mount with setpriv. GA plays
# the shipped example's kvmprof group. Files whose grants permission bits can
# express are checked by the kernel alone; config (a user: grant) and deb1p's
# vmlinux (a grant with a deny exception) are presented 0444 and only the
# daemon's open-time check stands between them and the wrong reader.

# UA in GA; UB in GB; UC in neither; UD in both.
tag=kpm$$
if ! make_test_users "$tag"; then
	fail "phase 4: create test users and groups"
	exit 1
fi
as() { local u=$1; shift; setpriv --reuid="$u" --regid=nogroup --init-groups "$@"; }

POL=$TMP/access.conf
write_policy() {
	{
		echo "expose deb2p deb1p"
		sed -n 's/^#   \(allow\|deny\)\( *\)group:kvmprof/\1\2group:'"$GA"'/p' \
			"$REPO/policy/access.conf"
		echo "allow * version"
		echo "allow user:$UB config guest=deb2p"
		echo "allow group:$GB vmlinux guest=deb1p"
		echo "$@"
	} >"$POL"
}
write_policy ""
check "phase 4: the policy carries the shipped example" grep -q "^allow group:$GA kallsyms,modules,by-pid" "$POL"
chmod 0711 "$TMP" # the test users traverse to the mount

check "phase 4: --check names guests the policy hides" \
	bash -c "'$GUESTFS_MOUNT' --check --policy '$POL' '$TMP/phase3.conf' | grep -q 'guest sysmap is not exposed'"
printf 'expose *\nallow group:%s kallsyms\nallow group:nosuchgroup%s kallsyms\n' "$GA" "$tag" >"$TMP/badpol.conf"
expect_fail "phase 4: an unknown group stops the daemon, naming file:line" \
	"badpol.conf:3: .*nosuchgroup" "$GUESTFS_MOUNT" -f -c "$TMP/phase3.conf" --cache "$CACHE" \
	--policy "$TMP/badpol.conf" "$MNT"
expect_fail "phase 4: a missing --policy file is an error" "nosuch.conf" \
	"$GUESTFS_MOUNT" -f -c "$TMP/phase3.conf" --cache "$CACHE" --policy "$TMP/nosuch.conf" "$MNT"
chmod 0666 "$TMP/badpol.conf"
printf 'expose *\n' >"$TMP/badpol.conf"
expect_fail "phase 4: a policy others may write is refused" "badpol.conf" \
	"$GUESTFS_MOUNT" -f -c "$TMP/phase3.conf" --cache "$CACHE" --policy "$TMP/badpol.conf" "$MNT"
check "phase 4: nothing was mounted by the refused starts" bash -c "! mountpoint -q '$MNT'"

start_daemon "$TMP/phase3.conf" "$TMP/log4" --policy "$POL" || { fail "phase 4: daemon mounts"; exit 1; }
ls "$MNT/deb2p/" "$MNT/deb1p/" >/dev/null 2>&1
modes() { stat -c '%a %U %G' "$@"; }
v=$V612 ko=lib/modules/$V612/$kvmko

check "phase 4: unexposed guests are not listed, even to root" \
	bash -c "[ \"\$(ls '$MNT' | tr '\n' ' ')\" = 'by-pid deb1p deb2p ' ]"
expect_fail "phase 4: an unexposed guest does not exist, even for root" "No such file" \
	cat "$MNT/sysmap/kallsyms"
check "phase 4: an unexposed guest is never inspected" \
	bash -c "grep -q 'deb2p: serving the inspection cached' '$TMP/log4' && ! grep -q 'sysmap: ' '$TMP/log4'"
check "phase 4: kallsyms is 0440 root:$GA" test "$(modes "$MNT/deb2p/kallsyms")" = "440 root $GA"
check "phase 4: vmlinux of deb2p stays 0400 root:root" test "$(modes "$MNT/deb2p/vmlinux")" = "400 root root"
check "phase 4: version is 0444 (allow *)" test "$(modes "$MNT/deb2p/version")" = "444 root root"
check "phase 4: module folders are 0500 root:root" test "$(modes "$MNT/deb2p/lib/modules/$v")" = "500 root root"
check "phase 4: a user: grant is presented 0444 (checked at open)" \
	test "$(modes "$MNT/deb2p/config")" = "444 root root"
check "phase 4: guest folders are listable by all (version is for everyone)" \
	test "$(modes "$MNT/deb2p")" = "555 root root"
# by-pid/ needs "by-pid" (only GA) and a kind: with the user: grant for config
# in play, its readers cannot be told by bits, so only root may list it.
check "phase 4: by-pid/ is 0511 root:root (mixed readers: search only)" \
	test "$(modes "$MNT/by-pid")" = "511 root root"

check "phase 4: the group member reads kallsyms as itself" \
	bash -c "as() { setpriv --reuid=\$1 --regid=nogroup --init-groups \"\${@:2}\"; }; as $UA cat '$MNT/deb2p/kallsyms' | cmp -s - '$TMP/ref612'"
check "phase 4: the group member reads modules" as "$UA" cat "$MNT/deb2p/modules"
expect_fail "phase 4: the group member cannot read vmlinux" "Permission denied" \
	as "$UA" cat "$MNT/deb2p/vmlinux"
expect_fail "phase 4: the group member cannot read module files" "Permission denied" \
	as "$UA" cat "$MNT/deb2p/$ko"
expect_fail "phase 4: a non-member cannot list by-pid/" "Permission denied" \
	as "$UC" ls "$MNT/by-pid"
expect_fail "phase 4: a non-member cannot read kallsyms" "Permission denied" \
	as "$UC" cat "$MNT/deb2p/kallsyms"
check "phase 4: everyone reads version" as "$UC" cat "$MNT/deb1p/version"
check "phase 4: the user grant: $UB reads config" as "$UB" cat "$MNT/deb2p/config"
expect_fail "phase 4: open-time check: $UD cannot read config though it is 0444" \
	"Permission denied" as "$UD" cat "$MNT/deb2p/config"
expect_fail "phase 4: the user grant is for deb2p only" "Permission denied" \
	as "$UB" cat "$MNT/deb1p/config"
check "phase 4: a group grant with a deny exception: $UB reads deb1p's vmlinux" \
	bash -c "setpriv --reuid=$UB --regid=nogroup --init-groups head -c 4 '$MNT/deb1p/vmlinux' | grep -q ELF"
expect_fail "phase 4: deny wins: $UD (in both groups) cannot read deb1p's vmlinux" \
	"Permission denied" as "$UD" cat "$MNT/deb1p/vmlinux"
check "phase 4: root still reads everything of exposed guests" cmp "$TMP/ref612" "$MNT/deb2p/kallsyms"

# by-pid: a paused QEMU holding deb2p's disk, and one named as a hidden guest.
qemu-system-x86_64 -S -display none -nodefaults -machine accel=tcg -m 32 \
	-drive "file=$IMG/deb-2part.qcow2,format=qcow2,readonly=on,if=virtio" \
	-daemonize -pidfile "$TMP/q1.pid" >/dev/null 2>&1
P1=$(cat "$TMP/q1.pid" 2>/dev/null)
QPIDS+=("$P1")
if [ -n "$P1" ] && kill -0 "$P1" 2>/dev/null; then
	check "phase 4: the group member reads by-pid/$P1/proc/kallsyms" \
		as "$UA" cmp "$TMP/ref612" "$MNT/by-pid/$P1/proc/kallsyms"
	expect_fail "phase 4: a non-member cannot read by-pid kallsyms" "Permission denied" \
		as "$UC" cat "$MNT/by-pid/$P1/proc/kallsyms"
	qemu-system-x86_64 -S -display none -nodefaults -machine accel=tcg -m 32 \
		-name guest=sysmap -daemonize -pidfile "$TMP/q3.pid" >/dev/null 2>&1
	P3=$(cat "$TMP/q3.pid" 2>/dev/null)
	QPIDS+=("$P3")
	sleep 1.1
	check "phase 4: a running guest the policy hides has no by-pid entry" \
		bash -c "[ -n '$P3' ] && ls '$MNT/by-pid' | grep -qx '$P1' && ! ls '$MNT/by-pid' | grep -qx '$P3' &&
			 ! test -e '$MNT/by-pid/$P3'"
else
	fail "phase 4: QEMU started"
fi

# SIGHUP: take kallsyms away from the group; a broken file keeps the old policy.
write_policy "deny group:$GA kallsyms"
kill -HUP "$DPID"
sleep 1.2 # attributes are cached for a second
expect_fail "phase 4: after SIGHUP the revoked grant is refused" "Permission denied" \
	as "$UA" cat "$MNT/deb2p/kallsyms"
check "phase 4: the reload is logged" grep -q "access policy .* reloaded" "$TMP/log4"
echo "allow group:$GA nosuchkind" >>"$POL"
kill -HUP "$DPID"
sleep 0.2
as "$UA" cat "$MNT/deb2p/version" >/dev/null 2>&1
check "phase 4: a broken policy on SIGHUP is refused and logged" \
	grep -q "not reloaded, the previous one stays: .*access.conf:[0-9]*:" "$TMP/log4"
check "phase 4: ... and the previous policy still holds" as "$UC" cat "$MNT/deb1p/version"
stop_daemon || fail "phase 4: daemon exits cleanly"

# --- phase 5: limits on what is copied out of a guest ---------------------------------
#
# Fresh caches, so that the appliance copies again under small limits.

limits_run() {
	local name=$1 guest=$2 disk=$3
	shift 3
	{
		printf 'appliance per-guest\n'
		printf '%s\n' "$@"
		printf 'guest %s\n    disk %s\n' "$guest" "$disk"
	} >"$TMP/$name.conf"
	CACHE=$TMP/cache-$name
	LOG=$TMP/log-$name
	start_daemon "$TMP/$name.conf" "$LOG" || { fail "$name: daemon mounts"; return 1; }
	cat "$MNT/$guest/kallsyms" >/dev/null 2>&1 # waits for the inspection; may fail
	return 0
}

if limits_run limits1 deb2p "qcow2 $IMG/deb-2part.qcow2" "max-kernels 1" "max-files 12"; then
	files=$(jq -r .copied.files "$MNT/deb2p/info.json")
	check "max-kernels 1: one kernel of two is taken" \
		test "$(jq -r '.kernels | length' "$MNT/deb2p/info.json")" = 1
	# Folders count against max-files too: fewer than 12 of the 12 are files.
	check "max-files 12: copying stops at 12 files and folders ($files files)" \
		test "$files" -gt 0 -a "$files" -lt 12
	check "max-files: the cut is noted in info" \
		grep -qx "note: stopped copying at 12 files and folders (max-files)" "$MNT/deb2p/info"
	check "the guest is still served within its limits" test -s "$MNT/deb2p/kallsyms"
	stop_daemon || fail "limits1: daemon exits cleanly"
fi
if limits_run limits3 deb2p "qcow2 $IMG/deb-2part.qcow2" "max-total-size 20M"; then
	bytes=$(jq -r .copied.bytes "$MNT/deb2p/info.json")
	check "max-total-size 20M: at most 20 MiB copied ($bytes bytes)" test "$bytes" -le 20971520
	check "max-total-size: the cut is noted in info" \
		bash -c "grep -qx 'note: stopped copying at 20971520 bytes (max-total-size)' '$MNT/deb2p/info' &&
			 grep -q '^note: kernel image .* over the [0-9]*-byte limit (max-total-size): not copied' '$MNT/deb2p/info'"
	stop_daemon || fail "limits3: daemon exits cleanly"
fi
if limits_run limits2 deb1p "raw $IMG/deb-1part.raw" "max-file-size 2M"; then
	# No "kernel" line in this configuration: the guest's GRUB decides.
	check "without a configured kernel, GRUB's saved entry picks $V61 over the newer $V612" \
		bash -c "grep -qx 'kernel: $V61 (bootloader default)' '$MNT/deb1p/info' &&
			 [ \"\$(jq -r .kernel_choice '$MNT/deb1p/info.json')\" = 'bootloader default' ]"
	check "max-file-size 2M: larger kernel images are not copied, and that is noted" \
		grep -q "^note: kernel image /boot/vmlinuz-$V61 is [0-9]* bytes, over the 2097152-byte limit (max-file-size): not copied" \
		"$MNT/deb1p/info"
	check "max-file-size 2M: without its image the kernel has no symbols: a per-guest error" \
		bash -c "grep -qx 'state: error' '$MNT/deb1p/info' && grep -q '^error: kernel .*: no symbols' '$MNT/deb1p/info' &&
			 grep -q 'deb1p: error: kernel .*no symbols' '$LOG'"
	stop_daemon || fail "limits2: daemon exits cleanly"
fi
echo "# total $((SECONDS - t0)) s"
