#!/bin/bash
# Copies of the deb-2part test image (/boot on sda1, / on sda2) as many
# guests are: an fstab naming /dev/sda2 and /dev/sda1 (inside its VM a guest
# sees only its own disk), new filesystem UUIDs and a hostname each
# (guestK). All filesystem work happens inside the libguestfs appliance.
#
#   devname-copies.sh N OUTDIR [--drop-61 K]
#
# Writes OUTDIR/guest1.qcow2 .. guestN.qcow2; --drop-61 K removes the 6.1
# kernel from guest K's /boot, so that its /boot differs from the others'.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
N=$1 OUT=$2
DROP=0
[ "${3:-}" = --drop-61 ] && DROP=$4
IMG=$("$REPO/tests/data-builders/guest-images.sh")
V61=$(awk '$1 == "v61" { print $2; exit }' "$IMG/inputs")
. "$REPO/scripts/guestfs-env.sh"
mkdir -p "$OUT"
printf '/dev/sda2 / ext4 errors=remount-ro 0 1\n/dev/sda1 /boot ext4 defaults 0 2\n' >"$OUT/fstab"
{
	for ((i = 1; i <= N; i++)); do
		cp "$IMG/deb-2part.qcow2" "$OUT/guest$i.qcow2"
		echo "add-drive $OUT/guest$i.qcow2 format:qcow2"
	done
	echo run
	for ((i = 1; i <= N; i++)); do
		d=/dev/sd$(printf "\\x$(printf %x $((96 + i)))")
		for p in 1 2; do
			# tune2fs changes the UUID of a checked filesystem only.
			echo "e2fsck ${d}$p forceall:true"
			echo "set-uuid ${d}$p $(cat /proc/sys/kernel/random/uuid)"
		done
		echo "mount ${d}2 /"
		echo "upload $OUT/fstab /etc/fstab"
		echo "write /etc/hostname \"guest$i\\n\""
		echo "mount ${d}1 /boot"
		[ "$i" = "$DROP" ] && echo "rm-f /boot/vmlinuz-$V61"
		echo "umount-all"
	done
} >"$OUT/prepare.fish"
guestfish <"$OUT/prepare.fish"
rm -f "$OUT/prepare.fish" "$OUT/fstab"
