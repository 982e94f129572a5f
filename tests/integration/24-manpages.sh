#!/bin/bash
# The manual pages in man/: each renders without a warning (mandoc's lint and
# man-db's groff), each command kvmprof --help lists has its page, and each
# page documents exactly the long options of its command: those the parser
# takes, which its --help must print too. Adding an option without
# documenting it, or a command without a page, fails here.
. "$(dirname "$0")/../lib.sh"

MAN=$REPO/man
for tool in mandoc man; do
	command -v $tool >/dev/null || {
		fail "$tool available (run scripts/deps.sh: mandoc, man-db)"
		exit 1
	}
done
[ -x "$KVMPROF" ] && [ -x "$GUESTFS_MOUNT" ] || {
	fail "$KVMPROF and $GUESTFS_MOUNT built (run make)"
	exit 1
}

pages=("$MAN"/*.[1-8])
check "man/ has pages" test -e "${pages[0]}"

# --- each page renders cleanly --------------------------------------------------
lint() {
	local out
	out=$(mandoc -T lint -W warning "$1" 2>&1) && [ -z "$out" ] || {
		echo "$out"
		return 1
	}
}
groff_warnings() {
	local out
	out=$(MANWIDTH=80 man --warnings -l "$1" 2>&1 >/dev/null) && [ -z "$out" ] || {
		echo "$out"
		return 1
	}
}
# The file is NAME.SECTION, and the page says so in .Dt and .Nm.
named_as_file() {
	local base=${1##*/} name sec
	name=${base%.*} sec=${base##*.}
	grep -qx "\.Dt ${name^^} $sec" "$1" && grep -qE "^\.Nm $name( |\$)" "$1"
}
for p in "${pages[@]}"; do
	check "${p##*/}: mandoc -T lint: no warning" lint "$p"
	check "${p##*/}: man --warnings -l: no warning" groff_warnings "$p"
	check "${p##*/}: .Dt and .Nm name the file" named_as_file "$p"
done

# --- options ------------------------------------------------------------------
# The long options a help text on stdin offers: in its synopses (the lines
# from each "usage:" to the next blank one) and at the start of an option line
# ("  -x, --name", "      --name"), not where prose names another
# program's option. --help itself is left out everywhere.
help_options() {
	local text
	text=$(cat)
	{
		awk '/^usage:/ { u = 1 } /^$/ { u = 0 } u' <<<"$text"
		grep -E '^ +(-[a-zA-Z0-9], +)?--[a-z]' <<<"$text" |
			sed -E 's/^ +(-[a-zA-Z0-9], +)?(--[a-z][a-z0-9-]*).*/\2/'
	} | grep -oE -- '--[a-z][a-z0-9-]*' | grep -vx -- --help | sort -u
}
# The long options a page's option list (.It lines) documents.
page_options() {
	grep -E '^\.It ' "$1" | grep -oE 'Fl -[a-z][a-z0-9-]*' | sed 's/^Fl /-/' |
		grep -vx -- --help | sort -u
}
# The long options a parser's getopt_long table in C file $1 takes.
source_options() {
	grep -oE '\{ *"[a-z][a-z0-9-]*", *(no|required|optional)_argument' "$1" |
		sed -E 's/\{ *"([^"]*)".*/--\1/' | grep -vx -- --help | sort -u
}

# same_options NAME WANT GOT WANT_WHAT GOT_WHAT: two sorted lists are equal.
same_options() {
	local name=$1 d
	if d=$(diff <(printf '%s\n' "$2") <(printf '%s\n' "$3")); then
		ok "$name"
	else
		fail "$name"
		sed -n "s|^< |#   only in $4: |p; s|^> |#   only in $5: |p" <<<"$d"
	fi
}

# options_match LABEL PAGE HELP_TEXT [SOURCE]: the page documents what the
# help offers, and the parser (when given) takes no option the help hides.
options_match() {
	local label=$1 page=$2 help=$3 src=${4-} h p s
	h=$(help_options <<<"$help")
	p=$(page_options "$page")
	check "$label: --help offers long options" test -n "$h"
	same_options "$label: every --help option in ${page##*/}, and no other" \
		"$h" "$p" "--help" "${page##*/}"
	if [ -n "$src" ]; then
		s=$(source_options "$src")
		same_options "$label: --help shows every option ${src#"$REPO"/} takes" \
			"$s" "$(comm -12 <(printf '%s\n' "$s") <(printf '%s\n' "$h"))" \
			"${src#"$REPO"/}" "both"
	fi
}

# subcommands: the "subcommands:" list of a help text on stdin.
subcommands() { sed -n '/^subcommands:/,/^$/s/^  \([a-z][a-z0-9-]*\) .*/\1/p'; }
# The help of command $1, and of every subcommand its usage names
# ("kvmprof stat exits ...") and of theirs: one page documents them all.
command_helps() {
	local c=$1 sub s
	"$KVMPROF" "$c" --help
	for sub in $("$KVMPROF" "$c" --help | sed -n "s/^ *\(usage: \)\?kvmprof $c \([a-z][a-z-]*\) .*/\2/p"); do
		for s in $("$KVMPROF" "$c" "$sub" --help | subcommands); do
			"$KVMPROF" "$c" "$sub" "$s" --help
		done
	done
}
commands=$("$KVMPROF" --help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z0-9-]*\) .*/\1/p')
check "kvmprof --help lists commands" test -n "$commands"
for c in $commands; do
	page=$MAN/kvmprof-$c.1
	if [ ! -f "$page" ]; then
		fail "kvmprof $c has a page: man/kvmprof-$c.1"
		continue
	fi
	check "kvmprof(1) names kvmprof-$c(1)" grep -qx "\.Xr kvmprof-$c 1 ,\?" "$MAN/kvmprof.1"
	src=$REPO/prof/cmd-$c.c
	[ -f "$src" ] || src=
	options_match "kvmprof $c" "$page" "$(command_helps "$c")" "$src"
done
# No page for a command that does not exist.
for p in "$MAN"/kvmprof-*.1; do
	c=${p##*/kvmprof-}
	c=${c%.1}
	check "kvmprof-$c(1): kvmprof $c is a command" grep -qx "$c" <<<"$commands"
done
options_match "guestfs-mount" "$MAN/guestfs-mount.8" "$("$GUESTFS_MOUNT" --help)" \
	"$REPO/guestfs-mount/main.c"

# The comparison must catch a page that lost an option and a help that hides one.
sed '/^\.It Fl -guestmount/d' "$MAN/kvmprof-report.1" >"$TMP/lost.1"
out=$(options_match "lost" "$TMP/lost.1" "$("$KVMPROF" report --help)")
check "an option missing from a page is caught" grep -q "^not ok - lost: every --help" <<<"$out"
out=$(options_match "hidden" "$MAN/kvmprof-report.1" \
	"$("$KVMPROF" report --help | grep -v -- '--no-header')" "$REPO/prof/cmd-report.c")
check "an option the help hides is caught" grep -q "^not ok - hidden: --help shows" <<<"$out"
