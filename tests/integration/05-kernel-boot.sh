#!/bin/bash
# test-lane: alone (tests/run-tests.sh)
# The project's kernel boots under QEMU software emulation with nested KVM,
# KASLR, and the host root over virtio-9p (tests/qemu/boot-smoke.sh); and
# tests/qemu/l1-run.sh, which the later suites boot L1 with, retries an L1
# that reset and not one that panicked.
. "$(dirname "$0")/../lib.sh"
"$REPO/tests/qemu/boot-smoke.sh"
rc_boot=$?

# tests/qemu/l1-run.sh runs an L1 once more when it resets without a kernel
# message before its script ends (the emulator's doing, now and then, as a
# nested guest starts), and not when its kernel panics. A script (outside
# OUT, which the retry empties) resets L1 on its first run only.
D=$BUILD/l1-results/l1-run
rm -rf "$D" && mkdir -p "$D/out"
cat >"$D/reset-once.sh" <<'SH'
#!/bin/bash
if [ ! -e l1-reset/mark ]; then
	echo first >mark
	sync
	busybox reboot -f
	sleep 30
fi
echo second >mark
SH
printf '#!/bin/bash\necho c >/proc/sysrq-trigger\nsleep 30\n' >"$D/panic.sh"
chmod +x "$D"/*.sh
"$REPO/tests/qemu/l1-run.sh" -t 120 "$D/out" "$D/reset-once.sh" 2>"$D/reset.err"
rc=$?
check "l1-run: an L1 that reset runs once more, and succeeds (status $rc)" test $rc = 0
check "l1-run: says that L1 reset" grep -q '^# l1-run: L1 reset .*once more' "$D/reset.err"
check "l1-run: the first run's files are kept in l1-reset/" grep -qx first "$D/out/l1-reset/mark"
check "l1-run: the second run wrote anew" grep -qx second "$D/out/mark"
check "l1-run: L1's console is kept" test -s "$D/out/l1-console.log"
rm -rf "$D/out" && mkdir -p "$D/out"
# Debian's kernel: the project's has no magic SysRq to crash it with.
debian_612
"$REPO/tests/qemu/l1-run.sh" -k "$DEBIAN_612" -t 120 "$D/out" "$D/panic.sh" 2>"$D/panic.err"
rc=$?
check "l1-run: an L1 whose kernel panics fails (status $rc)" test $rc = 1
check "l1-run: a panic is not run again" test ! -e "$D/out/l1-reset"
check "l1-run: the panic's console lines are shown" grep -q '^#   .*Kernel panic' "$D/panic.err"
exit $rc_boot
