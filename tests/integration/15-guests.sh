#!/bin/bash
# kvmprof guests on real QEMU processes (software emulation is enough: the
# listing reads /proc, KVM's debugfs and the guest tree, not the guest):
#  - a QEMU holding a configured disk open is named by the disk, whatever
#    its -name says; its vCPU threads (named, -name ...,debug-threads=on),
#    its disks and whether they are open are listed, as in /proc;
#  - a QEMU run by nobody with a configured guest's -name is not named;
#  - a libguestfs appliance is left out;
#  - served / not served follows the guest tree; without the kernel series
#    the slide is unknown, and the reason says so;
#  - --json says the same, and parses.
. "$(dirname "$0")/../lib.sh"

command -v qemu-system-x86_64 >/dev/null
check "qemu-system-x86_64 is installed" test $? -eq 0
truncate -s 16M "$TMP/web.img" "$TMP/spare.img"
cat >"$TMP/guests.conf" <<CONF
guest web
    disk raw $TMP/web.img
CONF
MNT=$TMP/mnt
mkdir -p "$MNT"

pids=()
start_qemu() { # start_qemu [WRAPPER...] -- QEMU ARGS...
	local wrap=()
	while [[ $1 != -- ]]; do wrap+=("$1"); shift; done
	shift
	"${wrap[@]}" qemu-system-x86_64 -display none -m 32 -nodefaults "$@" \
		>>"$TMP/qemu.log" 2>&1 &
	pids+=($!)
}
cleanup() { kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT

# The guest: a -name that is not its configured name, two vCPUs.
start_qemu -- -name other,debug-threads=on -smp 2 \
	-drive "file=$TMP/web.img,format=raw,if=virtio" \
	-drive "file=$TMP/spare.img,format=raw,if=none,id=s"
web=${pids[-1]}
# A fake: nobody, claiming to be web by -name only.
start_qemu setpriv --reuid=65534 --regid=65534 --clear-groups -- -name web
fake=${pids[-1]}
# An appliance, as libguestfs starts it.
start_qemu -- -device virtio-serial -chardev null,id=c0 \
	-device virtserialport,chardev=c0,name=org.libguestfs.channel.0
appliance=${pids[-1]}
sleep 2
for p in "$web" "$fake" "$appliance"; do
	check "QEMU $p is running" kill -0 "$p"
done

G=("$KVMPROF" guests --guests-conf "$TMP/guests.conf" --guestmount "$MNT")
"${G[@]}" >"$TMP/out.txt" 2>"$TMP/err.txt"
check "kvmprof guests succeeds" test $? -eq 0
sed 's/^/# /' "$TMP/out.txt"
# block PID [FILE]: the lines of QEMU PID's block in FILE (default out.txt).
block() { awk -v p="$1" '/^guest /{ keep = 0; buf = $0; next }
	$1 == "pid:" { keep = ($2 == p); if (keep) print buf } keep' "${2:-$TMP/out.txt}"; }
block "$web" >"$TMP/web.txt"
block "$fake" >"$TMP/fake.txt"

check "the guest is named by its configured disk, not its -name" \
	grep -qx "guest web" "$TMP/web.txt"
check "... and says so" grep -q "named:   by its open disk" "$TMP/web.txt"
tids=$(for t in /proc/$web/task/*; do
	c=$(cat "$t/comm"); [[ $c =~ ^CPU\ ([0-9]+)/ ]] && echo "${BASH_REMATCH[1]}:${t##*/}"
done | sort -n | paste -sd' ')
check "its vCPU threads are /proc's ($tids)" grep -qx "  vcpus:   2 (cpu:tid $tids)" "$TMP/web.txt"
check "its configured disk is listed as open" grep -q "$TMP/web.img (open)" "$TMP/web.txt"
check "its second disk is listed too" grep -q "$TMP/spare.img (open)" "$TMP/web.txt"
check "not served: nothing in the guest tree" grep -q "served:  no (nothing at $MNT/web)" "$TMP/web.txt"
if [[ -e /sys/kernel/debug/kvm ]] && ls /sys/kernel/debug/kvm/*/vcpu*/guest_lstar >/dev/null 2>&1; then
	skip "without the series the slide is unknown, and why" "this host has the series"
else
	check "without the series the slide is unknown, and why" \
		grep -q "slide:   unknown: no LSTAR: KVM debugfs has no guest_lstar" "$TMP/web.txt"
fi
check "nobody's QEMU with web's -name is listed" test -s "$TMP/fake.txt"
check "... but not named web" grep -qx "guest -" "$TMP/fake.txt"
check "... and the reason is its account" grep -q "does not trust" "$TMP/fake.txt"
check "the libguestfs appliance is not listed" test -z "$(block "$appliance")"
check "... and its omission is said" grep -qE '^\([0-9]+ libguestfs appliances? not shown\)$' "$TMP/out.txt"

mkdir "$MNT/web"
"${G[@]}" >"$TMP/out2.txt"
block "$web" "$TMP/out2.txt" >"$TMP/web2.txt"
check "served once the guest tree has web/" grep -q "served:  yes, $MNT/web" "$TMP/web2.txt"

"${G[@]}" --json >"$TMP/out.json"
check "--json parses" python3 -m json.tool "$TMP/out.json"
check "--json says the same of the guest" python3 - "$TMP/out.json" "$web" "$TMP/web.img" "$tids" <<'PY'
import json, sys
rows = {r["pid"]: r for r in json.load(open(sys.argv[1]))}
r = rows[int(sys.argv[2])]
assert r["name"] == "web" and r["named_by"] == "its open disk", r
assert " ".join(f'{v["index"]}:{v["tid"]}' for v in r["vcpus"]) == sys.argv[4], r["vcpus"]
assert {"path": sys.argv[3], "open": True} in r["disks"], r["disks"]
assert r["served"] is True and r["served_at"].endswith("/web"), r
assert r["slide"] is None or r["slide"].startswith(("0x", "-0x")), r
PY

expect_fail "a missing --guests-conf is an error naming it" "$TMP/none.conf" \
	"$KVMPROF" guests --guests-conf "$TMP/none.conf"
check "--help" "$KVMPROF" guests --help
