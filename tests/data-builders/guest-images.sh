#!/bin/bash
# Build the guest disk images the guestfs-mount tests inspect, once, into
#
#   $KVMPROF_CACHE/images/<key>/
#
# where <key> hashes this script and the identity of every input file, so a
# change to either builds a new set. Prints the folder on stdout (logs go to
# stderr). All filesystem work happens inside the libguestfs appliance
# (guestfish): nothing is mounted on the host.
#
# Images (all with a Debian /etc/os-release, /bin/ls, /lib -> usr/lib):
#   deb-2part.qcow2  qcow2, MBR, /boot (sda1) and / (sda2) separate, both Debian
#                    kernels (vmlinuz, placeholder System.map, config, a few
#                    modules; 6.1's .ko plain, 6.12's .ko.xz); /boot/config-6.1
#                    is an absolute symlink into /boot/configs/ (resolved in the
#                    guest), lib/modules/*/build a dangling symlink.
#   deb-1part.raw    raw, MBR, one partition, the same two kernels, and a GRUB
#                    set to boot the older one (grub.cfg as grub-mkconfig
#                    writes it with GRUB_DEFAULT=saved, and a grubenv whose
#                    saved_entry names 6.1's entry in the Advanced submenu).
#   sysmap.raw       raw, no partition table, the project's kernel with its
#                    real System.map.
#   debug.qcow2      qcow2, one partition, the project's kernel with Debian's
#                    placeholder System.map and a debug vmlinux in
#                    /usr/lib/debug/boot/.
#   noos.raw         raw, a filesystem with some files and no OS.
#   nokernel.qcow2   qcow2, a Debian root with an empty /boot.
#   trunc-src.qcow2  qcow2, the deb-1part root (own UUIDs), for the tests to
#                    truncate: a cut copy of an image that is also inspected
#                    would share its filesystem UUIDs.
#   bls.qcow2        qcow2, laid out as Fedora installs it: /boot (sda1) and /
#                    (sda2), GRUB in /boot/grub2 whose grub.cfg only runs
#                    blscfg, Boot Loader Specification entries in
#                    /boot/loader/entries (both kernels and a rescue entry) and
#                    a grubenv whose saved_entry names the older kernel's entry.
#
# Usage: guest-images.sh [--print-inputs]
set -euo pipefail

CACHE=${KVMPROF_CACHE:-/var/cache/kvmprof}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)

log() { echo "guest-images: $*" >&2; }
die() { log "error: $*"; exit 1; }

# --- inputs ------------------------------------------------------------------------

