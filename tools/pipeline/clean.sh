#!/bin/bash
# clean.sh: remove the build output, keeping the kernel tree build/linux.
# clean.sh --all: remove build/ altogether, unless the kernel tree holds
# work that is not in series/ (FORCE=1 removes it anyway).
. "$(dirname "$0")/lib.sh"
[[ -d $BUILD ]] && tree_lock exclusive

if [[ ${1-} != --all ]]; then
	[[ -d $BUILD ]] || exit 0
	find "$BUILD" -mindepth 1 -maxdepth 1 ! -name linux ! -name .tree.lock -exec rm -rf {} +
	msg "clean: removed the build output in $BUILD/ (kept $TREE)"
	exit 0
fi

# A tree that holds part of the series holds nothing that is not in series/.
if [[ -d $TREE/.git && ${FORCE-} != 1 && ! -e $SERIES_APPLYING ]]; then
	if [[ -n $(git -C "$TREE" status --porcelain) ]]; then
		die "distclean: $TREE has uncommitted changes; commit them and run 'make series', or use FORCE=1"
	fi
	head=$(git -C "$TREE" rev-parse HEAD)
	if [[ $head != "$(git -C "$TREE" rev-parse base)" && $head != "$(cat "$SERIES_HEAD" 2>/dev/null)" ]]; then
		die "distclean: $TREE has commits that are not in series/; run 'make series' first, or use FORCE=1"
	fi
fi
rm -rf "$BUILD"
msg "distclean: removed $BUILD/"
