#!/bin/bash
# Cold start for many guests: guestfs-mount with "appliance shared", from
# daemon start to the first byte of every guest's kallsyms, against
# guestmount -i run once per guest (mount to a first byte of its /boot),
# for 1, 3 and 8 guests (one guest: the times are information, since
# guestfs-mount then does more than guestmount). The guests are copies of
# the deb-2part test image whose fstabs name /dev/sda1 and /dev/sda2, as
# many images' do
# (tests/data-builders/devname-copies.sh). Minutes under software
# emulation: not in make bench's default set.
#
#   bench/coldstart.sh BUILD_DIR RESULTS_FILE [COUNTS...]   (default: 1 3 8)
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$REPO" && cd "${1:-build}" && pwd)
BENCH_RESULTS=$2
shift 2
COUNTS=("$@")
[ ${#COUNTS[@]} -eq 0 ] && COUNTS=(1 3 8)
BENCH_WORK=$(mktemp -d /tmp/kvmprof-bench-cold.XXXXXX)
MNT=$BENCH_WORK/mnt
DPID=
cleanup() {
	[ -n "$DPID" ] && kill -TERM "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null
	mountpoint -q "$MNT" 2>/dev/null && { fusermount3 -u "$MNT" 2>/dev/null || umount -l "$MNT"; }
	rm -rf "$BENCH_WORK"
}
trap cleanup EXIT
# shellcheck source=lib.sh
. "$REPO/bench/lib.sh"
. "$REPO/scripts/guestfs-env.sh" || { echo "  skipped: no libguestfs appliance"; exit 0; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

max=$(printf '%s\n' "${COUNTS[@]}" | sort -n | tail -1)
echo "== coldstart: guestfs-mount (appliance shared) vs guestmount -i per guest"
"$REPO/tests/data-builders/devname-copies.sh" "$max" "$BENCH_WORK/img" >"$BENCH_WORK/prep.out" 2>&1 ||
	{ echo "  MISS: could not prepare the images"; tail -3 "$BENCH_WORK/prep.out"; exit 1; }
mkdir -p "$MNT"
for n in "${COUNTS[@]}"; do
	conf=$BENCH_WORK/guests-$n.conf
	echo "appliance shared" >"$conf"
	for ((i = 1; i <= n; i++)); do
		printf 'guest guest%d\n    disk qcow2 %s/img/guest%d.qcow2\n' $i "$BENCH_WORK" $i >>"$conf"
	done
	t0=$(now)
	"$BUILD/guestfs-mount" -f -c "$conf" --cache "$BENCH_WORK/cache-$n" "$MNT" 2>"$BENCH_WORK/d.log" &
	DPID=$!
	for _ in $(seq 400); do mountpoint -q "$MNT" && break; sleep 0.05; done
	ok=0
	for ((i = 1; i <= n; i++)); do
		head -c 1 "$MNT/guest$i/kallsyms" >/dev/null 2>&1 && ok=$((ok + 1))
	done
	tg=$(elapsed "$t0" "$(now)")
	launches=$(grep -c 'launching the libguestfs appliance' "$BENCH_WORK/d.log")
	kill -TERM "$DPID" && wait "$DPID"
	DPID=
	t0=$(now)
	for ((i = 1; i <= n; i++)); do
		guestmount --format=qcow2 -a "$BENCH_WORK/img/guest$i.qcow2" -i --ro \
			--pid-file "$BENCH_WORK/gm.pid" "$MNT" 2>>"$BENCH_WORK/gm.err" || continue
		head -c 1 "$(find "$MNT/boot" -maxdepth 1 -type f -name 'System.map-*' | head -1)" >/dev/null
		gpid=$(cat "$BENCH_WORK/gm.pid")
		fusermount3 -u "$MNT"
		while kill -0 "$gpid" 2>/dev/null; do sleep 0.1; done
	done
	tm=$(elapsed "$t0" "$(now)")
	# What guestmount -i does not do: the kernels copied out (the daemon's
	# log counts the OS's description and mounts in) and their symbols
	# decoded, seconds summed over the guests.
	extra=$(sed -n 's/.* copied (.* MB) in \([0-9.]*\) s, symbols in \([0-9.]*\) s$/\1 \2/p' \
		"$BENCH_WORK/d.log" | awk '{ c += $1; s += $2 } END { printf "%.1f s copying, %.1f s symbols", c, s }')
	echo "  $n guest(s): guestfs-mount ${tg} s ($ok served, $launches launch(es); $extra);" \
		"guestmount -i ${tm} s"
	# One guest takes one launch either way, and guestfs-mount then copies
	# its kernels out and decodes them, which guestmount does not: that
	# row's times are information. From two guests on, one launch for all
	# must beat a launch each.
	target="one launch, faster than guestmount"
	((n == 1)) && target="one launch (the times: information)"
	result "cold start, $n guest(s)" \
		"guestfs-mount ${tg} s ($ok/$n served, $launches launch(es); of it $extra); guestmount -i once per guest ${tm} s" \
		"$target" \
		"$(awk -v a="$tg" -v b="$tm" -v o=$ok -v n=$n -v l=$launches \
			'BEGIN { print (o == n && l == 1 && (n == 1 || a < b)) ? "PASS" : "MISS" }')"
done
