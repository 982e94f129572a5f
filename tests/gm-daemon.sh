# Helpers for the integration tests that run guestfs-mount for real
# (30-guestfs-mount, 32-guestfs-mount-faults, 32-guestfs-mount-load).
# Sourced after tests/lib.sh; the test sets MNT, and CACHE when the daemon
# should use a cache of its own.

# gm_prereqs WHAT: what make check runs as (root, README.md) and prepares
# (scripts/deps.sh, scripts/appliance.sh). Without it none of the checks can
# run, and one skip line would hide them all, so it is a failure.
gm_prereqs() {
	local what=$1 why=
	if [ "$(id -u)" != 0 ]; then
		why="not root (FUSE allow_other, root-only files): run as root"
	elif [ ! -c /dev/fuse ]; then
		why="no /dev/fuse: modprobe fuse"
	elif ! command -v fusermount3 >/dev/null; then
		why="no fusermount3: run scripts/deps.sh (fuse3)"
	elif [ ! -x "$GUESTFS_MOUNT" ]; then
		why="no $GUESTFS_MOUNT: run make"
	elif ! . "$REPO/scripts/guestfs-env.sh"; then
		why="no libguestfs appliance: run scripts/appliance.sh"
	fi
	if [ -n "$why" ]; then
		fail "$what: $why"
		exit 1
	fi
}

# start_daemon CONFIG LOG [OPTION...]: the daemon on $MNT (with --cache
# $CACHE when CACHE is set), its pid in DPID; 0 once mounted, 1 if it died.
start_daemon() {
	"$GUESTFS_MOUNT" -f -c "$1" ${CACHE:+--cache "$CACHE"} "${@:3}" "$MNT" 2>"$2" &
	DPID=$!
	for _ in $(seq 200); do
		mountpoint -q "$MNT" && return 0
		kill -0 "$DPID" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# stop_daemon: SIGTERM, and its exit status.
stop_daemon() {
	local rc
	kill -TERM "$DPID"
	wait "$DPID"
	rc=$?
	DPID=
	return $rc
}

# gm_down: stop the daemon if it runs ($DPID) and unmount $MNT: what a
# test's exit trap does first.
gm_down() {
	if [ -n "$DPID" ]; then
		kill -TERM "$DPID" 2>/dev/null
		wait "$DPID" 2>/dev/null
	fi
	if mountpoint -q "$MNT" 2>/dev/null; then
		fusermount3 -u "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null
	fi
}

# now: seconds with nanoseconds; elapsed A B: B - A, to the hundredth.
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
