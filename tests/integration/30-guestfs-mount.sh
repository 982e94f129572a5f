#!/bin/bash
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
. "$(dirname "$0")/../lib.sh"

MNT=$TMP/mnt
CACHE=$TMP/cache
DISKS=$TMP/disks
DPID=
QPIDS=()

cleanup() {
	local p
	for p in "${QPIDS[@]}"; do
		kill "$p" 2>/dev/null
	done
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

skip_all() {
	skip "guestfs-mount integration" "$1"
	exit 0
}

[ "$(id -u)" = 0 ] || skip_all "needs root (FUSE allow_other, root-only files)"
[ -c /dev/fuse ] || skip_all "no /dev/fuse"
command -v fusermount3 >/dev/null || skip_all "no fusermount3 (apt-get install fuse3)"
[ -x "$GUESTFS_MOUNT" ] || { fail "guestfs-mount is built"; exit 1; }
. "$REPO/scripts/guestfs-env.sh" || skip_all "no libguestfs appliance (scripts/appliance.sh)"

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
mkdir -p "$BUILD/test-logs"

KALLSYMS_LABEL=system_u:object_r:kvmprof_guest_kallsyms_t:s0
DEFAULT_LABEL=system_u:object_r:kvmprof_guest_artifact_t:s0
write_config() {
	cat <<-EOF
	# guestfs-mount test configuration
	appliance $1
	label kallsyms $KALLSYMS_LABEL

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
	guest truncq
	    disk qcow2 $DISKS/trunc.qcow2
	guest evil
	    disk raw $DISKS/evil.raw
	EOF
}
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

start_daemon() {
	"$GUESTFS_MOUNT" -f -c "$1" --cache "$CACHE" "$MNT" 2>"$2" &
	DPID=$!
	for _ in $(seq 200); do
		mountpoint -q "$MNT" && return 0
		kill -0 "$DPID" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

stop_daemon() {
	local rc
	kill -TERM "$DPID"
	wait "$DPID"
	rc=$?
	DPID=
	return $rc
}

# now(): seconds with milliseconds.
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

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
	bash -c "ls '$MNT' | tr '\n' ' ' | grep -q '^by-pid deb1p deb2p debug evil missing nokernel noos sysmap truncq wrongfmt \$'"
check "info answers at once during the inspection" grep -qE '^state: (pending|inspecting)' "$MNT/deb2p/info"
head -c 1 "$MNT/deb2p/kallsyms" >/dev/null
t_first=$(now)
echo "# cold start to first byte of deb2p/kallsyms: $(elapsed "$t_start" "$t_first") s"
grep -E 'appliance up|inspection found|ready:' "$TMP/log1" | sed 's/^/# /'

# Wait for the other guests (reading any file of a guest waits for its inspection).
for g in deb1p sysmap debug noos nokernel missing wrongfmt truncq; do
	ls "$MNT/$g/" >/dev/null 2>&1
done
ls "$MNT/evil/" >/dev/null 2>&1
check "exactly one appliance launch for all guests" \
	test "$(grep -c 'launching the libguestfs appliance' "$TMP/log1")" = 1

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
if command -v perf >/dev/null; then
	# Stock perf reads the guest's kallsyms through the mount (no guest samples: it is paused).
	perf kvm --guest --guestmount="$MNT/by-pid" record -a -e cpu-clock -o "$TMP/perf.data.guest" \
		sleep 0.5 >/dev/null 2>&1
	check "stock perf kvm --guestmount=$MNT/by-pid maps the guest kernel from proc/kallsyms" \
		bash -c "perf script -i '$TMP/perf.data.guest' --show-mmap-events 2>/dev/null |
			 grep -q 'guest.kernel.kallsyms.$P1\]_text'"
else
	skip "stock perf kvm --guestmount reads by-pid" "perf not installed"
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
ls "$MNT/truncr/" "$MNT/nokernel/" >/dev/null 2>&1
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
echo "# total $((SECONDS - t0)) s"
