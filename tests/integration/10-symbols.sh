#!/bin/bash
# kvmprof symbols on real kernels: Debian's 6.1 and 6.12 packages (vmlinuz
# with a placeholder System.map, .ko.xz modules) and the project's own 6.12
# build, whose bzImage must decode to exactly its System.map.
. "$(dirname "$0")/../lib.sh"

debian_dirs=$("$REPO/scripts/fetch-debian-kernels.sh" --print 2>"$TMP/fetch.err")
check "Debian kernel packages are available" test -n "$debian_dirs"

# Everything the table places in [_text, _etext) must be code, and there
# must be plenty of it (init text lies past _etext and is not counted).
check_table() {
	awk '
		$3 == "_text" { text = $1 } $3 == "_etext" { etext = $1 }
		{ addr[NR] = $1; type[NR] = $2 }
		END {
			if (text == "" || etext == "") exit 2
			for (i = 1; i <= NR; i++) {
				if (addr[i] < text || addr[i] >= etext) continue
				if (type[i] !~ /^[tTwW]$/) { print "not code: " addr[i] " " type[i]; exit 1 }
				n++
			}
			if (n < 40000) { print "only " n " code symbols"; exit 1 }
		}' "$1"
}

for dir in $debian_dirs; do
	vmlinuz=$(ls "$dir"/boot/vmlinuz-* | head -1)
	ver=${vmlinuz##*/vmlinuz-}
	"$KVMPROF" symbols "$vmlinuz" >"$TMP/$ver.syms" 2>"$TMP/$ver.err"
	n=$(wc -l <"$TMP/$ver.syms")
	check "$ver: vmlinuz decodes to more than 50k symbols ($n)" test "$n" -gt 50000
	for sym in _text _stext _etext entry_SYSCALL_64 do_syscall_64 __x64_sys_getpid; do
		check "$ver: $sym present" grep -qE "^[0-9a-f]{16} [A-Za-z] $sym\$" "$TMP/$ver.syms"
	done
	check "$ver: [_text, _etext) holds 40k+ code symbols and nothing else" check_table "$TMP/$ver.syms"
	# The symbol cache: the first run decodes the image (the whole kernel
	# decompressed: over 60 MB resident) and stores the table; the next is
	# served from the entry without decompressing, and prints the same.
	cache=$TMP/symcache-$ver
	KVMPROF_SYMBOL_CACHE=$cache /usr/bin/time -f %M -o "$TMP/rss1" \
		"$KVMPROF" symbols --info "$vmlinuz" >"$TMP/$ver.info1"
	check "$ver: the first run stores one cache entry" test "$(ls "$cache" | grep -c '\.ksym$')" = 1
	KVMPROF_SYMBOL_CACHE=$cache /usr/bin/time -f %M -o "$TMP/rss2" \
		"$KVMPROF" symbols --info "$vmlinuz" >"$TMP/$ver.info2"
	KVMPROF_SYMBOL_CACHE=$cache "$KVMPROF" symbols "$vmlinuz" >"$TMP/$ver.syms2"
	check "$ver: served from the cache: same symbols" cmp -s "$TMP/$ver.syms" "$TMP/$ver.syms2"
	check "$ver: served from the cache: same --info" cmp -s "$TMP/$ver.info1" "$TMP/$ver.info2"
	check "$ver: served from the cache: no decompression ($(cat "$TMP/rss1") KB then $(cat "$TMP/rss2") KB)" \
		test "$(($(cat "$TMP/rss1") > 60000 && $(cat "$TMP/rss2") * 2 < $(cat "$TMP/rss1")))" = 1
	# A damaged entry (4 KiB of its symbols overwritten, name pointers
	# among them): lookups read it only where they go and answer or find
	# nothing; the listing, which walks every symbol, refuses it. A run
	# whose reads it refused removes it at the end, and says so: the next
	# run decodes the image again and answers in full.
	damage_entry() {
		[ -n "$(ls "$cache"/*.ksym 2>/dev/null)" ] ||
			KVMPROF_SYMBOL_CACHE=$cache "$KVMPROF" symbols --info "$vmlinuz" >/dev/null
		entry=$(ls "$cache"/*.ksym)
		head -c 4096 /dev/zero | tr '\0' '\377' |
			dd of="$entry" bs=4096 seek=256 conv=notrunc status=none
	}
	lookup() {
		KVMPROF_SYMBOL_CACHE=$cache "$KVMPROF" symbols "$vmlinuz" --lookup "$1" 2>"$TMP/lookup.err"
	}
	damage_entry
	addr=$(awk '$3 == "do_syscall_64" { print $1 }' "$TMP/$ver.syms")
	lookup "$addr" >"$TMP/lookup.out"
	check "$ver: a damaged cache entry still serves lookups" \
		grep -qE "^$addr (do_syscall_64\+0x0|\[unknown\])\$" "$TMP/lookup.out"
	# Symbol 32800 lies in the damaged bytes, 1 MiB on (the 344-byte
	# header, then 32 bytes a symbol): its name pointer is all ones, and it
	# is not found.
	damage_entry
	line=$(awk 'NR == 32801' "$TMP/$ver.syms")
	addr=${line%% *}
	lookup "$addr" >"$TMP/lookup.out"
	check "$ver: a symbol in the damaged bytes is not found" grep -qx "$addr \[unknown\]" "$TMP/lookup.out"
	check "$ver: the run that found the damage says it removed the entry" \
		grep -qF "warning: symbol cache entry $entry was damaged (1 reads of it refused): removed" "$TMP/lookup.err"
	check "$ver: the damaged entry is gone" test ! -e "$entry"
	lookup "$addr" >"$TMP/lookup.out"
	check "$ver: the next run decodes the image again and finds the symbol (${line##* })" \
		grep -qx "$addr ${line##* }+0x0" "$TMP/lookup.out"
	check "$ver: ... and stores a sound entry" test "$(ls "$cache" | grep -c '\.ksym$')" = 1
	damage_entry
	expect_fail "$ver: a damaged cache entry is refused by the listing" \
		"cache's table of it is damaged; the entry is removed, run again" \
		env KVMPROF_SYMBOL_CACHE="$cache" "$KVMPROF" symbols "$vmlinuz"
	KVMPROF_SYMBOL_CACHE=$cache "$KVMPROF" symbols "$vmlinuz" >"$TMP/$ver.syms3"
	check "$ver: the listing run after that one lists every symbol again" \
		cmp -s "$TMP/$ver.syms" "$TMP/$ver.syms3"
	expect_fail "$ver: placeholder System.map is 'no symbols here'" "placeholder.*no symbols" \
		"$KVMPROF" symbols "$dir/boot/System.map-$ver"
	# --info gives the build-id, which must equal the one file(1) reads from the ELF.
	"$KVMPROF" symbols --info "$vmlinuz" >"$TMP/$ver.info"
	check "$ver: build-id found" grep -qE '^build-id: [0-9a-f]{40}$' "$TMP/$ver.info"
	# Modules: .ko.xz with symbols, a layout and a build-id.
	ko=$(find "$dir/lib/modules" -name 'kvm.ko*' | head -1)
	check "$ver: kvm module present in the package" test -n "$ko"
	"$KVMPROF" symbols "$ko" >"$TMP/$ver.kvm" 2>&1
	check "$ver: ${ko##*/} loads with symbols" grep -qE ' kvm_vcpu_ioctl	\[kvm\]$' "$TMP/$ver.kvm"
	check "$ver: ${ko##*/} has a build-id" \
		bash -c "'$KVMPROF' symbols --info '$ko' | grep -qE '^build-id: [0-9a-f]{40}$'"
	nko=0 bad=0
	for m in $(find "$dir/lib/modules" -name '*.ko*' | head -40); do
		nko=$((nko + 1))
		"$KVMPROF" symbols "$m" >/dev/null 2>&1 || bad=$((bad + 1))
	done
	check "$ver: 40 modules all load ($bad failed)" test "$bad" -eq 0 -a "$nko" -eq 40
	# Slide derivation from one runtime anchor, and lookup with it.
	entry=$(awk '$3 == "entry_SYSCALL_64" { print $1 }' "$TMP/$ver.syms")
	rt=$(printf '%x' $((0x$entry + 0x2a400000)))
	out=$("$KVMPROF" symbols "$vmlinuz" --anchor="entry_SYSCALL_64=$rt" --lookup "$rt")
	check "$ver: lookup with a slide from an anchor" grep -q "entry_SYSCALL_64+0x0" <<<"$out"
	expect_fail "$ver: a slide that is not 2 MiB aligned is refused" "2 MiB" \
		"$KVMPROF" symbols "$vmlinuz" --anchor="entry_SYSCALL_64=$(printf '%x' $((0x$rt + 0x1000)))"
done

# The project's kernel: decoded bzImage == System.map for every text symbol.
kdir=$("$REPO/kernel/build.sh" --print-dir 2>"$TMP/kbuild.err")
if [ -n "$kdir" ] && [ -f "$kdir/bzImage" ]; then
	"$KVMPROF" symbols "$kdir/bzImage" | awk '$2 ~ /^[tTwW]$/' | sort >"$TMP/decoded"
	awk '$2 ~ /^[tTwW]$/' "$kdir/System.map" | sort >"$TMP/sysmap"
	n=$(wc -l <"$TMP/sysmap")
	if diff "$TMP/sysmap" "$TMP/decoded" >"$TMP/k.diff"; then
		ok "project kernel: bzImage decodes to its System.map ($n text symbols)"
	else
		fail "project kernel: bzImage decodes to its System.map"
		head -10 "$TMP/k.diff" | sed 's/^/#   /'
	fi
	check "project kernel: vmlinux .symtab and bzImage agree on entry_SYSCALL_64" test \
		"$("$KVMPROF" symbols "$kdir/vmlinux" | awk '$3 == "entry_SYSCALL_64" { print $1 }')" = \
		"$(awk '$3 == "entry_SYSCALL_64" { print $1 }' "$TMP/decoded")"
else
	fail "project kernel build available (kernel/build.sh)"
	tail -5 "$TMP/kbuild.err" | sed 's/^/#   /'
fi

# Damaged and wrong inputs: clear errors naming the file, no crash.
vmlinuz=$(ls $(head -1 <<<"$debian_dirs")/boot/vmlinuz-* | head -1)
head -c 2000000 "$vmlinuz" >"$TMP/vmlinuz.trunc"
expect_fail "truncated vmlinuz" "vmlinuz.trunc" "$KVMPROF" symbols "$TMP/vmlinuz.trunc"
cp "$vmlinuz" "$TMP/vmlinuz.corrupt"
printf '\xde\xad\xbe\xef\xde\xad\xbe\xef' | dd of="$TMP/vmlinuz.corrupt" bs=1 seek=40000 conv=notrunc 2>/dev/null
printf '\xde\xad\xbe\xef\xde\xad\xbe\xef' | dd of="$TMP/vmlinuz.corrupt" bs=1 seek=900000 conv=notrunc 2>/dev/null
expect_fail "corrupted vmlinuz payload" "vmlinuz.corrupt" "$KVMPROF" symbols "$TMP/vmlinuz.corrupt"
# liblzma is loaded when an xz stream is decoded, not linked: with the
# library unreadable (a mount namespace of this test's own), kvmprof starts,
# and decoding the xz kernel names what is missing.
lzma=$(ldconfig -p | awk '/liblzma\.so\.5 .*x86-64/ { print $NF; exit }')
check "liblzma is installed (ldconfig -p)" test -n "$lzma"
without_lzma() { unshare -m sh -c 'mount --bind /dev/null "$0" && exec "$@"' "$lzma" "$@"; }
check "kvmprof starts without liblzma" without_lzma "$KVMPROF" --version
expect_fail "an xz kernel without liblzma: the error names the kernel and the library" \
	"vmlinuz-.*xz: cannot load liblzma.so.5, which decoding it needs" \
	without_lzma env KVMPROF_SYMBOL_CACHE= "$KVMPROF" symbols "$vmlinuz"
printf 'hello\nworld\n' >"$TMP/text.txt"
expect_fail "not a symbol source" "text.txt: not a kernel symbol source" "$KVMPROF" symbols "$TMP/text.txt"
expect_fail "directory" "is a directory" "$KVMPROF" symbols "$TMP"
# A sparse file one MiB over KP_FILE_MAX (lib/base/fileio.h): refused before reading.
truncate -s 1025M "$TMP/huge"
expect_fail "an input over 1 GiB is refused" "huge: 1074790400 bytes, larger than the 1073741824-byte limit" \
	"$KVMPROF" symbols "$TMP/huge"
rm -f "$TMP/huge"
: >"$TMP/empty"
expect_fail "empty file" "empty" "$KVMPROF" symbols "$TMP/empty"

# Guest-controlled names must not reach the terminal as escape sequences.
printf 'ffffffff81000000 T _text\nffffffff81000010 t evil\033[31mred\nffffffff81000020 T _etext\n' \
	>"$TMP/evil.kallsyms"
check "escape sequences in symbol names are neutralised in the table" \
	bash -c "! '$KVMPROF' symbols '$TMP/evil.kallsyms' | grep -q $'\\033'"
check "and in lookups" \
	bash -c "! '$KVMPROF' symbols '$TMP/evil.kallsyms' --lookup ffffffff81000011 | grep -q $'\\033'"

# The symbols benchmark times each parse in a new process (bench/bench_symtab.c):
# it must parse the whole table there and count that process's page faults.
"$KVMPROF" symbols /proc/kallsyms >"$TMP/host.kallsyms"
line=$("$BUILD/bench/bench_symtab" "$TMP/host.kallsyms" 1000 2>&1)
n=$(wc -l <"$TMP/host.kallsyms")
check "bench_symtab parses all $n host symbols in its child processes ($line)" \
	grep -qE "^parse_ms=[0-9.]+ parse_cpu_ms=[0-9.]+ faults=[1-9][0-9]* symbols=$n " <<<"$line"
check "bench_symtab fails on a file it cannot parse" \
	bash -c "! '$BUILD/bench/bench_symtab' '$TMP/empty' 1000 2>/dev/null"
