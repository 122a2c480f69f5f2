#!/bin/bash
# prepare-tree.sh: make build/linux the Debian kernel source with the series
# applied on top.
#
# The first run extracts linux-source-6.12 into build/linux and commits it
# as the git tag `base`. Every run then compares the series with the stamp
# written when it was last applied; when they differ, the tree is reset to
# `base` and each patch is applied with `git am`. Commits made in the tree
# after that are local work: they are built as they are, and the tree is
# not reset over them until they are exported with `make series`.
#
# An interruption at any point (Ctrl-C, kill, a full disk) leaves a state
# the next run recovers from by itself: the extraction works in a
# temporary directory and moves the tree into place last; while the series
# is being applied, a marker in the tree's .git says that the tree holds
# part of the series and nothing else, so the next run applies it again
# (and `make series` refuses to export it).
. "$(dirname "$0")/lib.sh"
tree_lock exclusive

extract() {
	[[ -e $TREE ]] && die "tree: $TREE exists but is not a git repository; move it away"
	[[ -f $KERNEL_TARBALL ]] || die "tree: $KERNEL_TARBALL not found (package linux-source-6.12)"
	msg "tree: extracting $KERNEL_TARBALL into $TREE"
	mkdir -p "$BUILD"
	local tmp top
	# What an extraction killed outright left behind (we hold the lock).
	rm -rf "$BUILD"/.extract.*
	tmp=$(mktemp -d "$BUILD/.extract.XXXXXX")
	cleanup_add "$tmp"
	tar -xJf "$KERNEL_TARBALL" -C "$tmp"
	top=("$tmp"/*)
	((${#top[@]} == 1)) || die "tree: expected one directory in $KERNEL_TARBALL"
	# Debian's packaging ignores everything at the top level: drop that
	# block (and the '#' line that opens it) so git sees the tree.
	sed -i '/^# Debian packaging: ignore everything/,$d' "$top/.gitignore"
	[[ $(tail -n 1 "$top/.gitignore") == '#' ]] && sed -i '$d' "$top/.gitignore"

	local version
	version=$(make -s -C "$top" kernelversion)
	git -C "$top" init -q
	# A background repack of 80,000 files would compete with the build.
	git -C "$top" config gc.auto 0
	if ! git -C "$top" config user.email >/dev/null; then
		git -C "$top" config user.name "Namespacefs Team"
		git -C "$top" config user.email "namespacefs@example.org"
	fi
	git -C "$top" add -A
	git_nosign -C "$top" commit -q -m "linux-source-$version (pristine)"
	git -C "$top" tag base
	mv "$top" "$TREE"
}

apply_series() {
	local patches=("$@") p out
	# From here until the stamp is written the tree holds part of the
	# series and nothing else: a run that stops (an error, a signal, a
	# patch that does not apply) leaves the marker for the next one.
	: >"$SERIES_APPLYING"
	git -C "$TREE" am --abort >/dev/null 2>&1 || true
	git -C "$TREE" reset -q --hard base
	for p in "${patches[@]}"; do
		if ! out=$(git_nosign -C "$TREE" am -q "$ROOT/$SERIES_DIR/$p" 2>&1); then
			git -C "$TREE" am --abort >/dev/null 2>&1 || true
			printf '%s\n' "$out" | grep -vE '^(hint:|When you have resolved|If you prefer to skip|To restore the original)' |
				sed 's/^/  /' >&2 || true
			die "series: $p does not apply; fix it in $SERIES_DIR/ and run 'make tree' again"
		fi
		[[ $out ]] && printf '%s\n' "$out" | sed "s/^/  $p: /" >&2
	done
	series_stamp_write
	rm -f "$SERIES_APPLYING"
}

# normalize PATCH: a patch without what differs between two exports of
# the same commit (its hash, index abbreviations, the signature).
normalize() {
	sed -e '1{/^From [0-9a-f]\{40\} /d;}' -e '/^index [0-9a-f]*\.\.[0-9a-f]*/d' -e '/^-- $/,$d' "$1"
}

# tree_holds_series PATCH...: do the commits since base match the series?
tree_holds_series() {
	local tmp count i=0 f ok=0
	count=$(git -C "$TREE" rev-list --count base..HEAD)
	((count == $#)) || return 1
	(($#)) || return 0
	tmp=$(mktemp -d)
	cleanup_add "$tmp"
	git -C "$TREE" format-patch -q --no-cover-letter --no-thread -o "$tmp" base..HEAD
	for f in "$tmp"/*.patch; do
		i=$((i + 1))
		cmp -s <(normalize "$f") <(normalize "$SERIES_DIR/${!i}") || { ok=1; break; }
	done
	rm -rf "$tmp"
	return "$ok"
}

[[ -d $TREE/.git ]] || extract
git -C "$TREE" rev-parse -q --verify base >/dev/null || die "tree: $TREE has no tag 'base'"

mapfile -t patches < <(series_patches)
n=${#patches[@]}

# The last run stopped while applying the series: the tree holds part of
# it and nothing else. A git killed outright leaves its index lock, which
# no other git of ours can hold while we hold the tree lock.
if [[ -e $SERIES_APPLYING ]]; then
	msg "series: the last run stopped while applying the series; applying all $n patches again"
	rm -f "$TREE/.git/index.lock"
	apply_series "${patches[@]}"
	exit 0
fi

want=$(series_hash)
have=$(cat "$SERIES_STAMP" 2>/dev/null || true)
if [[ $want == "$have" ]]; then
	head=$(git -C "$TREE" rev-parse HEAD)
	local_commits=0
	if [[ -f $SERIES_HEAD ]] && git -C "$TREE" merge-base --is-ancestor "$(cat "$SERIES_HEAD")" HEAD 2>/dev/null; then
		local_commits=$(git -C "$TREE" rev-list --count "$(cat "$SERIES_HEAD")..HEAD")
	fi
	if ((local_commits)); then
		msg "series: $n patches applied, plus $local_commits local commit$( ((local_commits == 1)) || echo s) in $TREE"
	else
		msg "series: $n patches applied"
	fi
	exit 0
fi

# The tree may hold the series already (applied by hand, or exported with
# a plain git format-patch): then there is nothing to apply.
if tree_holds_series "${patches[@]}"; then
	series_stamp_write
	msg "series: $n patches, already in $TREE"
	exit 0
fi

# The series changed. Refuse to throw away anything that is not in it.
if [[ -n $(git -C "$TREE" status --porcelain) ]]; then
	die "series: series/ changed, but $TREE has uncommitted changes; commit them and run 'make series', or discard them (git -C $TREE reset --hard; git -C $TREE clean -fd)"
fi
head=$(git -C "$TREE" rev-parse HEAD)
recorded=$(cat "$SERIES_HEAD" 2>/dev/null || true)
if [[ $head != "$(git -C "$TREE" rev-parse base)" && $head != "$recorded" ]]; then
	die "series: series/ changed, but $TREE has commits since base that are not in it; export them with 'make series', or drop them with 'git -C $TREE reset --hard base'"
fi
msg "series: applying $n patches onto base"
apply_series "${patches[@]}"
