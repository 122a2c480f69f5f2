#!/bin/bash
# build.sh: build the guest's initramfs, build/initramfs.cpio.gz.
#
# Writes a gen_init_cpio list (build/initramfs.list) describing the whole
# root file system, merged-/usr layout:
#   /init                  guest-rootfs/init
#   /etc                   guest-rootfs/etc/
#   /usr/bin, /usr/sbin    the programs of guest-rootfs/files.list, bash as
#                          sh, busybox, and links to busybox for every applet
#                          no program provides
#   /usr/lib...            the libraries ldd lists for them, the loader
#   /usr/bin/bats, /usr/lib/bats-core, /usr/libexec/bats-core, /usr/lib/bats
#   /usr/local/bin         build/tools/guest/*
#   /usr/lib/kselftest     build/selftests/ (tools/pipeline/build-selftests.sh), if built
#   /tests/suite           bats-tests/
#   /home/user1, user2     owned by uid 1000 and 1001; all else by root
# and packs it with the kernel's usr/gen_init_cpio. The archive is rebuilt
# only when the list or the content of a file in it changed.
. "$(dirname "$0")/../tools/pipeline/lib.sh"
tree_require
tree_lock shared

# Two runs at once would write the same files.
mkdir -p "$BUILD"
exec 8>"$BUILD/.initramfs.lock"
flock 8

gen=$BUILD/gen_init_cpio
list=$BUILD/initramfs.list
out=$BUILD/initramfs.cpio.gz
stamp=$BUILD/initramfs.stamp

if [[ ! -x $gen || $TREE/usr/gen_init_cpio.c -nt $gen ]]; then
	gcc -O2 -o "$gen" "$TREE/usr/gen_init_cpio.c"
fi

declare -A dirs=() entries=()

# add_dir PATH [MODE UID GID]: a directory and its parents.
add_dir() {
	local path=$1 mode=${2:-0755} uid=${3:-0} gid=${4:-0}
	[[ -z $path || $path == / ]] && return
	[[ ${dirs[$path]-} && $# -eq 1 ]] && return
	dirs[$path]="dir $path $mode $uid $gid"
	add_dir "${path%/*}"
}
add_parent() {
	local parent=${1%/*}
	[[ $parent ]] && add_dir "$parent"
	return 0
}
check_name() {
	[[ $1 != *[[:space:]]* ]] || die "initramfs: cannot pack a name with white space: '$1'"
}
# add_file PATH SOURCE [MODE]
add_file() {
	check_name "$1"
	check_name "$2"
	add_parent "$1"
	local src=$2
	[[ $src == /* ]] || src=$ROOT/$src
	entries[$1]="file $1 $src ${3:-0644} 0 0"
}
# add_link PATH TARGET
add_link() {
	check_name "$1"
	add_parent "$1"
	entries[$1]="slink $1 $2 0777 0 0"
}
# add_tree SOURCE-DIR PATH: a directory tree, keeping symlinks, files
# executable by their owner 0755, others 0644.
add_tree() {
	local src=$1 dest=$2 rel type f
	add_dir "$dest"
	while IFS= read -r -d '' f; do
		rel=${f#"$src"/}
		[[ -d $f && ! -L $f ]] && { add_dir "$dest/$rel"; continue; }
		if [[ -L $f ]]; then
			add_link "$dest/$rel" "$(readlink "$f")"
		elif [[ -x $f ]]; then
			add_file "$dest/$rel" "$f" 0755
		else
			add_file "$dest/$rel" "$f" 0644
		fi
	done < <(find "$src" -mindepth 1 -print0 | LC_ALL=C sort -z)
}
# guest_path HOST-PATH: where a host file goes in the guest, merged /usr
# (/lib64/ld-linux-x86-64.so.2 -> /usr/lib64/ld-linux-x86-64.so.2).
guest_path() {
	local dir
	dir=$(realpath "$(dirname "$1")")
	[[ $dir == /usr/* ]] || dir=/usr$dir
	echo "$dir/${1##*/}"
}
# add_libs BINARY: the shared libraries and the loader it needs.
add_libs() {
	local lib
	while read -r lib; do
		[[ ${entries[$(guest_path "$lib")]-} ]] ||
			add_file "$(guest_path "$lib")" "$(realpath "$lib")" 0755
	done < <(ldd "$1" 2>/dev/null | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }' || true)
}
# add_program HOST-PATH [GUEST-PATH]
add_program() {
	local src=$1 dest=${2:-$(guest_path "$1")}
	[[ -f $src ]] || die "initramfs: $src not found"
	add_file "$dest" "$(realpath "$src")" 0755
	add_libs "$src"
}

# The skeleton.
for d in /dev /proc /sys /run /mnt /usr/bin /usr/sbin /usr/lib /usr/lib64 /usr/local/bin /usr/local/sbin /tests; do
	add_dir "$d"
done
add_dir /root 0700
add_dir /tmp 1777
add_dir /var/tmp 1777
add_dir /home
add_dir /home/user1 0755 1000 1000
add_dir /home/user2 0755 1001 1001
add_link /bin usr/bin
add_link /sbin usr/sbin
add_link /lib usr/lib
add_link /lib64 usr/lib64
entries[/dev/console]="nod /dev/console 0600 0 0 c 5 1"
add_file /init guest-rootfs/init 0755
add_file /usr/local/sbin/examples guest-rootfs/examples 0755
add_tree guest-rootfs/etc /etc

# Programs, with bash as sh: busybox sh would run its own applets (its
# unshare, nsenter) instead of util-linux's.
while read -r prog _; do
	case $prog in '' | '#'*) continue ;; esac
	add_program "$prog"
done <guest-rootfs/files.list
add_link /usr/bin/sh bash
add_program /usr/bin/busybox

# bats and its libraries, at the paths bats finds them from.
add_file /usr/bin/bats /usr/bin/bats 0755
add_tree /usr/lib/bats-core /usr/lib/bats-core
add_tree /usr/libexec/bats-core /usr/libexec/bats-core
for lib in bats-support bats-assert bats-file; do
	add_tree "/usr/lib/bats/$lib" "/usr/lib/bats/$lib"
done
# Terminal descriptions for the interactive shell.
[[ -d /usr/lib/terminfo ]] && add_tree /usr/lib/terminfo /usr/lib/terminfo

for tool in "$BUILD"/tools/guest/*; do
	add_program "$tool" "/usr/local/bin/${tool##*/}"
