#!/bin/bash
# The C sources are as clang-format leaves them (the project's .clang-format,
# kernel-like): a change that is not fails here, naming its files. `make
# format` formats them.
. "$(dirname "$0")/../lib.sh"

command -v clang-format >/dev/null || {
	fail "clang-format available (run scripts/deps.sh: clang-format)"
	exit 1
}
mapfile -t files < <(cd "$REPO" && find lib prof guestfs-mount bench tests -name '*.[ch]' | sort)
check "there are sources to check (${#files[@]})" test "${#files[@]}" -gt 100
bad=()
for f in "${files[@]}"; do
	(cd "$REPO" && clang-format --dry-run --Werror "$f" >/dev/null 2>&1) || bad+=("$f")
done
if [ ${#bad[@]} -eq 0 ]; then
	ok "every C source is clang-formatted"
else
	fail "every C source is clang-formatted (${#bad[@]} are not; make format)"
	printf '#   %s\n' "${bad[@]}"
fi
