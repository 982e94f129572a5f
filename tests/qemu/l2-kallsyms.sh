# Sourced by the L1 scripts that run a Debian L2 built with
# make-l2-initrd.sh, which writes its runtime /proc/kallsyms to a virtio
# serial port backed by a file.
#
# wait_l2_kallsyms FILE PID: wait (up to two minutes) until FILE holds the
# whole table: over 1 MB and no longer growing. Returns 2 at once when PID
# (L2's QEMU) has exited without it.
wait_l2_kallsyms() {
	local file=$1 pid=$2 last=-1 size
	for _ in $(seq 1 120); do
		sleep 1
		size=$(stat -c %s "$file")
		[ "$size" -gt 1000000 ] && [ "$size" = "$last" ] && return 0
		kill -0 "$pid" 2>/dev/null || return 2
		last=$size
	done
	return 1
}

# l2_unslid FILE: true when the kallsyms in FILE put _text at x86-64's
# default 0xffffffff81000000. KASLR picks that slot now and then (one of
# some 470); a test of the slide then tests nothing, so the L1 scripts boot
# L2 again.
l2_unslid() {
	awk '$3 == "_text" && $1 == "ffffffff81000000" { f = 1 } END { exit !f }' "$1"
}

# l2_boot FILE CMD...: run CMD (L2's QEMU, which writes L2's kallsyms to
# FILE) in the background, its output in l2-console.log, and wait for the
# table; when it is at the unslid address (l2_unslid), boot L2 again, at
# most twice, each time said in ./status. Sets L2_PID; returns 1 when no
# table came, and says in ./status when QEMU ended before writing it.
l2_boot() {
	local file=$1 n ret
	shift
	for n in 1 2 3; do
		: >"$file"
		"$@" >l2-console.log 2>&1 &
		L2_PID=$!
		wait_l2_kallsyms "$file" $L2_PID
		ret=$?
		if [ $ret = 2 ]; then
			wait $L2_PID
			echo "l2: boot $n: QEMU exited (status $?) before L2 wrote its kallsyms" >>status
		fi
		[ $ret = 0 ] || return 1
		[ $n -lt 3 ] && l2_unslid "$file" || return 0
		echo "l2: boot $n is at the unslid address: boot again" >>status
		kill $L2_PID
		wait $L2_PID
	done
}

# The port "go" (see make-l2-initrd.sh): L2 waits on it before its work.
# l2_go_prepare makes its FIFOs in a folder of L1's own /tmp (the results
# folder is 9p, which has no FIFOs) and sets L2_GO_ARGS, the QEMU
# arguments that attach it (next to -device virtio-serial-pci).
l2_go_prepare() {
	L2_GO_DIR=$(mktemp -d /tmp/l2-go.XXXXXX) || return 1
	mkfifo "$L2_GO_DIR/go.in" "$L2_GO_DIR/go.out" || return 1
	L2_GO_ARGS=(-chardev "pipe,id=go,path=$L2_GO_DIR/go" -device virtserialport,chardev=go,name=go)
}

# l2_go MARKER...: once every MARKER file exists (each recorder's command
# makes one, and runs only once its recorder's events are enabled), let
# L2 start its work. After a minute without them it lets L2 go anyway, so
# that the run ends, and returns 1.
l2_go() {
	local ret=1 all m
	for _ in $(seq 1 300); do
		all=1
		for m; do [ -e "$m" ] || all=0; done
		[ $all = 1 ] && { ret=0; break; }
		sleep 0.2
	done
	# QEMU holds go.in open for reading; timeout guards against its exit.
	timeout 10 sh -c 'echo go >"$1/go.in"' sh "$L2_GO_DIR"
	return $ret
}

# wait_exit PID SECONDS: wait for PID, a child of this shell, to exit, at
# most SECONDS; then sets EXIT_STATUS. Returns 1 when PID still runs.
wait_exit() {
	local pid=$1 n=$(($2 * 5))
	while [ $n -gt 0 ] && kill -0 "$pid" 2>/dev/null; do
		sleep 0.2
		n=$((n - 1))
	done
	kill -0 "$pid" 2>/dev/null && return 1
	wait "$pid"
	EXIT_STATUS=$?
	return 0
}

# proc_state PID: where PID waits, in one line (state, wait channel,
# system call, innermost kernel frames): what a hung run leaves to go on.
proc_state() {
	local p=/proc/$1
	printf 'state %s, wchan %s, syscall %s, stack %s' \
		"$(awk '/^State:/ { print $2 }' "$p/status" 2>/dev/null)" \
		"$(cat "$p/wchan" 2>/dev/null)" "$(cut -d' ' -f1 "$p/syscall" 2>/dev/null)" \
		"$(head -4 "$p/stack" 2>/dev/null | awk '{ print $2 }' | paste -sd' ')"
}

# wait_recorder PID NAME SECONDS: the recorder PID's status in ./status as
# "NAME: STATUS"; when it has not exited SECONDS after its workload ended,
# where it waits instead, and it is killed.
wait_recorder() {
	local pid=$1 name=$2
	if wait_exit "$pid" "$3"; then
		echo "$name: $EXIT_STATUS" >>status
		return
	fi
	echo "$name: still running $3 s after L2 exited: $(proc_state "$pid"); killed" >>status
	kill -9 "$pid"
	wait "$pid"
}
