#!/bin/bash
# test-lane: disk-images (tests/run-tests.sh)
# guestfs-mount under load: 32 concurrent readers, 10000 random preads each,
# across the files of four guests (kallsyms, modules, vmlinux, System.map,
# info), checked byte for byte against a first read (bench/bench_mount_load.c).
# No error, no mismatch, and the daemon's memory stays bounded while it
# serves them.
#
# The daemon's cache lives in $KVMPROF_CACHE/guestfs-mount-load (keyed by
# disk identity like any cache of the daemon): the first run inspects the
# images through the appliance (minutes under software emulation), later
# runs start from the cache.
. "$(dirname "$0")/../lib.sh"
. "$REPO/tests/gm-daemon.sh"

MNT=$TMP/mnt
CACHE=$KVMPROF_CACHE/guestfs-mount-load
LOAD=$BUILD/bench/bench_mount_load
GUESTS="deb2p deb1p sysmap debug"
DPID=
SAMPLER=

cleanup() {
	[ -n "$SAMPLER" ] && kill "$SAMPLER" 2>/dev/null
	if [ -n "$DPID" ]; then
		kill -TERM "$DPID" 2>/dev/null
		wait "$DPID" 2>/dev/null
	fi
	if mountpoint -q "$MNT" 2>/dev/null; then
		fusermount3 -u "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT

need() {
	fail "guestfs-mount load: $1"
	exit 1
}
gm_prereqs "guestfs-mount load"
[ -x "$LOAD" ] || need "no $LOAD: run make"
IMG=$("$REPO/tests/data-builders/guest-images.sh" 2>"$TMP/images.err") ||
	need "test disk images (tests/data-builders/guest-images.sh): $(tail -1 "$TMP/images.err")"
V61=$(awk '$1 == "v61" { print $2; exit }' "$IMG/inputs")

mkdir -p "$MNT"
cat >"$TMP/guests.conf" <<EOF
appliance shared
guest deb2p
    disk qcow2 $IMG/deb-2part.qcow2
guest deb1p
    disk raw $IMG/deb-1part.raw
    kernel $V61
guest sysmap
    disk raw $IMG/sysmap.raw
guest debug
    disk qcow2 $IMG/debug.qcow2
EOF

t0=$SECONDS
start_daemon "$TMP/guests.conf" "$TMP/daemon.log" ||
	need "daemon mounts $MNT: $(tail -3 "$TMP/daemon.log")"
# Listing a guest waits for its inspection.
for g in $GUESTS; do ls "$MNT/$g/" >/dev/null 2>&1; done
not_ready=
for g in $GUESTS; do
	grep -qx 'state: ready' "$MNT/$g/info" 2>/dev/null || not_ready+=" $g"
done
check "guests ready ($((SECONDS - t0)) s from start)${not_ready:+, not:$not_ready}" \
	test -z "$not_ready"

files=()
for g in $GUESTS; do
	for f in kallsyms modules vmlinux System.map info; do
		[ -f "$MNT/$g/$f" ] && files+=("$MNT/$g/$f")
	done
done
total=$(cat "${files[@]}" | wc -c)
check "${#files[@]} files of ${GUESTS// /, } to read ($((total / 1048576)) MiB)" \
	test "${#files[@]}" -ge 16

kib() { awk -v k="$1" '$1 == k":" { print $2 }' "/proc/$DPID/status"; }
# Read system calls the daemon made: the reads that reached it, not the page cache.
syscr() { awk '$1 == "syscr:" { print $2 }' "/proc/$DPID/io"; }
rss_before=$(kib VmRSS)
syscr_before=$(syscr)
# The daemon's resident set, every 50 ms, while the load runs.
(while kill -0 "$DPID" 2>/dev/null; do kib VmRSS; sleep 0.05; done) >"$TMP/rss" &
SAMPLER=$!
nice -n 10 "$LOAD" -t 32 -n 10000 "${files[@]}" >"$TMP/load.out" 2>"$TMP/load.err"
load_rc=$?
kill "$SAMPLER" 2>/dev/null
wait "$SAMPLER" 2>/dev/null
SAMPLER=
rss_peak=$(sort -n "$TMP/rss" | tail -1)
hwm=$(kib VmHWM)
daemon_reads=$(($(syscr) - syscr_before))
figures=$(cat "$TMP/load.out")
field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' <<<"$figures"; }

echo "# load: $figures"
echo "# daemon VmRSS before $rss_before KiB, peak during the load $rss_peak KiB" \
	"($(wc -l <"$TMP/rss") samples), VmHWM $hwm KiB"
echo "# daemon read system calls during the load: $daemon_reads"
sed 's/^/#   /' "$TMP/load.err" | head -5
check "32 readers x 10000 reads all done (status $load_rc)" test "$(field reads)" = 320000
check "the reads reached the daemon ($daemon_reads read calls)" \
	test "$daemon_reads" -ge 5000
check "no read or open failed ($(field errors))" test "$(field errors)" = 0
check "every read returned the bytes of the first read ($(field mismatches) mismatches)" \
	test "$(field mismatches)" = 0
# Reads are preads of cache files into FUSE's per-thread buffers: at most
# 32 worker threads, each with libfuse's 1 MiB + 4 KiB request buffer, a
# reply buffer of at most 128 KiB (max_read) and its touched stack and
# malloc arena: 32 x 1.5 MiB = 48 MiB above the idle daemon. More means
# memory grows with the reads.
bound=$((rss_before + 48 * 1024))
check "daemon RSS peak under load $rss_peak KiB <= $bound KiB (idle $rss_before KiB + 48 MiB)" \
	test -n "$rss_peak" -a "${rss_peak:-0}" -le "$bound"
check "daemon still serves after the load" grep -qx 'state: ready' "$MNT/deb2p/info"
kill -TERM "$DPID"
wait "$DPID"
rc=$?
DPID=
check "daemon exits cleanly after the load (status $rc)" test "$rc" = 0
