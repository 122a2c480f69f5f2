# Shared by the pipeline scripts (tools/pipeline/*.sh, tools/bench/bench.sh, guest-rootfs/build.sh).
# Sourced, not run: sets strict mode, moves to the top of the checkout and
# defines the paths and helpers the scripts have in common.
set -euo pipefail
shopt -s nullglob

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
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
# The kernel source; NSFS_KERNEL_TARBALL names another (the pipeline's
# own tests use a small one).
KERNEL_TARBALL=${NSFS_KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
FLAVORS=(debug lean unpatched kcsan)

# The kernel's make must not inherit the flags and variables of the make
# that runs these scripts (jobserver, V=, TESTS=, ...).
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES GNUMAKEFLAGS

msg() { printf '==> %s\n' "$*" >&2; }
die() { printf '%s\n' "$*" >&2; exit 1; }

# Paths removed when the script ends, however it ends (an error, a full
# disk, Ctrl-C, kill): temporary files and directories, half-written
# outputs. Bash runs the EXIT trap on a signal only if the signal is
# trapped, hence the three traps.
# cleanup_kill PID: a background child (a guest) that must not outlive
# the script: it gets SIGTERM and is waited for.
_cleanup=()
_cleanup_pids=()
cleanup_add() { _cleanup+=("$@"); }
cleanup_kill() { _cleanup_pids+=("$@"); }
_cleanup_run() {
	local pid
	for pid in "${_cleanup_pids[@]}"; do
		kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	done
	if ((${#_cleanup[@]})); then
		rm -rf -- "${_cleanup[@]}"
	fi
	return 0
}
trap _cleanup_run EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# tree_lock shared|exclusive: hold the lock of the kernel tree until the
# script ends. The steps that change build/linux (prepare-tree, series,
# clean) take it exclusive; those that read it (builds, lint) shared.
tree_lock() {
	local mode=-s
	[[ $1 == exclusive ]] && mode=-x
	mkdir -p "$BUILD"
	exec 6>"$BUILD/.tree.lock"
	if ! flock -n "$mode" 6; then
		msg "tree: waiting for another step that uses $TREE (build/.tree.lock)"
		flock "$mode" 6
	fi
}

# git that never signs (a user's commit.gpgsign would ask for a key in the
# middle of a build) and never opens an editor.
git_nosign() { GIT_EDITOR=: git -c commit.gpgsign=false -c tag.gpgSign=false "$@"; }

# The config fragments of a kernel flavor, in merge order.
flavor_fragments() {
	case $1 in
	debug) echo kernel-config/base.config kernel-config/namespacefs.config kernel-config/test.config kernel-config/debug.config ;;
	lean) echo kernel-config/base.config kernel-config/namespacefs.config ;;
	# lean without the series, for the benchmarks' comparisons
	unpatched) echo kernel-config/base.config ;;
	# the data-race checker (KCSAN excludes KASAN), for `make check-series`
	kcsan) echo kernel-config/base.config kernel-config/namespacefs.config kernel-config/test.config kernel-config/kcsan.config ;;
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

# Set from the moment prepare-tree.sh resets the tree to apply the series
# until the last patch is in: a tree with it holds part of the series and
# nothing else, and the next run applies the series again.
SERIES_APPLYING=$TREE/.git/nsfs-series-applying

# Record that the tree now holds the series (plus nothing else).
series_stamp_write() {
	cleanup_add "$SERIES_STAMP.tmp"
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

# kernel_configure SRC OUT FRAGMENT...: configure a kernel in OUT from the
# fragments, unless it already is from these fragments and this HEAD of
# SRC (a stamp in OUT). The caller holds OUT's lock.
kernel_configure() {
	local src=$1 out=$2 stamp want f
	shift 2
	stamp=$out/.nsfs-config-stamp
	want=$({
		for f in "$@"; do
			printf '== %s\n' "$f"
			cat "$f"
		done
		printf 'tree %s\n' "$(git -C "$src" rev-parse HEAD)"
	} | sha256sum | cut -d' ' -f1)
	[[ -f $out/.config && $want == "$(cat "$stamp" 2>/dev/null)" ]] && return 0
	msg "kernel ${out##*/kernel-}: configuring from ${*##*/} (log: $out/config.log)"
	rm -f "$stamp"
	tools/pipeline/kconfig.sh "$src" "$out" "$@"
	echo "$want" >"$stamp"
}

# Seconds since $1 (a $SECONDS value), for timings.
since() { echo "$((SECONDS - $1)) s"; }
