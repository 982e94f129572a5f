#!/bin/bash
# The inputs of a Debian L2 recording made by debian-guest-l1.sh in L1, as
# one key: the recorder and the other binaries L1 runs from this machine,
# the scripts that make the run and the L2 initramfs, the L2 kernel, and
# the L1 kernel (kernel/build.sh's folder is keyed by its own inputs). A
# run whose folder holds this key in inputs.key made the same recording
# that a new run would make: 45-debian-guest leaves its key there, and the
# benchmarks take its files instead of booting L1 again.
#   debian-guest-key.sh BUILD_DIR VMLINUZ
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD=$1 VMLINUZ=$2
{
	for f in "$BUILD/kvmprof" "$BUILD/guestctx/kvm-guest-regs" /bin/busybox \
		"$(command -v qemu-system-x86_64)" "$(command -v perf)" \
		"$HERE"/{l1-run,debian-guest-l1,l2-kallsyms,make-l2-initrd}.sh; do
		echo "$f $(sha256sum <"$f" | cut -d' ' -f1)"
	done
	echo "l2-kernel $VMLINUZ"
	echo "l1-kernel $("$HERE/../../kernel/build.sh" --print-dir)"
} | sha256sum | cut -d' ' -f1
