#!/bin/bash
# Runs inside L1 (see l1-run.sh) on the kernel with kernel/series applied:
# the tiny guest under nested KVM, sampled system-wide with
# PERF_SAMPLE_GUEST_CTX by guestctx-check, the guest's debugfs files read
# while it runs, then the KVM selftest of the series if it was built.
# Everything lands in the current folder (/tmp/results); the host side
# (tests/integration/50-kernel-series.sh) judges it.
#
#   guestctx-selftest-l1.sh BUILD_DIR [SELFTEST_BINARY]
set -u
BUILD=$1
SELFTEST=${2:-}

"$BUILD/tinyvm/tinyvmm" --seconds 9 "$BUILD/tinyvm/payload.elf" >vmm.out 2>&1 &
vmm=$!
echo "vmm-pid: $vmm" >>status

# The VM's debugfs folder is <creator pid>-<vm fd>; wait for vCPU 0 to appear.
vcpu_dir=
for _ in $(seq 50); do
	for d in /sys/kernel/debug/kvm/"$vmm"-*/vcpu0; do
		[[ -d $d ]] && vcpu_dir=$d
	done
	[[ -n $vcpu_dir ]] && break
	sleep 0.1
done
sleep 1 # let the guest reach its loops
if [[ -n $vcpu_dir ]]; then
	echo "guest_lstar-mode: $(stat -c %a "$vcpu_dir/guest_lstar" 2>&1)" >>debugfs.out
	echo "guest_lstar: $(cat "$vcpu_dir/guest_lstar" 2>&1)" >>debugfs.out
	# The first series had a guest_cr3 file; the second dropped it.
	if [[ -e $vcpu_dir/guest_cr3 ]]; then
		echo "guest_cr3: present" >>debugfs.out
	else
		echo "guest_cr3: absent" >>debugfs.out
	fi
	# Mode 0400 must keep everyone else out, whatever capabilities remain.
	if setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		--bounding-set=-all cat "$vcpu_dir/guest_lstar" >/dev/null 2>&1; then
		echo "guest_lstar-nobody: readable" >>debugfs.out
	else
		echo "guest_lstar-nobody: denied" >>debugfs.out
	fi
else
	echo "vcpu-dir: missing" >>debugfs.out
	ls -R /sys/kernel/debug/kvm >>debugfs.out 2>&1
fi

"$BUILD/guestctx/guestctx-check" -t 3 >check.out 2>&1
echo "check: $?" >>status
# With exclude_guest, cpu-clock still samples the guest, with zeros.
"$BUILD/guestctx/guestctx-check" -x -t 2 >check-xg.out 2>&1
echo "check-xg: $?" >>status

# Who may open events with the bit: root, and an unprivileged user under
# the kernel's default perf_event_paranoid (2).
echo "paranoid: $(cat /proc/sys/kernel/perf_event_paranoid)" >perm.out
"$BUILD/guestctx/guestctx-check" -P | sed 's/^perm: /perm-root: /' >>perm.out 2>&1
setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all \
	"$BUILD/guestctx/guestctx-check" -P | sed 's/^perm: /perm-nobody: /' >>perm.out 2>&1
wait $vmm
echo "vmm: $?" >>status

if [[ -n $SELFTEST ]]; then
	timeout 120 "$SELFTEST" >selftest.out 2>&1
	echo "selftest: $?" >>status
fi
exit 0