done
# The kernel's namespace selftests, for bats-tests/selftests.bats.
if [[ -d $BUILD/selftests ]]; then
	for prog in "$BUILD"/selftests/*/*; do
		add_program "$prog" "/usr/lib/kselftest/${prog#"$BUILD/selftests/"}"
	done
fi
add_tree bats-tests /tests/suite

# busybox applets, where no program provides the name.
while read -r applet; do
	name=${applet##*/}
	case $applet in
	bin/* | usr/bin/*) dest=/usr/bin/$name target=busybox ;;
	sbin/* | usr/sbin/*) dest=/usr/sbin/$name target=../bin/busybox ;;
	*) continue ;;
	esac
	[[ $name == init || ${entries[/usr/bin/$name]-} || ${entries[/usr/sbin/$name]-} ]] && continue
	add_link "$dest" "$target"
done < <(/usr/bin/busybox --list-full)

cleanup_add "$list.tmp" "$out.tmp"
{
	echo "# generated by guest-rootfs/build.sh"
	printf '%s\n' "${dirs[@]}" | LC_ALL=C sort -k2,2
	printf '%s\n' "${entries[@]}" | LC_ALL=C sort -k2,2
} >"$list.tmp"
mv "$list.tmp" "$list"

want=$({
	cat "$list"
	awk '$1 == "file" { print $3 }' "$list" | xargs -d '\n' sha256sum
} | sha256sum | cut -d' ' -f1)
if [[ -f $out && $want == "$(cat "$stamp" 2>/dev/null)" ]]; then
	msg "initramfs: $out up to date"
	exit 0
fi
"$gen" -t 0 "$list" | gzip -n -6 >"$out.tmp"
mv "$out.tmp" "$out"
echo "$want" >"$stamp"
msg "initramfs: built $out ($(du -h "$out" | cut -f1), $(grep -c '^[a-z]' "$list") entries)"
