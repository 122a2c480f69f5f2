#!/bin/bash
# run.sh: host-side tests of the pipeline itself, on a copy of it in a
# temporary directory with a small kernel tarball and a series of its own,
# so that the real build/linux is never touched:
#
#   - `make tree` applies the series, and a second run applies nothing;
#   - `make tree` interrupted in the middle of `git am` (SIGINT to its
#     process group, as Ctrl-C sends it, or SIGKILL) at a chosen patch:
#     `make series` then refuses to export the half-applied tree and leaves
#     series/ as it was, and the next `make tree` ends with the whole
#     series applied;
#   - a patch that does not apply is named, and fixing it is enough;
#   - `make tools` builds on a machine that has only the tools' packages:
#     no kernel tree, no kernel source, QEMU or bats.
#
# The interruption comes from a git hook in the copy's tree
# (post-applypatch), so it lands after exactly the chosen patch.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT

. "$top/tools/include/tap.sh"
# check NAME COMMAND...: pass if the command succeeds.
check() {
	local name=$1
	shift
	if "$@" >"$work/check.out" 2>&1; then
		pass "$name"
	else
		fail "$name" "$(tail -n 20 "$work/check.out")"
	fi
}

# --- the copy: the Makefile and the pipeline, a kernel tarball, a series
repo=$work/repo
mkdir -p "$repo/tools"
cp "$top/Makefile" "$repo/"
cp -r "$top/tools/pipeline" "$top/tools/guest" "$top/tools/include" "$top/tools/lsnamespaces" "$repo/tools/"
rm -rf "$repo/tools/pipeline/tests"

# A "kernel": files the patches change, a Makefile that answers
# `make kernelversion`, and Debian's .gitignore block that extract() drops.
src=$work/src/linux-source-6.12
mkdir -p "$src"
printf 'kernelversion:\n\t@echo 6.12.0\n' >"$src/Makefile"
printf '*.o\n# Debian packaging: ignore everything\n/*\n' >"$src/.gitignore"
for i in $(seq 1 12); do
	printf 'line %s\n' $(seq 1 20) >"$src/file$i.c"
done
tar -C "$work/src" -cJf "$work/linux-source-6.12.tar.xz" linux-source-6.12
export NSFS_KERNEL_TARBALL=$work/linux-source-6.12.tar.xz

# The series: patch i changes file i (so that any patch can be broken
# alone), made with git in a scratch copy of the source.
n=12
make_series() {
	local scratch=$work/scratch i
	rm -rf "$scratch"
	cp -r "$src" "$scratch"
	echo '*.o' >"$scratch/.gitignore"
	git -C "$scratch" init -q
	git -C "$scratch" config user.name Test
	git -C "$scratch" config user.email test@example.org
	git -C "$scratch" add -A
	git -C "$scratch" -c commit.gpgsign=false commit -q -m base
	for i in $(seq 1 "$n"); do
		sed -i "s/^line 10$/line 10 changed by patch $i/" "$scratch/file$i.c"
		git -C "$scratch" -c commit.gpgsign=false commit -q -am "change file$i"
	done
	rm -rf "$repo/series"
	mkdir -p "$repo/series"
	git -C "$scratch" format-patch -q -o "$repo/series" "HEAD~$n"
	(cd "$repo/series" && ls -- *.patch >series)
}
make_series

# The pipeline as a user runs it, with a gpg signing that would fail if
# it were asked for: the scripts must not sign.
export GIT_CONFIG_GLOBAL=$work/gitconfig
git config --file "$GIT_CONFIG_GLOBAL" commit.gpgsign true
git config --file "$GIT_CONFIG_GLOBAL" gpg.program false
mk() { make -C "$repo" "$@"; }
tree=$repo/build/linux
applied() { git -C "$tree" rev-list --count base..HEAD; }

echo "# make tree"
if mk tree >"$work/tree.log" 2>&1 && [[ $(applied) == "$n" ]]; then
	pass "make tree extracts the kernel and applies all $n patches"
else
	fail "make tree extracts the kernel and applies all $n patches" "$(tail -n 20 "$work/tree.log")"
fi
ls -d "$repo"/build/.extract.* >/dev/null 2>&1 &&
	fail "no temporary directory is left after the extraction" || pass "no temporary directory is left after the extraction"
mk tree >"$work/again.log" 2>&1
if grep -q "^==> series: $n patches applied$" "$work/again.log"; then
	pass "a second make tree applies nothing"
else
	fail "a second make tree applies nothing" "$(cat "$work/again.log")"
fi

