# Sourced by the L1 scripts that run a Debian L2 built with
# make-l2-initrd.sh, which writes its runtime /proc/kallsyms to a virtio
# serial port backed by a file.
#
# wait_l2_kallsyms FILE: wait (up to two minutes) until FILE holds the whole
# table: over 1 MB and no longer growing.
wait_l2_kallsyms() {
	local file=$1 last=-1 size
	for _ in $(seq 1 120); do
		sleep 1
		size=$(stat -c %s "$file")
		[ "$size" -gt 1000000 ] && [ "$size" = "$last" ] && return 0
		last=$size
	done
	return 1
}