mapfile -t debs < <("$repo/scripts/fetch-debian-kernels.sh" --print)
[ "${#debs[@]}" -ge 2 ] || die "need Debian's 6.1 and 6.12 kernel packages (scripts/fetch-debian-kernels.sh)"
k61=$(printf '%s\n' "${debs[@]}" | grep -m1 'linux-image-6\.1\.') || die "no 6.1 kernel package"
k612=$(printf '%s\n' "${debs[@]}" | grep -m1 'linux-image-6\.12\.') || die "no 6.12 kernel package"
v61=$(basename "$(ls "$k61"/boot/vmlinuz-*)"); v61=${v61#vmlinuz-}
v612=$(basename "$(ls "$k612"/boot/vmlinuz-*)"); v612=${v612#vmlinuz-}

pdir=$("$repo/kernel/build.sh" --print-dir 2>/dev/null || true)
if [ -n "$pdir" ] && [ -f "$pdir/bzImage" ] && [ -f "$pdir/System.map" ] && [ -f "$pdir/vmlinux" ]; then
	pver=$(cat "$pdir/release" 2>/dev/null || echo 6.12.0-kvmprof)
else
	die "the project kernel build (kernel/build.sh) is needed for the System.map and debug vmlinux images"
fi

inputs="script $(sha256sum <"${BASH_SOURCE[0]}" | cut -c1-16)
k61 $k61 $(stat -c '%s %Y' "$k61/boot/vmlinuz-$v61")
k612 $k612 $(stat -c '%s %Y' "$k612/boot/vmlinuz-$v612")
project $pver $(stat -c '%s %Y' "$pdir/bzImage" "$pdir/System.map" "$pdir/vmlinux" | tr '\n' ' ')
libguestfs $(dpkg-query -W -f='${Version}' libguestfs0 2>/dev/null || true)"
if [ "${1-}" = --print-inputs ]; then
	printf '%s\n' "$inputs"
	exit 0
fi
key=$(printf '%s\n' "$inputs" | sha256sum | cut -c1-16)
out=$CACHE/images/$key
if [ -f "$out/.complete" ]; then
	echo "$out"
	exit 0
fi

mkdir -p "$CACHE/images"
exec 9>"$CACHE/images/.lock"
flock 9
if [ -f "$out/.complete" ]; then
	echo "$out"
	exit 0
fi
rm -rf "$CACHE"/images/.tmp-*
tmp=$(mktemp -d "$CACHE/images/.tmp-$key.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
log "building test disk images in $out (one appliance launch, about a minute)"

# --- staging folders on the host (plain files only; copied in by guestfish) --------

# A Debian-like root: /etc files, /usr/bin/ls, /usr/lib/modules/<ver>/ for each kernel.
stage_root() {
	local dir=$1 host=$2
	shift 2
	mkdir -p "$dir/etc" "$dir/usr/bin" "$dir/usr/lib/modules" "$dir/usr/sbin" "$dir/var" \
		"$dir/root" "$dir/tmp" "$dir/home"
	cat >"$dir/etc/os-release" <<-EOF
	PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
	NAME="Debian GNU/Linux"
	VERSION_ID="12"
	VERSION="12 (bookworm)"
	VERSION_CODENAME=bookworm
	ID=debian
	HOME_URL="https://www.debian.org/"
	EOF
	echo 12.8 >"$dir/etc/debian_version"
	echo "$host" >"$dir/etc/hostname"
	cp /usr/bin/ls "$dir/usr/bin/ls"
	local pkg
	for pkg in "$@"; do
		local mods=$pkg/lib/modules
		local ver
		ver=$(ls "$mods")
		mkdir -p "$dir/usr/lib/modules/$ver"
		cp "$mods/$ver"/modules.order "$mods/$ver"/modules.builtin "$dir/usr/lib/modules/$ver/"
		(cd "$mods/$ver" && find kernel/arch/x86/kvm kernel/fs/9p kernel/net/9p -name '*.ko*' 2>/dev/null) |
			while read -r ko; do
				mkdir -p "$dir/usr/lib/modules/$ver/$(dirname "$ko")"
				cp "$mods/$ver/$ko" "$dir/usr/lib/modules/$ver/$ko"
			done
	done
}

# /boot for Debian kernel packages: vmlinuz, placeholder System.map, config.
stage_boot() {
	local dir=$1 pkg
	shift
	mkdir -p "$dir"
	for pkg in "$@"; do
		cp "$pkg"/boot/* "$dir/"
	done
}

stage_root "$tmp/deb-root" deb2p "$k61" "$k612"
stage_boot "$tmp/deb-boot" "$k61" "$k612"
# /boot/config-6.1 becomes an absolute symlink into /boot/configs/.
mkdir -p "$tmp/deb-boot/configs"
mv "$tmp/deb-boot/config-$v61" "$tmp/deb-boot/configs/config-$v61"

stage_root "$tmp/d1-root" deb1p "$k61" "$k612"
stage_boot "$tmp/d1-root/boot" "$k61" "$k612"
stage_grub() {
	local dir=$1 id=4f1c
	mkdir -p "$dir"
	{
		printf 'if [ -s $prefix/grubenv ]; then\n  set have_grubenv=true\n  load_env\nfi\n'
		printf 'if [ "${next_entry}" ] ; then\n   set default="${next_entry}"\nelse\n'
		printf '   set default="${saved_entry}"\nfi\n'
		printf "menuentry 'Debian GNU/Linux' --class debian \$menuentry_id_option 'gnulinux-simple-%s' {\n" "$id"
		printf '\tlinux\t/boot/vmlinuz-%s root=UUID=%s ro quiet\n}\n' "$v612" "$id"
		printf "submenu 'Advanced options for Debian GNU/Linux' \$menuentry_id_option 'gnulinux-advanced-%s' {\n" "$id"
		for v in "$v612" "$v61"; do
			printf "\tmenuentry 'Debian GNU/Linux, with Linux %s' --class debian \$menuentry_id_option 'gnulinux-%s-advanced-%s' {\n" "$v" "$v" "$id"
			printf '\t\tlinux\t/boot/vmlinuz-%s root=UUID=%s ro quiet\n\t}\n' "$v" "$id"
		done
		printf '}\n'
	} >"$dir/grub.cfg"
	printf '# GRUB Environment Block\nsaved_entry=gnulinux-advanced-%s>gnulinux-%s-advanced-%s\n' \
		"$id" "$v61" "$id" >"$dir/grubenv"
}
stage_grub "$tmp/d1-root/boot/grub"

# Fedora's layout: grub.cfg makes its menu from the BLS entries (blscfg), and
# grubenv's saved_entry names an entry by its file name without ".conf".
stage_bls() {
	local boot=$1 mid=8e1c3a0b5f2a4c7e9d6b1f0a2c3d4e5f v file
	mkdir -p "$boot/grub2" "$boot/loader/entries"
	cat >"$boot/grub2/grub.cfg" <<-'CFG'
	set pager=1
	if [ -f ${config_directory}/grubenv ]; then
	  load_env -f ${config_directory}/grubenv
	elif [ -s $prefix/grubenv ]; then
	  load_env
	fi
	if [ "${next_entry}" ] ; then
	   set default="${next_entry}"
	   set next_entry=
	   save_env next_entry
	   set boot_once=true
	else
	   set default="${saved_entry}"
	fi
	### BEGIN /etc/grub.d/10_linux ###
	insmod part_msdos
	insmod ext2
	insmod blscfg
	blscfg
	### END /etc/grub.d/10_linux ###
	CFG
	for v in "$v61" "$v612" "0-rescue-$mid"; do
		file=$mid-$v.conf
		[ "$v" = "0-rescue-$mid" ] && file=$mid-0-rescue.conf
		{
			printf 'title Fedora Linux (%s) 39 (Thirty Nine)\nversion %s\n' "$v" "$v"
			printf 'linux /vmlinuz-%s\ninitrd /initramfs-%s.img\n' "$v" "$v"
			printf 'options root=UUID=%s62 ro rhgb quiet\n' "$U"
			printf 'grub_users $grub_users\ngrub_arg --unrestricted\ngrub_class fedora\n'
		} >"$boot/loader/entries/$file"
	done
	printf '# GRUB Environment Block\nsaved_entry=%s-%s\nmenu_auto_hide=1\nboot_success=1\n' \
		"$mid" "$v61" >"$boot/grub2/grubenv"
}
U=5a1e0000-0000-4000-8000-0000000000
stage_root "$tmp/bls-root" blsguest "$k61" "$k612"
cat >"$tmp/bls-root/etc/os-release" <<-'OSR'
NAME="Fedora Linux"
VERSION="39 (Thirty Nine)"
ID=fedora
VERSION_ID=39
PRETTY_NAME="Fedora Linux 39 (Thirty Nine)"
OSR
rm -f "$tmp/bls-root/etc/debian_version"
echo "Fedora release 39 (Thirty Nine)" >"$tmp/bls-root/etc/fedora-release"
stage_boot "$tmp/bls-boot" "$k61" "$k612"
stage_bls "$tmp/bls-boot"

stage_root "$tmp/sm-root" sysmap
mkdir -p "$tmp/sm-root/boot"
cp "$pdir/bzImage" "$tmp/sm-root/boot/vmlinuz-$pver"
cp "$pdir/System.map" "$tmp/sm-root/boot/System.map-$pver"
cp "$pdir/config" "$tmp/sm-root/boot/config-$pver"

stage_root "$tmp/dbg-root" debug
mkdir -p "$tmp/dbg-root/boot" "$tmp/dbg-root/usr/lib/debug/boot"
cp "$pdir/bzImage" "$tmp/dbg-root/boot/vmlinuz-$pver"
printf 'ffffffffffffffff B The real System.map is in the linux-image-<version>-dbg package\n' \
	>"$tmp/dbg-root/boot/System.map-$pver"
cp "$pdir/vmlinux" "$tmp/dbg-root/usr/lib/debug/boot/vmlinux-$pver"

stage_root "$tmp/nk-root" nokernel
mkdir -p "$tmp/nk-root/boot"

mkdir -p "$tmp/noos/data"
echo "just data" >"$tmp/noos/data/readme.txt"
head -c 100000 /dev/urandom >"$tmp/noos/data/blob"

# --- one guestfish session builds every image ------------------------------------------

# Common tail of a Debian-like root (run with the root mounted at /).
root_links() {
	cat <<-EOF
	ln-s usr/lib /lib
	ln-s usr/bin /bin
	ln-s usr/sbin /sbin
	ln-s usr/lib /lib64
	EOF
}

cat >"$tmp/fstab-2part" <<EOF
UUID=${U}02 / ext4 errors=remount-ro 0 1
UUID=${U}01 /boot ext4 defaults 0 2
EOF
printf 'UUID=%s11 / ext4 errors=remount-ro 0 1\n' "$U" >"$tmp/fstab-1part"
printf 'UUID=%s21 / ext4 errors=remount-ro 0 1\n' "$U" >"$tmp/fstab-sysmap"
printf 'UUID=%s31 / ext4 errors=remount-ro 0 1\n' "$U" >"$tmp/fstab-debug"
printf 'UUID=%s41 / ext4 errors=remount-ro 0 1\n' "$U" >"$tmp/fstab-nokernel"
printf 'UUID=%s51 / ext4 errors=remount-ro 0 1\n' "$U" >"$tmp/fstab-trunc"
cat >"$tmp/fstab-bls" <<EOF
UUID=${U}62 / ext4 defaults 1 1
UUID=${U}61 /boot ext4 defaults 1 2
EOF

. "$repo/scripts/guestfs-env.sh"
img=$tmp/img
mkdir -p "$img"
guestfish <<EOF
disk-create $img/deb-2part.qcow2 qcow2 320M preallocation:off
disk-create $img/deb-1part.raw raw 256M
disk-create $img/sysmap.raw raw 48M
disk-create $img/debug.qcow2 qcow2 96M preallocation:off
disk-create $img/noos.raw raw 16M
disk-create $img/nokernel.qcow2 qcow2 32M preallocation:off
disk-create $img/trunc-src.qcow2 qcow2 256M preallocation:off
disk-create $img/bls.qcow2 qcow2 320M preallocation:off
add-drive $img/deb-2part.qcow2 format:qcow2
add-drive $img/deb-1part.raw format:raw
add-drive $img/sysmap.raw format:raw
add-drive $img/debug.qcow2 format:qcow2
add-drive $img/noos.raw format:raw
add-drive $img/nokernel.qcow2 format:qcow2
add-drive $img/trunc-src.qcow2 format:qcow2
add-drive $img/bls.qcow2 format:qcow2
run

# deb-2part: /boot on sda1, / on sda2
part-init /dev/sda mbr
part-add /dev/sda p 2048 133119
part-add /dev/sda p 133120 -2048
mkfs ext4 /dev/sda1
mkfs ext4 /dev/sda2
set-uuid /dev/sda1 ${U}01
set-uuid /dev/sda2 ${U}02
mount /dev/sda2 /
copy-in $tmp/deb-root/etc $tmp/deb-root/usr $tmp/deb-root/var $tmp/deb-root/root $tmp/deb-root/tmp $tmp/deb-root/home /
$(root_links)
mkdir /boot
mount /dev/sda1 /boot
copy-in $tmp/deb-boot/. /boot
ln-s /boot/configs/config-$v61 /boot/config-$v61
ln-s /usr/src/linux-headers-$v612 /usr/lib/modules/$v612/build
upload $tmp/fstab-2part /etc/fstab
umount-all

# deb-1part: everything on sdb1
part-disk /dev/sdb mbr
mkfs ext4 /dev/sdb1
set-uuid /dev/sdb1 ${U}11
mount /dev/sdb1 /
copy-in $tmp/d1-root/etc $tmp/d1-root/usr $tmp/d1-root/var $tmp/d1-root/root $tmp/d1-root/tmp $tmp/d1-root/home $tmp/d1-root/boot /
$(root_links)
upload $tmp/fstab-1part /etc/fstab
write /etc/hostname "deb1p\n"
umount-all

# sysmap: a filesystem on the whole disk, no partition table
mkfs ext4 /dev/sdc
set-uuid /dev/sdc ${U}21
mount /dev/sdc /
copy-in $tmp/sm-root/etc $tmp/sm-root/usr $tmp/sm-root/var $tmp/sm-root/root $tmp/sm-root/tmp $tmp/sm-root/home $tmp/sm-root/boot /
$(root_links)
upload $tmp/fstab-sysmap /etc/fstab
umount-all

# debug: one partition
part-disk /dev/sdd mbr
mkfs ext4 /dev/sdd1
set-uuid /dev/sdd1 ${U}31
mount /dev/sdd1 /
copy-in $tmp/dbg-root/etc $tmp/dbg-root/usr $tmp/dbg-root/var $tmp/dbg-root/root $tmp/dbg-root/tmp $tmp/dbg-root/home $tmp/dbg-root/boot /
$(root_links)
upload $tmp/fstab-debug /etc/fstab
umount-all

# noos: data only
part-disk /dev/sde mbr
mkfs ext4 /dev/sde1
mount /dev/sde1 /
copy-in $tmp/noos/data /
umount-all

# nokernel: a Debian root, empty /boot
part-disk /dev/sdf mbr
mkfs ext4 /dev/sdf1
set-uuid /dev/sdf1 ${U}41
mount /dev/sdf1 /
copy-in $tmp/nk-root/etc $tmp/nk-root/usr $tmp/nk-root/var $tmp/nk-root/root $tmp/nk-root/tmp $tmp/nk-root/home $tmp/nk-root/boot /
$(root_links)
upload $tmp/fstab-nokernel /etc/fstab
umount-all

# trunc-src: like deb-1part, with its own UUID
part-disk /dev/sdg mbr
mkfs ext4 /dev/sdg1
set-uuid /dev/sdg1 ${U}51
mount /dev/sdg1 /
copy-in $tmp/d1-root/etc $tmp/d1-root/usr $tmp/d1-root/var $tmp/d1-root/root $tmp/d1-root/tmp $tmp/d1-root/home $tmp/d1-root/boot /
$(root_links)
upload $tmp/fstab-trunc /etc/fstab
umount-all

# bls: Fedora's layout, /boot on sdh1 and / on sdh2
part-init /dev/sdh mbr
part-add /dev/sdh p 2048 133119
part-add /dev/sdh p 133120 -2048
mkfs ext4 /dev/sdh1
mkfs ext4 /dev/sdh2
set-uuid /dev/sdh1 ${U}61
set-uuid /dev/sdh2 ${U}62
mount /dev/sdh2 /
copy-in $tmp/bls-root/etc $tmp/bls-root/usr $tmp/bls-root/var $tmp/bls-root/root $tmp/bls-root/tmp $tmp/bls-root/home /
$(root_links)
mkdir /boot
mount /dev/sdh1 /boot
copy-in $tmp/bls-boot/. /boot
upload $tmp/fstab-bls /etc/fstab
write /etc/hostname "blsguest\n"
umount-all
EOF

cat >"$img/inputs" <<EOF
$inputs
v61 $v61
v612 $v612
pver $pver
k61 $k61
k612 $k612
pdir $pdir
EOF
rm -rf "$out"
mv "$img" "$out"
date -u +%Y-%m-%dT%H:%M:%SZ >"$out/.complete"
# Image sets built from older inputs are not used any more.
for old in "$CACHE"/images/*/; do
	old=${old%/}
	[ "$old" = "$out" ] || rm -rf "$old"
done
log "built $out"
echo "$out"
