#!/bin/bash
# build-tools.sh: build each tools/NAME.c into a program NAME, twice: for the
# guest (static) in build/tools/guest/ and for the host in build/tools/host/.
#
# A program that includes <libsmartcols.h> is linked with libsmartcols; for
# the guest it is linked statically when a static libsmartcols exists and
# dynamically otherwise (the initramfs then carries the libraries it needs).
# A program is rebuilt when its source, a tools/*.h header or this script is
# newer than it.
. "$(dirname "$0")/lib.sh"

# Two runs at once would write the same files.
mkdir -p "$BUILD"
exec 8>"$BUILD/.tools.lock"
flock 8

CFLAGS=(-std=c11 -Wall -Wextra -Werror -O2)
guest_dir=$BUILD/tools/guest
host_dir=$BUILD/tools/host
mkdir -p "$guest_dir" "$host_dir"

sources=(tools/*.c)
headers=(tools/*.h)

# Programs whose source is gone.
for bin in "$guest_dir"/* "$host_dir"/*; do
	[[ -f tools/${bin##*/}.c ]] || rm -f "$bin"
done
if ((${#sources[@]} == 0)); then
	msg "tools: no tools/*.c to build"
	exit 0
fi

smartcols_static=
if pkg-config --exists smartcols; then
	libdir=$(pkg-config --variable=libdir smartcols)
	[[ -f $libdir/libsmartcols.a ]] && smartcols_static=1
fi

# out_of_date OUTPUT INPUT...
out_of_date() {
	local out=$1 in
	shift
	[[ -f $out ]] || return 0
	for in in "$@"; do
		[[ $in -nt $out ]] && return 0
	done
	return 1
}

# compile OUTPUT SOURCE EXTRA-FLAGS...
compile() {
	local out=$1 src=$2
	shift 2
	if ! gcc "${CFLAGS[@]}" -o "$out.tmp" "$src" "$@"; then
		rm -f "$out.tmp"
		die "tools: ${src##*/} does not compile"
	fi
	mv "$out.tmp" "$out"
}

built=()
for src in "${sources[@]}"; do
	name=${src##*/}
	name=${name%.c}
	host_libs=()
	guest_flags=(-static)
	if grep -q '^[[:space:]]*#[[:space:]]*include[[:space:]]*<libsmartcols' "$src"; then
		read -ra host_libs <<<"$(pkg-config --cflags --libs smartcols)"
		if [[ $smartcols_static ]]; then
			read -ra guest_flags <<<"-static $(pkg-config --static --cflags --libs smartcols)"
		else
			guest_flags=("${host_libs[@]}")
		fi
	fi
	deps=("$src" "${headers[@]}" "$0")
	if out_of_date "$host_dir/$name" "${deps[@]}"; then
		compile "$host_dir/$name" "$src" "${host_libs[@]}"
		built+=("$name")
	fi
	if out_of_date "$guest_dir/$name" "${deps[@]}"; then
		compile "$guest_dir/$name" "$src" "${guest_flags[@]}"
		[[ ${built[-1]-} == "$name" ]] || built+=("$name")
	fi
done
if ((${#built[@]})); then
	msg "tools: built ${built[*]} (host and guest, in $BUILD/tools/)"
else
	msg "tools: ${#sources[@]} programs up to date"
fi