# interrupt SIGNAL K: make the series differ from the tree (patch K's
# message changes), then run `make tree` in its own process group and send
# SIGNAL to the group from the hook once patch K is in.
interrupt() {
	local sig=$1 k=$2 hook=$tree/.git/hooks/post-applypatch
	sed -i "s/^Subject: \[PATCH\(.*\)\] change file$k\$/Subject: [PATCH\1] change file$k again/" \
		"$repo/series/$(sed -n "${k}p" "$repo/series/series")"
	mkdir -p "${hook%/*}"
	cat >"$hook" <<EOF
#!/bin/bash
count=\$(git rev-list --count base..HEAD)
if [[ \$count == $k ]]; then
	kill -$sig -- -\$(ps -o pgid= \$\$ | tr -d ' ')
	sleep 5
fi
EOF
	chmod +x "$hook"
	# In a subshell, so that bash does not report the kill.
	(setsid -w make -C "$repo" tree >"$work/interrupted.log" 2>&1
		echo "$?" >"$work/interrupted.status") 2>/dev/null
	rm -f "$hook"
}

for case in "INT 5" "KILL 9" "INT 1" "KILL $n"; do
	read -r sig k <<<"$case"
	echo "# make tree stopped by SIG$sig after patch $k of $n"
	interrupt "$sig" "$k"
	status=$(cat "$work/interrupted.status")
	if [[ $status != 0 && $(applied) == "$k" ]]; then
		pass "SIG$sig: make tree stopped with $k of $n patches in the tree"
	else
		fail "SIG$sig: make tree stopped with $k of $n patches in the tree" \
			"status $status, $(applied) applied; $(tail -n 5 "$work/interrupted.log")"
	fi
	before=$(cd "$repo/series" && sha256sum -- * | sha256sum)
	if mk series >"$work/series.log" 2>&1; then
		fail "SIG$sig: make series refuses the half-applied tree" "$(cat "$work/series.log")"
	elif [[ $(cd "$repo/series" && sha256sum -- * | sha256sum) != "$before" ]]; then
		fail "SIG$sig: make series refuses the half-applied tree" "series/ changed"
	else
		pass "SIG$sig: make series refuses the half-applied tree and leaves series/ alone"
	fi
	if mk tree >"$work/recover.log" 2>&1 && [[ $(applied) == "$n" ]] &&
		[[ -z $(git -C "$tree" status --porcelain) ]] &&
		git -C "$tree" log -1 --format=%s "base~0..HEAD~$((n - k))" | grep -q "change file$k again"; then
		pass "SIG$sig: the next make tree applies the whole new series"
	else
		fail "SIG$sig: the next make tree applies the whole new series" \
			"$(applied) applied; $(tail -n 10 "$work/recover.log")"
	fi
done

echo "# a patch that does not apply"
p7=$repo/series/$(sed -n 7p "$repo/series/series")
cp "$p7" "$work/p7"
sed -i 's/^ line 9$/ line nine/' "$p7"
if mk tree >"$work/bad.log" 2>&1; then
	fail "make tree fails on a patch that does not apply"
elif grep -q "${p7##*/} does not apply" "$work/bad.log"; then
	pass "make tree names the patch that does not apply"
else
	fail "make tree names the patch that does not apply" "$(tail -n 10 "$work/bad.log")"
fi
check "make series refuses the tree the failed patch left" bash -c "! make -C '$repo' series"
cp "$work/p7" "$p7"
sed -i 's/change file7/change file7, fixed/' "$p7"
if mk tree >"$work/fixed.log" 2>&1 && [[ $(applied) == "$n" ]]; then
	pass "once the patch is fixed, make tree applies the whole series"
else
	fail "once the patch is fixed, make tree applies the whole series" "$(tail -n 10 "$work/fixed.log")"
fi
check "after that, make series exports the tree again" mk series

echo "# make tools needs only the tools' packages"
# dpkg-query that knows only the packages deps.sh --tools asks for, and
# apt-get that fails the test if it is run.
fake=$work/fakebin
mkdir -p "$fake"
cat >"$fake/dpkg-query" <<'EOF'
#!/bin/bash
for p in "$@"; do
	case $p in
	gcc | make | pkg-config | libsmartcols-dev | libmount-dev) echo "$p installed" ;;
	-*) ;;
	*) echo "dpkg-query: no packages found matching $p" >&2 ;;
	esac
done
EOF
printf '#!/bin/bash\necho "apt-get $*" >>%q\nexit 1\n' "$work/apt.log" >"$fake/apt-get"
chmod +x "$fake"/*
rm -rf "$repo/build"
if PATH=$fake:$PATH mk tools >"$work/tools.log" 2>&1 && [[ -x $repo/build/tools/host/lsnamespaces ]] &&
	[[ ! -e $work/apt.log && ! -e $repo/build/linux ]]; then
	pass "make tools builds with only gcc, make, pkg-config, libsmartcols-dev and libmount-dev"
else
	fail "make tools builds with only gcc, make, pkg-config, libsmartcols-dev and libmount-dev" \
		"$(cat "$work/apt.log" 2>/dev/null) $(tail -n 10 "$work/tools.log")"
fi

summary
