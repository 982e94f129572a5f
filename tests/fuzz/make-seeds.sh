#!/bin/bash
# Seed corpora for the fuzz targets, made from real inputs at test time:
# a libFuzzer run starting from valid files reaches the deep parser states
# in the few seconds make check gives it.
#   tests/fuzz/make-seeds.sh BUILD_DIR
set -uo pipefail
BUILD=$1
C=$BUILD/fuzz-corpus
mkdir -p "$C"/{fuzz_kallsyms,fuzz_elfsyms,fuzz_kimage,fuzz_decompress,fuzz_perfdata,fuzz_symsrc} \
	"$C"/{fuzz_guestconf,fuzz_accesspolicy,fuzz_grub,fuzz_perffeat,fuzz_symcache}
# QEMU command lines as libvirt and the tests start them (fuzz_vmproc).
mkdir -p "$C/fuzz_vmproc"
[ -f "$C/fuzz_vmproc/libvirt" ] ||
	printf '%s\0' qemu-system-x86_64 -name guest=web1,debug-threads=on -machine pc,accel=kvm \
		-blockdev '{"driver":"file","filename":"/var/lib/libvirt/images/web1.qcow2"}' \
		-blockdev driver=file,filename=/srv/img/db,,2.raw,node-name=f0 \
		-drive file=/srv/img/web.img,format=raw,if=virtio -hda rel.raw \
		-device virtserialport,chardev=c0,name=org.libguestfs.channel.0 >"$C/fuzz_vmproc/libvirt"
[ -f "$C/fuzz_vmproc/comm" ] || printf 'CPU 12/KVM\n' >"$C/fuzz_vmproc/comm"
# Bumped when targets or seeds are added, so that older corpora get them.
[ -f "$C/.seeded-3" ] && exit 0
W=$(mktemp -d /tmp/kvmprof-seeds.XXXXXX)
trap 'rm -rf "$W"' EXIT

printf 'ffffffff81000000 T _text\nffffffff81000100 t foo\nffffffff81000200 T _etext\nffffffffc0001000 t m\t[mod]\n' \
	>"$C/fuzz_kallsyms/small"
head -300 /proc/kallsyms >"$C/fuzz_kallsyms/proc" 2>/dev/null
printf 'int f(int x) { return x + 1; }\nconst char modinfo[] __attribute__((section(".modinfo"))) = "name=seed";\n' >"$W/m.c"
cc -c -o "$C/fuzz_elfsyms/module.o" "$W/m.c" 2>/dev/null
[ -f "$BUILD/tinyvm/payload.elf" ] && cp "$BUILD/tinyvm/payload.elf" "$C/fuzz_elfsyms/"
head -c 4096 "$C/fuzz_kallsyms/proc" >"$W/text"
for tool in "gzip -c" "xz -c" "zstd -q -c" "bzip2 -c" "lz4 -q -c" "xz --format=lzma -c" "lzop -c"; do
	name=$(echo "$tool" | tr ' =-' '___')
	$tool <"$W/text" >"$C/fuzz_decompress/$name" 2>/dev/null || rm -f "$C/fuzz_decompress/$name"
done
cp "$C"/fuzz_decompress/* "$C/fuzz_symsrc/" 2>/dev/null
cp "$C"/fuzz_kallsyms/* "$C"/fuzz_elfsyms/* "$C/fuzz_symsrc/" 2>/dev/null
# A small real bzImage: the header and the start of the payload.
kdir=$(ls -d "${KVMPROF_CACHE:-/var/cache/kvmprof}"/kernel/*/ 2>/dev/null | head -1)
[ -n "$kdir" ] && head -c 65536 "$kdir/bzImage" >"$C/fuzz_kimage/bzimage-head"
"$BUILD/kvmprof" record -q -o "$C/fuzz_perfdata/small.data" -- true 2>/dev/null
# A symbol cache entry as the store writes it (fuzz_symcache).
[ -x "$BUILD/tests/test_symcache" ] &&
	KVMPROF_SEED_DIR="$C/fuzz_symcache" "$BUILD/tests/test_symcache" >/dev/null 2>&1
