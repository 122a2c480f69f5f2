#!/bin/bash
# build-tools.sh: build each tools/guest/NAME.c, and the administrator's
# tool tools/lsnamespaces/, into a program NAME, twice: for the guest
# (static) in build/tools/guest/ and for the host in build/tools/host/.
#
# A program that includes <libsmartcols.h> or <libmount.h> is linked with
# that library; for the guest statically when a static library exists and
# dynamically otherwise (the initramfs then carries the libraries it needs).
# A program is rebuilt when one of its sources or headers, a header of
# tools/include/ or this script is newer than it.
. "$(dirname "$0")/lib.sh"

# Two runs at once would write the same files.
mkdir -p "$BUILD"
exec 8>"$BUILD/.tools.lock"
flock 8

CFLAGS=(-std=c11 -Wall -Wextra -Werror -O2)
guest_dir=$BUILD/tools/guest
host_dir=$BUILD/tools/host
mkdir -p "$guest_dir" "$host_dir"

# A program is a file tools/guest/NAME.c or the folder tools/lsnamespaces/.
shopt -s nullglob
programs=(tools/guest/*.c tools/lsnamespaces)
headers=(tools/include/*.h)

# Programs whose source is gone.
for bin in "$guest_dir"/* "$host_dir"/*; do
	[[ -f tools/guest/${bin##*/}.c || ${bin##*/} == lsnamespaces ]] || rm -f "$bin"
done

# static_ok LIB: a static build of LIB exists.
static_ok() {
	local libdir
	pkg-config --exists "$1" || return 1
	libdir=$(pkg-config --variable=libdir "$1")
	[[ -f $libdir/lib$1.a ]]
}

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

# compile OUTPUT NAME SOURCES -- EXTRA-FLAGS...
compile() {
	local out=$1 name=$2 srcs=()
	shift 2
	while [[ $1 != -- ]]; do
		srcs+=("$1")
		shift
	done
	shift
	cleanup_add "$out.tmp"
	gcc "${CFLAGS[@]}" -o "$out.tmp" "${srcs[@]}" "$@" || die "tools: $name does not compile"
	mv "$out.tmp" "$out"
}

built=()
for prog in "${programs[@]}"; do
	name=${prog##*/}
	name=${name%.c}
	if [[ -d $prog ]]; then
		srcs=("$prog"/*.c)
		deps=("$prog"/*.c "$prog"/*.h)
	else
		srcs=("$prog")
		deps=("$prog")
	fi
	libs=()
	for lib in smartcols mount; do
		grep -q "^[[:space:]]*#[[:space:]]*include[[:space:]]*<lib$lib" \
			"${deps[@]}" && libs+=("$lib")
	done
	host_libs=()
	guest_flags=(-static)
	if ((${#libs[@]})); then
		read -ra host_libs <<<"$(pkg-config --cflags --libs "${libs[@]}")"
		static=1
		for lib in "${libs[@]}"; do
			static_ok "$lib" || static=
		done
		if [[ $static ]]; then
			read -ra guest_flags <<<"-static $(pkg-config --static --cflags --libs "${libs[@]}")"
		else
			guest_flags=("${host_libs[@]}")
		fi
	fi
	# --filter where libsmartcols has filters (2.40 and later).
	if [[ " ${libs[*]} " == *" smartcols "* ]] &&
		pkg-config --atleast-version=2.40 smartcols; then
		host_libs+=(-DHAVE_SCOLS_FILTER)
		guest_flags+=(-DHAVE_SCOLS_FILTER)
	fi
	deps+=("${headers[@]}" "$0")
	if out_of_date "$host_dir/$name" "${deps[@]}"; then
		compile "$host_dir/$name" "$name" "${srcs[@]}" -- "${host_libs[@]}"
		built+=("$name")
	fi
	if out_of_date "$guest_dir/$name" "${deps[@]}"; then
		compile "$guest_dir/$name" "$name" "${srcs[@]}" -- "${guest_flags[@]}"
		[[ ${built[-1]-} == "$name" ]] || built+=("$name")
	fi
done
if ((${#built[@]})); then
	msg "tools: built ${built[*]} (host and guest, in $BUILD/tools/)"
else
	msg "tools: ${#programs[@]} programs up to date"
fi
