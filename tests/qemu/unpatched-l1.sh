#!/bin/bash
# Runs inside L1 (see l1-run.sh) on a kernel without the kvmprof series
# (Debian's own linux-image): notes the kernel, then the same Debian L2 run
# as on the patched kernel (debian-guest-l1.sh), so that the host side
# (tests/integration/46-unpatched-host.sh) can check the fallbacks.
#   unpatched-l1.sh BUILD_DIR VMLINUZ L2_INITRD
set -u
echo "l1-kernel: $(uname -r)" >>status
echo "kvm: $([ -c /dev/kvm ] && echo yes || echo no)" >>status
echo "debugfs-lstar: $(ls /sys/kernel/debug/kvm/*/vcpu*/guest_lstar 2>/dev/null | wc -l)" >>status
exec "$(dirname "$0")/debian-guest-l1.sh" "$@"