# Crafted files the reader must refuse cheaply: overlapping sections, ids
# shared by every attr, guest-context decompression bombs.
[ -x "$BUILD/tests/test_perfdata_limits" ] &&
	KVMPROF_SEED_DIR="$C/fuzz_perfdata" "$BUILD/tests/test_perfdata_limits" >/dev/null 2>&1

# guests.conf: the documented example, and every configuration the unit tests parse.
R=$(cd "$(dirname "$0")/../.." && pwd)
sed -n '/^# \/etc\/kvmprof\/guests.conf/,/^```/p' "$R/guestfs-mount/README.md" | sed '$d' \
	>"$C/fuzz_guestconf/readme"
n=0
grep -o '^[[:space:]]*"[^"]*\(\\n\)"' "$R/tests/unit/test_gm_config.c" | sed 's/^[[:space:]]*"//; s/"$//' |
	while IFS= read -r line; do printf '%b' "$line"; done >"$C/fuzz_guestconf/unit-lines"
# The access policy: the shipped example and the examples of its README.
cp "$R/policy/access.conf" "$C/fuzz_accesspolicy/access.conf"
sed -n '/^```/,/^```/{/^```/d;p}' "$R/policy/README.md" >"$C/fuzz_accesspolicy/readme"
# GRUB: the grub.cfg and grubenv the test guest images carry (grub.cfg, NUL, grubenv).
eval "$(sed -n '/^stage_grub() {/,/^}/p' "$R/tests/data-builders/guest-images.sh")"
v61=6.1.0-57-amd64 v612=6.12.117+deb12-amd64 stage_grub "$W/grub"
{ cat "$W/grub/grub.cfg"; printf '\0'; cat "$W/grub/grubenv"; } >"$C/fuzz_grub/debian-saved"
cp "$W/grub/grub.cfg" "$C/fuzz_grub/cfg-only"
[ -f /boot/grub/grub.cfg ] && head -c 65536 /boot/grub/grub.cfg >"$C/fuzz_grub/host"

# perf.data feature payloads, cut out of real files: FEATURE-INDEX, a data
# size (u32), then the payload (the input layout of fuzz_perffeat.c).
u64() { od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '; }
feat_seeds() {
	local f=$1 tag=$2 doff dsize table bit idx=0 off size sel
	# Indexes into fuzz_perffeat.c's feats[] of the features it parses.
	local -A index=([2]=0 [3]=1 [4]=2 [5]=3 [6]=4 [7]=5 [8]=6 [11]=7 [12]=8 [255]=9 [254]=10 [253]=11)
	doff=$(u64 "$f" 40) dsize=$(u64 "$f" 48)
	[ -n "$doff" ] && [ -n "$dsize" ] || return 0
	table=$((doff + dsize))
	local -a words=($(od -An -t u8 -j 72 -N 32 "$f"))
	[ ${#words[@]} -eq 4 ] || return 0
	for bit in $(seq 0 255); do
		(( (words[bit / 64] >> (bit % 64)) & 1 )) || continue
		off=$(u64 "$f" $((table + idx * 16))) size=$(u64 "$f" $((table + idx * 16 + 8)))
		idx=$((idx + 1))
		sel=${index[$bit]:-}
		# Crafted files hold sizes beyond what test(1) compares: digits first.
		[ -n "$sel" ] && [[ $size =~ ^[0-9]{1,6}$ ]] && ((size <= 262144)) || continue
		{ printf "\\x$(printf %02x "$sel")"; printf "\\x$(printf %02x $((dsize & 255)))\\x$(printf %02x $(((dsize >> 8) & 255)))\\x$(printf %02x $(((dsize >> 16) & 255)))\\x$(printf %02x $(((dsize >> 24) & 255)))"
		  tail -c +$((off + 1)) "$f" | head -c "$size"; } >"$C/fuzz_perffeat/$tag-$bit"
	done
}
for f in "$C"/fuzz_perfdata/*; do
	feat_seeds "$f" "$(basename "$f")"
done
touch "$C/.seeded-3"
