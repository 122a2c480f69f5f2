#!/bin/bash
# build-kernel.sh FLAVOR: configure and build build/kernel-FLAVOR/arch/x86/boot/bzImage
# from build/linux. FLAVOR is debug (base + namespacefs + debug fragments),
# lean (base + namespacefs) or unpatched (base only, built from a worktree
# of build/linux at the tag `base`: the same kernel without the series).
#
# The configuration is redone only when a fragment or the tree's HEAD
# changed since the last one (a stamp in the output directory); the build
# itself is always run and left to Kbuild, which does nothing when nothing
# changed.
. "$(dirname "$0")/lib.sh"

flavor=${1:?usage: build-kernel.sh debug|lean|unpatched|kcsan}
read -ra fragments <<<"$(flavor_fragments "$flavor")"
tree_require
tree_lock shared
src=$TREE
[[ $flavor == unpatched ]] && src=$(unpatched_tree)

out=$BUILD/kernel-$flavor
mkdir -p "$out"
# Two builds in one output directory corrupt each other.
exec 9>"$out/.lock"
if ! flock -n 9; then
	msg "kernel $flavor: waiting for another build in $out"
	flock 9
fi

kernel_configure "$src" "$out" "${fragments[@]}"

image=$out/arch/x86/boot/bzImage
log=$out/build.log
before=$(stat -c %Y.%s "$image" 2>/dev/null || true)
start=$SECONDS
printf '==> kernel %s: building bzImage (log: %s) ... ' "$flavor" "$log" >&2
if ! make -C "$src" O="$ROOT/$out" ARCH=x86_64 CC="ccache gcc" -j"$(nproc)" bzImage >"$log" 2>&1; then
	echo "FAILED after $(since "$start")" >&2
	tail -n 30 "$log" >&2
	die "kernel $flavor: build failed, full log in $log"
fi
if [[ $(stat -c %Y.%s "$image") == "$before" ]]; then
	echo "up to date ($(since "$start"))" >&2
else
	echo "done ($(since "$start"))" >&2
fi
