#!/bin/bash
# The bash completion of kvmprof and guestfs-mount, sourced into a plain bash
# and called as readline would call it: COMP_WORDS and COMP_CWORD set, no
# interactive shell and no bash-completion package needed. Commands and
# options come from the built programs' help.
. "$(dirname "$0")/../lib.sh"

export PATH=$BUILD:$PATH

# complete_words FUNCTION WORD...: what FUNCTION offers for the last WORD.
complete_words() {
	bash -c '. "$1"; . "$2"; f=$3; shift 3
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=()
		"$f" && printf "%s\n" "${COMPREPLY[@]}"' _ \
		"$REPO/completion/kvmprof" "$REPO/completion/guestfs-mount" "$@"
}

# offers NAME WANTED FUNCTION WORD...: WANTED is among what is offered.
offers() {
	local name=$1 want=$2 got
	shift 2
	got=$(complete_words "$@" 2>&1)
	if grep -qxF -- "$want" <<<"$got"; then
		ok "$name"
	else
		fail "$name"
		printf '%s\n' "$got" | head -10 | sed 's/^/#   offered: /'
	fi
}

# offers_only NAME WANTED FUNCTION WORD...: exactly WANTED (one per line).
offers_only() {
	local name=$1 want=$2 got
	shift 2
	got=$(complete_words "$@" 2>&1 | sort)
	if [ "$got" = "$(sort <<<"$want")" ]; then
		ok "$name"
	else
		fail "$name"
		diff <(sort <<<"$want") <(printf '%s\n' "$got") | sed 's/^/#   /'
	fi
}

offers_only "kvmprof rec -> record" record _kvmprof kvmprof rec
offers "kvmprof report --guestm -> --guestmount" --guestmount _kvmprof kvmprof report --guestm
offers_only "kvmprof report --guestm: only report's options" $'--guestmodules\n--guestmount' \
	_kvmprof kvmprof report --guestm
offers "kvmprof --v -> --version" --version _kvmprof kvmprof --v
offers "kvmprof record -o F --gu -> --guest (options after options)" --guest \
	_kvmprof kvmprof record -o F --gu
offers "kvmprof symbols --sl -> --slide" --slide _kvmprof kvmprof symbols --sl
offers "kvmprof record -a -- ba -> a command (bash)" bash _kvmprof kvmprof record -a -- ba
echo hi >"$TMP/some-file"
offers "kvmprof symbols FILE -> files" "$TMP/some-file" _kvmprof kvmprof symbols "$TMP/some-f"
offers "guestfs-mount --che -> --check" --check _guestfs_mount guestfs-mount --che
offers "guestfs-mount --v -> --version" --version _guestfs_mount guestfs-mount --v
offers "guestfs-mount -c FILE -> files" "$TMP/some-file" _guestfs_mount guestfs-mount -c "$TMP/some-f"

# Every command kvmprof --help lists is offered, and every option each
# command's --help prints: nothing in the completion can go stale.
commands=$("$KVMPROF" --help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z0-9-]*\) .*/\1/p')
check "kvmprof --help lists commands" test -n "$commands"
offers_only "kvmprof '' -> every command" "$commands" _kvmprof kvmprof ""
for c in $commands; do
	want=$( ("$KVMPROF" "$c" --help | grep -oE -- '--[a-z][a-z0-9-]*'; echo --help) | sort -u)
	offers_only "kvmprof $c -- -> every option of its --help" "$want" _kvmprof kvmprof "$c" --
done
