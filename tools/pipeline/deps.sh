#!/bin/bash
# deps.sh [--tools] [PACKAGE...]: install the Debian packages the pipeline
# needs, and the ones named (a target's own, e.g. gnuplot-nox for
# `make bench`), if any is missing. With --tools, only what building the
# C programs of tools/ needs (`make tools`, `make install`): no kernel
# source, no QEMU.
. "$(dirname "$0")/lib.sh"

tools_packages=(gcc make pkg-config libsmartcols-dev libmount-dev)
packages=("${tools_packages[@]}")
if [[ ${1-} == --tools ]]; then
	shift
else
	packages+=(
		linux-source-6.12 qemu-system-x86 busybox-static
		bats bats-assert bats-support bats-file
		flex bison bc libelf-dev libssl-dev cpio xz-utils kmod ccache
		git util-linux iproute2 jq sparse
		# -lcap, for the clone3 selftests
		libcap-dev
		# promtool, for the host tests of lsnamespaces metrics
		prometheus
	)
fi
packages+=("$@")

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
	# -n: fail rather than stop at a password prompt in the middle of a
	# build (or hang a CI job).
	command -v sudo >/dev/null && sudo -n true 2>/dev/null ||
		die "deps: missing packages, and not root (nor sudo without a password): as root, run apt-get install ${missing[*]}"
	sudo=(sudo -n)
fi
msg "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
