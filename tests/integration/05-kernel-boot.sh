#!/bin/bash
# test-lane: alone (tests/run-tests.sh)
# The project's kernel boots under QEMU software emulation with nested KVM,
# KASLR, and the host root over virtio-9p (tests/qemu/boot-smoke.sh).
. "$(dirname "$0")/../lib.sh"
"$REPO/tests/qemu/boot-smoke.sh"
