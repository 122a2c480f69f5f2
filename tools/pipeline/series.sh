#!/bin/bash
# series.sh: write the commits of build/linux since the tag `base` to series/
# as NNNN-*.patch files (git format-patch), list them in series/series, and
# record that the tree holds exactly this series, so that the next
# `make check` does not apply it again.
#
# The output is stable: regenerating without a change in the tree rewrites
# no file. series/0000-cover-letter.patch is left alone and not listed.
. "$(dirname "$0")/lib.sh"
tree_require
tree_lock exclusive
git -C "$TREE" rev-parse -q --verify base >/dev/null || die "series: $TREE has no tag 'base'"
# Exporting a tree that holds part of the series would delete the rest
# from series/.
[[ -e $SERIES_APPLYING ]] &&
	die "series: $TREE holds only part of the series (a 'make tree' stopped while applying it); nothing exported: run 'make tree' to apply series/ again"
[[ -d $TREE/.git/rebase-apply || -d $TREE/.git/rebase-merge ]] &&
	die "series: $TREE is in the middle of a git am or rebase; finish or abort it first, nothing exported"

if [[ -n $(git -C "$TREE" status --porcelain --untracked-files=no) ]]; then
	msg "series: note: $TREE has uncommitted changes; they are not exported"
fi

tmp=$(mktemp -d)
cleanup_add "$tmp"
# --zero-commit and --no-signature drop what changes from one run to the
# next; a fixed abbreviation keeps the index lines from depending on the
# number of objects in the repository.
git -C "$TREE" -c core.abbrev=12 -c diff.noprefix=false -c format.signOff=false \
	format-patch -q --zero-commit --no-signature --no-cover-letter --no-thread -o "$tmp" base..HEAD

mkdir -p "$SERIES_DIR"
new=()
for f in "$tmp"/*.patch; do
	new+=("${f##*/}")
done
changed=0
for name in "${new[@]}"; do
	if ! cmp -s "$tmp/$name" "$SERIES_DIR/$name"; then
		cp "$tmp/$name" "$SERIES_DIR/$name"
		changed=$((changed + 1))
	fi
done
removed=0
for f in "$SERIES_DIR"/[0-9][0-9][0-9][0-9]-*.patch; do
	name=${f##*/}
	[[ $name == 0000-cover-letter.patch ]] && continue
	[[ " ${new[*]} " == *" $name "* ]] && continue
	rm -f "$f"
	removed=$((removed + 1))
done
printf '%s\n' "${new[@]}" | sed '/^$/d' >"$tmp/series"
cmp -s "$tmp/series" "$SERIES_FILE" || cp "$tmp/series" "$SERIES_FILE"

series_stamp_write
msg "series: ${#new[@]} patches in $SERIES_DIR/ ($changed written, $removed removed)"
