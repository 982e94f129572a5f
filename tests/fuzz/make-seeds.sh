#!/bin/bash
# Seed corpora for the fuzz targets, made from real inputs at test time:
# a libFuzzer run starting from valid files reaches the deep parser states
# in the few seconds make check gives it.
#   tests/fuzz/make-seeds.sh BUILD_DIR
set -uo pipefail
BUILD=$1
C=$BUILD/fuzz-corpus
mkdir -p "$C"/{fuzz_kallsyms,fuzz_elfsyms,fuzz_kimage,fuzz_decompress,fuzz_perfdata,fuzz_symsrc}
[ -f "$C/.seeded" ] && exit 0
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
# Crafted files the reader must refuse cheaply: overlapping sections, ids
# shared by every attr, guest-context decompression bombs.
[ -x "$BUILD/tests/test_perfdata_limits" ] &&
	KVMPROF_SEED_DIR="$C/fuzz_perfdata" "$BUILD/tests/test_perfdata_limits" >/dev/null 2>&1
touch "$C/.seeded"
