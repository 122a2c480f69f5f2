#!/bin/bash
# deps.sh [PACKAGE...]: install the Debian packages the pipeline needs, and
# the ones named (a target's own, e.g. gnuplot-nox for `make bench`), if any
# is missing.
. "$(dirname "$0")/lib.sh"

packages=(
	linux-source-6.12 qemu-system-x86 busybox-static
	bats bats-assert bats-support bats-file
	flex bison bc libelf-dev libssl-dev cpio xz-utils kmod ccache
	libsmartcols-dev libmount-dev pkg-config gcc make git util-linux iproute2 jq sparse
	"$@"
)

command -v dpkg-query >/dev/null ||
	die "deps: dpkg-query not found: the pipeline expects Debian 12 or later"

declare -A installed=()
while read -r name status; do
	[[ $status == installed ]] && installed[$name]=1
done < <(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${packages[@]}" 2>/dev/null || true)

missing=()
for p in "${packages[@]}"; do
	[[ ${installed[$p]-} ]] || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
	msg "deps: all ${#packages[@]} packages installed"
	exit 0
fi

sudo=()
if ((EUID != 0)); then
	command -v sudo >/dev/null ||
		die "deps: missing packages, and not root: apt-get install ${missing[*]}"
	sudo=(sudo)
fi
msg "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
