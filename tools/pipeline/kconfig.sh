#!/bin/bash
# kconfig.sh SRC OUT FRAGMENT...
# Configures a kernel in OUT from `tinyconfig` plus the fragments, then checks
# that every symbol the fragments ask for made it into the final .config:
# Kconfig silently drops what it cannot satisfy.
set -euo pipefail
src=$1 out=$2
shift 2
mkdir -p "$out"
log=$out/config.log
{
	make -C "$src" O="$(realpath "$out")" ARCH=x86_64 tinyconfig
	"$src"/scripts/kconfig/merge_config.sh -m -O "$out" "$out/.config" "$@"
	make -C "$src" O="$(realpath "$out")" ARCH=x86_64 olddefconfig
} >"$log" 2>&1 || { echo "kconfig: configuration failed, see $log" >&2; exit 1; }

missing=()
for frag in "$@"; do
	while IFS= read -r line; do
		case $line in
		CONFIG_*=n)
			sym=${line%%=*}
			grep -qx "$sym=[ym].*" "$out/.config" && missing+=("$line ($(basename "$frag"))")
			;;
		CONFIG_*=*)
			grep -qxF "$line" "$out/.config" || missing+=("$line ($(basename "$frag"))")
			;;
		esac
	done <"$frag"
done
if ((${#missing[@]})); then
	echo "kconfig: these symbols are not in the final $out/.config:" >&2
	printf '  %s\n' "${missing[@]}" >&2
	exit 1
fi
