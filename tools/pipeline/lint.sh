#!/bin/bash
# lint.sh: the gates the kernel community applies to the series.
#
#   - scripts/checkpatch.pl --strict on every patch of series/;
#   - scripts/kernel-doc -none -Wall on the files the series adds or changes
#     in fs/namespacefs/ and on the registry;
#   - fs/namespacefs/ and kernel/nstree.c built with W=1 and C=2 (sparse),
#     with the debug kernel's configuration, in an output directory of their
#     own (build/kernel-lint): the flags differ from the kernel's build, and
#     sharing its directory would rebuild and relink the kernel each time.
#
# Exceptions, with their reasons:
#   FILE_PATH_CHANGES  checkpatch asks "does MAINTAINERS need updating?" for
#                      every patch that adds a file; the NAMESPACEFS entry of
#                      patch 1 (and patch 2 for the registry) covers them.
. "$(dirname "$0")/lib.sh"
tree_require
tree_lock shared

failed=0
work=$BUILD/lint
rm -rf "$work"
mkdir -p "$work"

# checkpatch treats a path that git tracks as a source file, not a patch:
# check copies.
mapfile -t patches < <(series_patches)
for p in "${patches[@]}"; do
	cp "$SERIES_DIR/$p" "$work/$p"
done
msg "lint: checkpatch --strict on ${#patches[@]} patches"
if ! (cd "$work" && perl "$ROOT/$TREE/scripts/checkpatch.pl" --strict --terse \
	--no-summary --ignore FILE_PATH_CHANGES --root="$ROOT/$TREE" \
	"${patches[@]}") >"$work/checkpatch.log" 2>&1 ||
	grep -qE ': (ERROR|WARNING|CHECK):' "$work/checkpatch.log"; then
	grep -E ': (ERROR|WARNING|CHECK):' "$work/checkpatch.log"
	failed=1
fi

files=("$TREE"/fs/namespacefs/*.[ch] "$TREE"/kernel/nstree.c "$TREE"/include/linux/nstree.h)
msg "lint: kernel-doc -none -Wall on ${#files[@]} files"
if ! "$TREE"/scripts/kernel-doc -none -Wall "${files[@]}" >"$work/kernel-doc.log" 2>&1 ||
	[[ -s $work/kernel-doc.log ]]; then
	cat "$work/kernel-doc.log"
	failed=1
fi

read -ra fragments <<<"$(flavor_fragments debug)"
out=$BUILD/kernel-lint
mkdir -p "$out"
exec 9>"$out/.lock"
flock 9
kernel_configure "$TREE" "$out" "${fragments[@]}"
msg "lint: W=1 C=2 (sparse) on fs/namespacefs/ and kernel/nstree.o (log: $work/build.log)"
make -C "$TREE" O="$ROOT/$out" ARCH=x86_64 CC="ccache gcc" -j"$(nproc)" W=1 C=2 \
	fs/namespacefs/ kernel/nstree.o >"$work/build.log" 2>&1 || failed=1
if grep -E 'warning:|error:' "$work/build.log"; then
	failed=1
fi

((failed)) && die "lint: problems found (logs in $work)"
msg "lint: clean"
