#!/bin/bash
# test-lane: disk-images (tests/run-tests.sh)
# guestfs-mount under faults, with the real appliance, a real FUSE mount and
# the test images of tests/data-builders/guest-images.sh. Prints the timings.
#
#   a  the appliance's QEMU killed during an inspection a reader waits on:
#      the reader gets EIO within seconds, nothing is cached, and the next
#      reader has the appliance launched again and is served
#   b  SIGTERM during an inspection: unmounted, exit 0, no QEMU left, and a
#      restart inspects again (nothing half-written is served)
#   c  the image renamed over while mounted: SIGHUP inspects it again, new
#      content is served, and a file opened before reads the old file to the end
#   d  a cache on an 8 MiB tmpfs: a guest that does not fit gets an ENOSPC
#      error of its own, a small guest is served, nothing partial is left
. "$(dirname "$0")/../lib.sh"
. "$REPO/tests/gm-daemon.sh"

MNT=$TMP/mnt
DISKS=$TMP/disks
CACHE_D=$TMP/cache-d
DPID=

cleanup() {
	gm_down
	mountpoint -q "$CACHE_D" 2>/dev/null && umount "$CACHE_D"
	for l in "$TMP"/log-*; do
		[ -f "$l" ] && cp "$l" "$BUILD/test-logs/32-guestfs-mount-faults-${l##*/}.log" 2>/dev/null
	done
	rm -rf "$TMP"
}
trap cleanup EXIT

need() {
	fail "guestfs-mount fault tests: $1"
	exit 1
}
gm_prereqs "guestfs-mount fault tests"
if ! IMG=$("$REPO/tests/data-builders/guest-images.sh" 2>"$TMP/images.err"); then
	fail "test disk images built (tests/data-builders/guest-images.sh)"
	tail -5 "$TMP/images.err" | sed 's/^/#   /'
	exit 1
fi
input() { awk -v k="$1" '$1 == k { print $2; exit }' "$IMG/inputs"; }
V61=$(input v61) PVER=$(input pver)
mkdir -p "$MNT" "$DISKS" "$BUILD/test-logs"

