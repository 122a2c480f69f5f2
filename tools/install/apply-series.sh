#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# apply-series.sh: apply the namespacefs patch series to your own Linux 6.12
# source tree, and optionally configure it, so that you can build a kernel
# package for your machine. See docs/real-machines.md.
#
# Nothing in the tree changes unless the whole series applies: every patch
# is first applied, in order, to copies of the files the series touches in
# a temporary directory. Then the patches are applied to the tree with
# `git apply`, or with `git am` (one commit a patch) when --commit is
# given. Self-contained: needs bash, git, sed and coreutils; --config also
# needs what Kbuild needs to configure a kernel (make, a C compiler, flex,
# bison).
set -euo pipefail

prog=${0##*/}
here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
series_dir=$here/../../series

usage() {
	cat <<EOF
Usage: $prog [--commit] [--config] KERNEL-TREE

Apply the namespacefs patch series (series/, in the order of series/series)
to KERNEL-TREE, a Linux 6.12.y source tree. The tree is left untouched if
any patch does not apply.

Options:
  --commit   apply with 'git am': one commit per patch. KERNEL-TREE must be
             the top of a git repository with no uncommitted changes.
  --config   then configure the tree: start from its .config, or else from
             /boot/config-\$(uname -r); enable NAMESPACE_FS and what it
             depends on; run 'make olddefconfig'; check that
             CONFIG_NAMESPACE_FS=y.
  -h, --help show this help and exit.

Refused, with nothing changed: a directory that is not a Linux source
tree; a version other than 6.12; a tree that already holds the series
(fs/namespacefs/ exists); a tree with the kernel's own namespace registry
(kernel/nstree.c, Linux 6.18 and later), which the series conflicts with.
EOF
}

die() {
	printf '%s: %s\n' "$prog" "$*" >&2
	exit 1
}

say() {
	printf '%s: %s\n' "$prog" "$*"
}

# A tree or directory of the user's must not be taken for part of another
# repository: git apply run in a subdirectory of a repository silently
# skips the paths outside it. Each git command below runs with discovery
# stopped at the directory it works in.
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_PREFIX

parent_of() {
	local p=${1%/*}
	printf '%s\n' "${p:-/}"
}

# git apply, in directory $1, of the patches that follow.
apply_in() {
	local dir=$1
	shift
	(cd "$dir" && GIT_CEILING_DIRECTORIES=$(parent_of "$dir") git apply --whitespace=nowarn "$@")
}

# git in the tree only, never in a repository above it.
tree_git() {
	GIT_CEILING_DIRECTORIES=$(parent_of "$tree") git -C "$tree" "$@"
}

commit=0
config=0
tree=
while (($#)); do
	case $1 in
	--commit) commit=1 ;;
	--config) config=1 ;;
	-h | --help)
		usage
		exit 0
		;;
	--)
		shift
		break
		;;
	-*) die "unknown option $1 (see $prog --help)" ;;
	*)
		[[ -z $tree ]] || die "one KERNEL-TREE only (see $prog --help)"
		tree=$1
		;;
	esac
	shift
done
if (($#)); then
	[[ -z $tree && $# -eq 1 ]] || die "one KERNEL-TREE only (see $prog --help)"
	tree=$1
fi
[[ -n $tree ]] || die "no KERNEL-TREE given (see $prog --help)"

command -v git >/dev/null || die "git is not installed (Debian: apt-get install git)"

# --- The series --------------------------------------------------------------

[[ -f $series_dir/series ]] ||
	die "no series file at $series_dir/series: run this script from a checkout of namespacefs"
series_dir=$(cd "$series_dir" && pwd -P)

# The patches of series/series in order (quilt format: one name a line,
# '#' comments, anything after the name ignored); the cover letter is
# never applied.
patches=()
while read -r name _; do
	case $name in '' | '#'* | 0000-cover-letter*) continue ;; esac
	[[ -f $series_dir/$name ]] || die "series/series lists $name, which is not in $series_dir"
	patches+=("$series_dir/$name")
done <"$series_dir/series"
((${#patches[@]})) || die "series/series lists no patch"

# --- The tree ----------------------------------------------------------------

[[ -d $tree ]] || die "$tree: no such directory"
tree=$(cd "$tree" && pwd -P)
[[ $tree != / ]] || die "refusing /: not a Linux source tree"

makefile_var() {
	sed -n "s/^$1[[:space:]]*=[[:space:]]*\\([^[:space:]]*\\).*/\\1/p" "$tree/Makefile" | head -n 1
}

version='' patchlevel='' sublevel='' extraversion=''
if [[ -f $tree/Makefile ]]; then
	version=$(makefile_var VERSION)
	patchlevel=$(makefile_var PATCHLEVEL)
	sublevel=$(makefile_var SUBLEVEL)
	extraversion=$(makefile_var EXTRAVERSION)
fi
[[ $version =~ ^[0-9]+$ && $patchlevel =~ ^[0-9]+$ ]] ||
	die "refusing $tree: not a Linux source tree (no Makefile with VERSION and PATCHLEVEL)"
[[ -f $tree/Kconfig && -d $tree/fs && -d $tree/kernel && -d $tree/include/linux ]] ||
	die "refusing $tree: not a Linux source tree (no Kconfig, fs/, kernel/ and include/linux/)"
release=$version.$patchlevel${sublevel:+.$sublevel}$extraversion

[[ ! -e $tree/fs/namespacefs ]] ||
	die "refusing $tree: it already holds the series (fs/namespacefs/ exists)"

docs="docs/real-machines.md, \"Kernels from 6.18 on\""
if [[ -e $tree/kernel/nstree.c ]]; then
	if ((version == 6 && patchlevel == 12)); then
		die "refusing $tree: kernel/nstree.c exists but fs/namespacefs/ does not: the tree holds part of this series or another namespace registry; start from a clean 6.12 tree"
	fi
	die "refusing $tree (Linux $release): it has the kernel's own namespace registry (kernel/nstree.c, Linux 6.18 and later), which this series conflicts with; see $docs"
fi
if ((version > 6 || (version == 6 && patchlevel >= 18))); then
	die "refusing $tree: it is Linux $release; from 6.18 on the kernel has its own namespace registry, which this series conflicts with; see $docs"
fi
((version == 6 && patchlevel == 12)) ||
	die "refusing $tree: it is Linux $release; the series is for Linux 6.12.y"

if ((commit)); then
	# (tree_git does not look above the tree: a repository there is not
	# the tree's, and git am would apply the patches to the wrong paths.)
	tree_git rev-parse --git-dir >/dev/null 2>&1 ||
		die "refusing --commit: $tree is not the top of a git repository (apply without --commit, or 'git init' and commit the tree first)"
	[[ ! -e $(tree_git rev-parse --git-path rebase-apply) && ! -e $(tree_git rev-parse --git-path rebase-merge) ]] ||
		die "refusing --commit: a git am or rebase is in progress in $tree (finish it, or 'git am --abort')"
	[[ -z $(tree_git status --porcelain --untracked-files=no) ]] ||
		die "refusing --commit: $tree has uncommitted changes (commit or stash them first: 'git -C $tree status')"
	tree_git var GIT_COMMITTER_IDENT >/dev/null 2>&1 ||
		die "refusing --commit: git has no committer identity for $tree (git config user.name and user.email)"
fi

# --config: where the configuration starts from, and what configuring
# needs, checked before anything changes.
boot_config=/boot/config-$(uname -r)
if ((config)); then
	if [[ -f $tree/.config ]]; then
		config_from=$tree/.config
	elif [[ -f $boot_config ]]; then
		config_from=$boot_config
	else
		die "refusing --config: $tree has no .config and there is no $boot_config to start from (copy your distribution's kernel configuration to $tree/.config, or run 'make defconfig' there, and run again)"
	fi
	missing=()
	for tool in make flex bison; do
		command -v "$tool" >/dev/null || missing+=("$tool")
	done
	command -v "${HOSTCC:-gcc}" >/dev/null || missing+=("${HOSTCC:-gcc}")
	((${#missing[@]} == 0)) ||
		die "refusing --config: configuring a kernel needs ${missing[*]} (Debian: apt-get install build-essential flex bison)"
fi

# --- Check that the whole series applies --------------------------------------

tmp=
applying=
cleanup() {
	[[ -z $tmp ]] || rm -rf -- "$tmp"
}
interrupted() {
	trap - INT TERM
	case $applying in
	am) printf '%s: interrupted while git am was applying the series to %s: "git -C %s am --abort" undoes it\n' \
		"$prog" "$tree" "$tree" >&2 ;;
	apply) printf '%s: interrupted while git apply was writing the series into %s: it may hold part of it (git status shows what changed)\n' \
		"$prog" "$tree" >&2 ;;
	esac
	exit "$1"
}
trap cleanup EXIT
trap 'interrupted 130' INT
trap 'interrupted 143' TERM

tmp=$(mktemp -d -t apply-series.XXXXXX)
mkdir "$tmp/tree"

# Every path a patch names, before and after (format-patch output:
# "diff --git a/PATH b/PATH"); those that exist in the tree are copied.
mapfile -t touched < <(sed -n 's|^diff --git a/\([^ ]*\) b/\([^ ]*\)$|\1\n\2|p' "${patches[@]}" | sort -u)
existing=()
for f in "${touched[@]}"; do
	if [[ -e $tree/$f || -L $tree/$f ]]; then
		[[ -w $tree/$f ]] || die "refusing $tree: $f, which the series changes, is not writable"
		existing+=("$f")
	fi
done
if ((${#existing[@]})); then
	(cd "$tree" && cp --parents -P -p -- "${existing[@]}" "$tmp/tree/")
fi

for i in "${!patches[@]}"; do
	p=${patches[i]}
	if ! out=$(apply_in "$tmp/tree" "$p" 2>&1); then
		file=$(sed -n -e 's/^error: patch failed: \(.*\):[0-9]*$/\1/p' \
			-e 's/^error: \([^ :]*\): .*/\1/p' <<<"$out" | head -n 1)
		printf '%s: refusing %s: patch %d of %d, %s, does not apply%s\n' \
			"$prog" "$tree" $((i + 1)) "${#patches[@]}" "${p##*/}" "${file:+ to $file}" >&2
		while IFS= read -r line; do printf '  git apply: %s\n' "$line" >&2; done <<<"$out"
		printf '%s: nothing in %s was changed\n' "$prog" "$tree" >&2
		exit 1
	fi
done
say "all ${#patches[@]} patches apply to $tree (Linux $release)"

# --- Apply --------------------------------------------------------------------

if ((commit)); then
	base=$(tree_git rev-parse HEAD)
	applying=am
	if ! out=$(tree_git -c commit.gpgsign=false am --quiet --whitespace=nowarn "${patches[@]}" 2>&1); then
		applying=
		printf '%s\n' "$out" >&2
		tree_git am --abort >/dev/null 2>&1 || true
		die "git am failed in $tree although the patches applied to a copy; the am was aborted and the tree is back at $base"
	fi
	applying=
	n=$(tree_git rev-list --count "$base..HEAD")
	say "applied ${#patches[@]} patches to $tree with git am: $n commits on top of ${base:0:12}"
else
	# One git apply for the whole series: it checks every patch before
	# it writes anything, so a failure here leaves the tree as it was.
	applying=apply
	if ! out=$(apply_in "$tree" "${patches[@]}" 2>&1); then
		applying=
		printf '%s\n' "$out" >&2
		die "git apply failed in $tree although the patches applied to a copy; nothing was changed"
	fi
	applying=
	say "applied ${#patches[@]} patches to $tree with git apply (uncommitted)"
fi

# --- Configure ----------------------------------------------------------------

nsfs_on=0
if ((config)); then
	cfg=$tree/.config
	if [[ $config_from == "$cfg" ]]; then
		say "config: starting from $cfg"
	else
		cp -- "$config_from" "$cfg"
		say "config: starting from $config_from, the running kernel's configuration (copied to $cfg)"
	fi
	btf_before=$(grep -c '^CONFIG_DEBUG_INFO_BTF=y$' "$cfg" || true)
	sc=("$tree/scripts/config" --file "$cfg")

	# What NAMESPACE_FS depends on, from the Kconfig the series adds
	# ("depends on A && B" lines), enabled along with it.
	deps=()
	while read -r expr; do
		IFS='&' read -ra terms <<<"$expr"
		for t in "${terms[@]}"; do
			t=${t//[[:space:]]/}
			[[ $t =~ ^[A-Z0-9_]+$ ]] && deps+=("$t")
		done
	done < <(sed -n 's/^[[:space:]]*depends on[[:space:]]*//p' "$tree/fs/namespacefs/Kconfig")
	for d in "${deps[@]}"; do
		"${sc[@]}" --enable "$d"
	done
	"${sc[@]}" --enable NAMESPACE_FS
	say "config: enabled NAMESPACE_FS${deps[*]:+ and what it depends on: ${deps[*]}}"

	# A distribution's configuration names its own certificates:
	# Debian's and Ubuntu's set SYSTEM_TRUSTED_KEYS (some
	# SYSTEM_REVOCATION_KEYS too) to files under debian/ of their
	# packaging, which a source tree built locally does not have, and the
	# build fails for want of them ("No rule to make target
	# 'debian/certs/debian-uefi-certs.pem'"). Blanked, the kernel trusts
	# only the key that the build makes to sign its own modules.
	for key in SYSTEM_TRUSTED_KEYS SYSTEM_REVOCATION_KEYS; do
		val=$("${sc[@]}" --state "$key")
		case $val in undef | n | '') continue ;; esac
		if [[ $val == /* && -e $val ]] || [[ -e $tree/$val ]]; then
			continue
		fi
		"${sc[@]}" --set-str "$key" ''
		say "config: CONFIG_$key named $val, which this tree does not have (a distribution's certificates): set to \"\""
	done

	# Name the kernel so that it is not taken for the distribution's.
	case $("${sc[@]}" --state LOCALVERSION) in
	undef | '')
		"${sc[@]}" --set-str LOCALVERSION -namespacefs
		say "config: LOCALVERSION set to -namespacefs (uname -r will end in it)"
		;;
	esac

	say "config: make olddefconfig"
	make -C "$tree" -s olddefconfig </dev/null ||
		die "config: make olddefconfig failed in $tree; the series is applied: fix what make says and run 'make olddefconfig' there"

	if ! grep -qx 'CONFIG_NAMESPACE_FS=y' "$cfg"; then
		off=()
		for d in "${deps[@]}"; do
			grep -qx "CONFIG_$d=y" "$cfg" || off+=("CONFIG_$d")
		done
		if ((${#off[@]})); then
			die "config: CONFIG_NAMESPACE_FS is off after make olddefconfig: it depends on ${off[*]}, which make olddefconfig turned off for want of their own dependencies ('make menuconfig', then '/' and the name, shows them); the series is applied"
		fi
		die "config: CONFIG_NAMESPACE_FS is off after make olddefconfig ('make menuconfig', then '/NAMESPACE_FS', shows why); the series is applied"
	fi
	say "config: CONFIG_NAMESPACE_FS=y in $cfg"
	nsfs_on=1

	types_off=()
	for t in UTS_NS IPC_NS USER_NS PID_NS NET_NS TIME_NS CGROUPS; do
		grep -qx "CONFIG_$t=y" "$cfg" || types_off+=("$t")
	done
	((${#types_off[@]} == 0)) ||
		say "config: note: ${types_off[*]} off: namespacefs has no directory for those types"
	if ((btf_before)) && ! grep -qx 'CONFIG_DEBUG_INFO_BTF=y' "$cfg"; then
		say "config: warning: make olddefconfig turned DEBUG_INFO_BTF off, which needs pahole (Debian: apt-get install dwarves); install it and run 'make olddefconfig' again, or the kernel has no BTF (bpftrace and other BPF tools need it)"
	fi
fi

# --- What next ----------------------------------------------------------------

printf '\nNext:\n  cd %s\n' "$tree"
if ((!nsfs_on)); then
	cat <<'EOF'
  cp /boot/config-"$(uname -r)" .config          # or a configuration of your own
  scripts/config --enable NAMESPACE_FS --set-str SYSTEM_TRUSTED_KEYS '' --set-str SYSTEM_REVOCATION_KEYS ''
  make olddefconfig && grep -x CONFIG_NAMESPACE_FS=y .config
EOF
fi
cat <<'EOF'
  make -j"$(nproc)" bindeb-pkg                    # Debian, Ubuntu: the packages go to ..
  sudo dpkg -i ../linux-image-"$(make -s kernelrelease)"_*.deb
  # (Fedora and the like: make -j"$(nproc)" binrpm-pkg, then rpm -i the package it names)
  # reboot into the new kernel, then:
  sudo mount -t namespacefs namespacefs /sys/fs/namespaces
  # at every boot: tools/install/sys-fs-namespaces.mount (see docs/real-machines.md)
EOF
