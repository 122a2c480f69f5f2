#!/bin/bash
# build-selftests.sh: build the kernel's own namespace selftests from the
# tree (tools/testing/selftests/DIR for each DIR of $dirs) with the host's
# gcc into build/selftests/DIR/, for bats-tests/selftests.bats to run in the
# guest.
#
# They are compiled against the tree's UAPI headers (`make headers` into
# build/selftests-headers/usr/include), so that they test the kernel they
# boot with rather than the host's headers, and linked dynamically: the
# guest has the C library already (guest-rootfs/build.sh copies what ldd
# lists), and statically linked they would add 12 MB to the initramfs.
# Everything is rebuilt when the tree's HEAD or this script changed since
# the last build (build/selftests.stamp).
. "$(dirname "$0")/lib.sh"
tree_require
tree_lock shared

# Two runs at once would write the same files.
mkdir -p "$BUILD"
exec 8>"$BUILD/.selftests.lock"
flock 8

dirs=(nsfs timens pid_namespace proc pidfd clone3)
out=$BUILD/selftests
headers=$BUILD/selftests-headers
stamp=$BUILD/selftests.stamp
log=$BUILD/selftests.log

want=$({
	git -C "$TREE" rev-parse HEAD
	cat "$0"
} | sha256sum | cut -d' ' -f1)
if [[ -d $out && $want == "$(cat "$stamp" 2>/dev/null)" ]]; then
	msg "selftests: $out up to date"
	exit 0
fi

start=$SECONDS
rm -f "$stamp"
rm -rf "$out.tmp"
cleanup_add "$out.tmp"
: >"$log"
msg "selftests: building ${dirs[*]} from $TREE (log: $log)"
# The headers out of tree, like the kernels: the source tree stays clean.
if ! make -C "$TREE" O="$ROOT/$headers" headers >>"$log" 2>&1; then
	tail -n 30 "$log" >&2
	die "selftests: make headers failed, full log in $log"
fi
# lib.mk takes KHDR_INCLUDES for the directories that ask for the headers;
# USERCFLAGS gives them to the others too (nsfs and timens set CFLAGS
# themselves). TEST_GEN_PROGS_EXTENDED is emptied: in these directories it
# holds only timens/gettime_perf, a benchmark, not a test.
inc="-isystem $ROOT/$headers/usr/include"
for d in "${dirs[@]}"; do
	mkdir -p "$out.tmp/$d"
	if ! make -C "$TREE/tools/testing/selftests/$d" OUTPUT="$ROOT/$out.tmp/$d" \
		KHDR_INCLUDES="$inc" USERCFLAGS="$inc" TEST_GEN_PROGS_EXTENDED= >>"$log" 2>&1; then
		tail -n 30 "$log" >&2
		die "selftests: $d does not build, full log in $log"
	fi
done
rm -rf "$out"
mv "$out.tmp" "$out"
echo "$want" >"$stamp"
msg "selftests: built $(find "$out" -type f -perm -u+x | wc -l) programs in $out ($(since "$start"))"