# wait_log LOG PATTERN SECONDS: the daemon logged PATTERN in time.
wait_log() {
	local end=$((SECONDS + $3))
	while [ $SECONDS -lt "$end" ]; do
		grep -qE -- "$2" "$1" && return 0
		kill -0 "$DPID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}
# The appliance's QEMU: a child of the daemon (libguestfs's direct backend).
appliance_pid() { pgrep -P "$DPID" -f qemu | head -1; }
# wait_gone PID SECONDS
wait_gone() {
	local end=$((SECONDS + $2))
	while kill -0 "$1" 2>/dev/null; do
		[ $SECONDS -lt "$end" ] || return 1
		sleep 0.1
	done
}
launches() { grep -c 'launching the libguestfs appliance' "$1"; }

# A raw copy of the System.map guest (the project kernel), at a path that
# part c renames another image over.
cp --sparse=always "$IMG/sysmap.raw" "$DISKS/g.raw"
conf() {
	printf 'appliance per-guest\ninspect %s\nguest g\n    disk raw %s\n' "$1" "$DISKS/g.raw"
}
conf on-access >"$TMP/a.conf"
conf startup >"$TMP/b.conf"

# --- a: the appliance killed under a waiting reader ------------------------------------

LOG=$TMP/log-a
CACHE=$TMP/cache-a
start_daemon "$TMP/a.conf" "$LOG" || need "daemon mounts $MNT (part a)"
(
	cat "$MNT/g/kallsyms" >"$TMP/a1.out" 2>"$TMP/a1.err"
	echo $? >"$TMP/a1.rc"
) &
RPID=$!
if wait_log "$LOG" 'appliance up' 300 && QPID=$(appliance_pid) && [ -n "$QPID" ]; then
	kill -KILL "$QPID"
	t_kill=$(now)
	for _ in $(seq 600); do
		kill -0 "$RPID" 2>/dev/null || break
		sleep 0.1
	done
	t_eio=$(now)
	wait "$RPID" 2>/dev/null
	echo "# a: appliance QEMU killed during the inspection; reader's error after $(elapsed "$t_kill" "$t_eio") s"
	check "a: the waiting reader ends within 30 s of the kill (no hang)" \
		awk -v a="$t_kill" -v b="$t_eio" 'BEGIN { exit !(b - a < 30) }'
	check "a: the waiting reader gets EIO" \
		bash -c "[ \"\$(cat '$TMP/a1.rc')\" != 0 ] && grep -q 'Input/output error' '$TMP/a1.err'"
	check "a: info says why (state: error, the appliance stopped)" \
		bash -c "grep -qx 'state: error' '$MNT/g/info' && grep -q 'appliance stopped' '$MNT/g/info'"
	check "a: the failure is not cached" \
		bash -c "! ls '$CACHE'/*/meta 2>/dev/null | grep -q ."
	t0=$(now)
	check "a: the next reader is served" bash -c "cat '$MNT/g/kallsyms' >'$TMP/a2.out'"
	echo "# a: next reader served after $(elapsed "$t0" "$(now)") s (appliance launched again and inspection)"
	check "a: ... with the guest's symbols" grep -q ' T start_kernel$' "$TMP/a2.out"
	check "a: the appliance was launched again for it" test "$(launches "$LOG")" = 2
else
	fail "a: the appliance came up under the daemon"
	tail -5 "$LOG" | sed 's/^/#   /'
fi
stop_daemon
check "a: SIGTERM when idle: exit 0" test $? = 0

# --- b: SIGTERM during an inspection --------------------------------------------------

LOG=$TMP/log-b
CACHE=$TMP/cache-b
start_daemon "$TMP/b.conf" "$LOG" || need "daemon mounts $MNT (part b)"
if wait_log "$LOG" 'copying kernel' 300 && QPID=$(appliance_pid) && [ -n "$QPID" ]; then
	t0=$(now)
	kill -TERM "$DPID"
	wait "$DPID"
	rc=$?
	t_exit=$(now)
	DPID=
	echo "# b: SIGTERM while copying the kernel out: exit after $(elapsed "$t0" "$t_exit") s"
	check "b: exit status 0" test "$rc" = 0
	check "b: the mountpoint is no longer mounted" bash -c "! mountpoint -q '$MNT'"
	check "b: the appliance's QEMU ends within 10 s" wait_gone "$QPID" 10
	echo "# b: QEMU gone $(elapsed "$t0" "$(now)") s after SIGTERM"
	ls -a "$CACHE" | sed 's/^/# b: cache after SIGTERM: /'
	# A folder named by a key is published whole (rename) and has its meta.
	check "b: no cache entry without its meta" bash -c \
		"for d in '$CACHE'/[0-9a-f]*; do [ \"\${d##*/}\" = by-name ] || [ ! -d \"\$d\" ] || [ -f \"\$d/meta\" ] || { ls -la \"\$d\"; exit 1; }; done"
	start_daemon "$TMP/b.conf" "$LOG.2" || need "daemon mounts $MNT again (part b)"
	check "b: after a restart the guest is served" \
		bash -c "cat '$MNT/g/kallsyms' >'$TMP/b.out'"
	check "b: ... the same symbols as a complete inspection" cmp "$TMP/a2.out" "$TMP/b.out"
	if grep -q 'serving the inspection cached' "$LOG.2"; then
		ok "b: served from the entry published before the signal (complete)"
	else
		check "b: inspected again after the restart" \
			grep -q 'launching the libguestfs appliance' "$LOG.2"
	fi
	check "b: the interrupted inspection's folder is gone" \
		bash -c "! ls -a '$CACHE' | grep -q '^\\.tmp-'"
else
	fail "b: the daemon started copying the kernel"
	tail -5 "$LOG" | sed 's/^/#   /'
	start_daemon "$TMP/b.conf" "$LOG.2" || need "daemon mounts $MNT again (part b)"
	cat "$MNT/g/kallsyms" >"$TMP/b.out"
fi

# --- c: the image replaced while mounted -----------------------------------------------

LOG=$LOG.2
check "c: the old image's kernel is served" grep -q "$PVER" "$MNT/g/version"
exec 7<"$MNT/g/kallsyms"
dd bs=4096 count=1 <&7 >"$TMP/c.head" 2>/dev/null
cp --sparse=always "$IMG/deb-1part.raw" "$DISKS/new.raw"
mv -f "$DISKS/new.raw" "$DISKS/g.raw"
t0=$(now)
kill -HUP "$DPID"
new=
for _ in $(seq 600); do
	if grep -q "$V61" "$MNT/g/version" 2>/dev/null; then
		new=1
		break
	fi
	sleep 0.5
done
echo "# c: SIGHUP to the new image's kernel served: $(elapsed "$t0" "$(now)") s"
check "c: SIGHUP: the new image is inspected and served" test -n "$new"
check "c: the log says the disk changed" grep -q 'g: disk changed' "$LOG"
cat "$MNT/g/kallsyms" >"$TMP/c.new"
check "c: new symbols served" bash -c "! cmp -s '$TMP/c.new' '$TMP/b.out' && grep -q ' T start_kernel\$' '$TMP/c.new'"
cat <&7 >"$TMP/c.rest"
exec 7<&-
check "c: a file opened before reads the old file to its end" \
	cmp <(cat "$TMP/c.head" "$TMP/c.rest") "$TMP/b.out"
echo "# c: old kallsyms $(stat -c %s "$TMP/b.out") bytes, new $(stat -c %s "$TMP/c.new"), read through the old handle $(($(stat -c %s "$TMP/c.head") + $(stat -c %s "$TMP/c.rest")))"
check "c: a new open reads the new file" cmp "$MNT/g/kallsyms" "$TMP/c.new"
stop_daemon
check "c: exit 0" test $? = 0

# --- d: a full cache file system --------------------------------------------------------

mkdir -p "$CACHE_D"
mount -t tmpfs -o size=8m tmpfs "$CACHE_D" || need "cannot mount a tmpfs"
printf 'appliance per-guest\nguest small\n    disk raw %s\nguest big\n    disk raw %s\n' \
	"$IMG/sysmap.raw" "$IMG/deb-1part.raw" >"$TMP/d.conf"
expect_fail "d: a tmpfs cache others may write (mode 1777) is refused" "cache.*$CACHE_D" \
	"$GUESTFS_MOUNT" -f -c "$TMP/d.conf" --cache "$CACHE_D" "$MNT"
umount "$CACHE_D"
mount -t tmpfs -o size=8m,mode=0700 tmpfs "$CACHE_D" || need "cannot mount a tmpfs"
LOG=$TMP/log-d
t0=$(now)
CACHE=$CACHE_D
start_daemon "$TMP/d.conf" "$LOG" || need "daemon mounts $MNT on a root-only 8 MiB tmpfs cache"
check "d: the small guest is served" bash -c "cat '$MNT/small/kallsyms' >'$TMP/d.small'"
check "d: ... with its symbols" cmp "$TMP/d.small" "$TMP/a2.out"
ls "$MNT/big/" >/dev/null 2>&1
echo "# d: both guests done $(elapsed "$t0" "$(now)") s after start; cache use $(df --output=used -k "$CACHE_D" | tail -1 | tr -d ' ') KiB of 8192"
check "d: the big guest shows an error naming ENOSPC" \
	bash -c "grep -qx 'state: error' '$MNT/big/info' && grep -q 'No space left on device' '$MNT/big/info'"
check "d: ... and the log names it" grep -q 'big: .*No space left on device' "$LOG"
expect_fail "d: reading the big guest's kallsyms fails with EIO" "Input/output error" \
	cat "$MNT/big/kallsyms"
check "d: the daemon still runs" kill -0 "$DPID"
check "d: the small guest is still served" cmp "$MNT/small/kallsyms" "$TMP/a2.out"
check "d: no temporary folder is left in the cache" bash -c "! ls -a '$CACHE_D' | grep -q '^\\.tmp-'"
check "d: no cache entry for the big guest" test ! -e "$CACHE_D/by-name/big"
check "d: every cache entry has its meta" bash -c \
	"for d in '$CACHE_D'/[0-9a-f]*; do [ \"\${d##*/}\" = by-name ] || [ ! -d \"\$d\" ] || [ -f \"\$d/meta\" ] || { ls -la \"\$d\"; exit 1; }; done"
stop_daemon
check "d: exit 0" test $? = 0
