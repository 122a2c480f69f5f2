# Shared by the pipeline scripts (tools/*.sh, guest-rootfs/build.sh).
# Sourced, not run: sets strict mode, moves to the top of the checkout and
# defines the paths and helpers the scripts have in common.
set -euo pipefail
shopt -s nullglob

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

# Paths are relative to the top of the checkout, so that messages name
# them the way the README does.
BUILD=build
TREE=$BUILD/linux
SERIES_DIR=series
SERIES_FILE=$SERIES_DIR/series
# sha256 of the series as last applied to (or exported from) the tree
SERIES_STAMP=$TREE/.git/nsfs-series-stamp
# the tree's HEAD right after that: commits on top of it are local work
SERIES_HEAD=$TREE/.git/nsfs-series-head
KERNEL_TARBALL=/usr/src/linux-source-6.12.tar.xz
FLAVORS=(debug lean unpatched)

# The kernel's make must not inherit the flags and variables of the make
# that runs these scripts (jobserver, V=, TESTS=, ...).
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES GNUMAKEFLAGS

msg() { printf '==> %s\n' "$*" >&2; }
die() { printf '%s\n' "$*" >&2; exit 1; }

# The config fragments of a kernel flavor, in merge order.
flavor_fragments() {
	case $1 in
	debug) echo kernel-config/base.config kernel-config/namespacefs.config kernel-config/debug.config ;;
	lean) echo kernel-config/base.config kernel-config/namespacefs.config ;;
	# lean without the series, for the benchmarks' comparisons
	unpatched) echo kernel-config/base.config ;;
	*) die "KERNEL=$1: expected one of: ${FLAVORS[*]}" ;;
	esac
}

# The patches series/series lists, in order (quilt format: one name a
# line, '#' comments, options after the name ignored).
series_patches() {
	[[ -f $SERIES_FILE ]] || return 0
	local name rest
	while read -r name rest; do
		case $name in '' | '#'*) continue ;; esac
		printf '%s\n' "$name"
	done <"$SERIES_FILE"
}

# sha256 of the series: the series file and every patch it lists.
series_hash() {
	local p
	{
		[[ -f $SERIES_FILE ]] && cat "$SERIES_FILE"
		while read -r p; do
			[[ -f $SERIES_DIR/$p ]] || die "series: $p is listed in $SERIES_FILE but missing"
			printf '== %s\n' "$p"
			cat "$SERIES_DIR/$p"
		done < <(series_patches)
	} | sha256sum | cut -d' ' -f1
}

# Record that the tree now holds the series (plus nothing else).
series_stamp_write() {
	series_hash >"$SERIES_STAMP.tmp"
	mv "$SERIES_STAMP.tmp" "$SERIES_STAMP"
	git -C "$TREE" rev-parse HEAD >"$SERIES_HEAD"
}

tree_require() {
	[[ -d $TREE/.git ]] || die "no kernel tree in $TREE: run 'make tree' (or 'make check')"
}

# unpatched_tree: a git worktree of the tree at `base` (no series), for the
# unpatched flavor; prints its path.
unpatched_tree() {
	local wt=$BUILD/linux-unpatched
	if [[ ! -e $wt/.git ]]; then
		git -C "$TREE" worktree prune
		git -C "$TREE" worktree add -q --detach "$ROOT/$wt" base >&2
	elif [[ $(git -C "$wt" rev-parse HEAD) != "$(git -C "$TREE" rev-parse base)" ]]; then
		git -C "$wt" checkout -q --detach base
	fi
	echo "$wt"
}

# Seconds since $1 (a $SECONDS value), for timings.
since() { echo "$((SECONDS - $1)) s"; }
