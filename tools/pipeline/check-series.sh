#!/bin/bash
# check-series.sh [patches|configs|kcsan]: is the series bisectable, does
# it build without each namespace type, and is it free of data races? Slow
# (more than an hour on two cores); `make check-series` does the three
# parts, an argument only that one.
#
#   1. For each commit of build/linux since `base` (patch 1, 1-2, ..., all):
#      check it out in a worktree (build/linux-check), build the lean
#      kernel incrementally in one output directory (build/kernel-check,
#      ccache), and boot it to the mount test below.
#   2. With the whole series, the same with each of these off in turn:
#      NAMESPACE_FS, UTS_NS, IPC_NS, USER_NS, PID_NS, NET_NS, TIME_NS,
#      CGROUPS. There the mount test also checks that the type directories
#      are exactly those of the types built in (mnt is always built in).
#   3. The kcsan kernel (KCSAN, the data-race checker, which excludes KASAN;
#      build/kernel-kcsan) boots and runs bats-tests/stress.bats (nsstress,
#      STRESS_SECONDS long, 120 by default): the step fails on any KCSAN
#      report that names a function of the series (a symbol of
#      fs/namespacefs/ or kernel/nstree.c, or a function the series'
#      diff adds or changes). Reports elsewhere in the kernel are counted
#      and kept in build/check-series/kcsan.reports, not judged.
#
# The mount test runs in the guest (cmd mode of tools/guest-run.sh, run
# directory build/check-series/run): namespacefs is registered and mounted
# read-only at /sys/fs/namespaces, every directory lists and every file
# reads, and a write fails; without NAMESPACE_FS, the type is not
# registered and there is no /sys/fs/namespaces. Any kernel splat on the
# console fails the step.
#
# Logs: build/check-series/<step>.build.log and <step>.boot.log; a summary
# with each step's time in build/check-series/summary.
. "$(dirname "$0")/lib.sh"
tree_require

work=$BUILD/check-series
wt=$BUILD/linux-check
out=$BUILD/kernel-check
mkdir -p "$work" "$out"
exec 7>"$work/.lock"
flock -n 7 || die "check-series: another check-series is running"

base=$(git -C "$TREE" rev-parse base)
mapfile -t commits < <(git -C "$TREE" rev-list --reverse base..HEAD)
((${#commits[@]})) || die "check-series: no commits on top of base in $TREE"

if [[ ! -e $wt/.git ]]; then
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$ROOT/$wt" "$base"
fi

tools/pipeline/build-tools.sh
guest-rootfs/build.sh

# The guest side of the mount test. EXPECT: the type directories that
# must exist, exactly ("" to skip that check); NSFS=0: namespacefs is
# configured out.
read -r -d '' mount_test <<'EOF' || true
fail() { echo "FAIL: $*"; exit 1; }
dir=/sys/fs/namespaces
shopt -s nullglob
if [[ $NSFS == 0 ]]; then
	grep -qw namespacefs /proc/filesystems && fail "namespacefs registered"
	[[ -e $dir ]] && fail "$dir exists"
	echo "ok: not registered, no $dir"
	exit 0
fi
grep -qw namespacefs /proc/filesystems || fail "namespacefs not in /proc/filesystems"
grep -q "^namespacefs $dir namespacefs ro[, ]" /proc/mounts ||
	fail "not mounted read-only at $dir: $(grep namespacefs /proc/mounts)"
if [[ -n $EXPECT ]]; then
	have=$(cd "$dir" && for d in */; do echo "${d%/}"; done | sort | paste -sd' ')
	want=$(tr ' ' '\n' <<<"$EXPECT" | sort | paste -sd' ')
	[[ $have == "$want" ]] || fail "type directories: '$have', expected '$want'"
fi
dirs=0 files=0
while IFS= read -r -d '' d; do
	ls "$d" >/dev/null || fail "cannot list $d"
	dirs=$((dirs + 1))
done < <(find "$dir" -type d -print0)
while IFS= read -r -d '' f; do
	cat "$f" >/dev/null || fail "cannot read $f"
	files=$((files + 1))
done < <(find "$dir" -type f -print0)
touch "$dir/x" 2>/dev/null && fail "a file could be created in $dir"
echo "ok: mounted read-only, $dirs directories listed, $files files read"
EOF

# step NAME COMMIT NSFS EXPECT [FRAGMENT-LINES...]: build and boot one kernel.
summary=$work/summary
: >"$summary"
failures=0
step() {
	local name=$1 commit=$2 nsfs=$3 expect=$4
	shift 4
	local start=$SECONDS frag=$work/$name.config blog=$work/$name.build.log
	local status=0 sym

	git -C "$wt" checkout -q --detach "$commit"
	# The fragments, without the lines the step turns off.
	{
		cat kernel-config/base.config
		((nsfs)) && cat kernel-config/namespacefs.config
		for sym in "$@"; do printf '%s\n' "$sym"; done
	} | awk -v off="$*" '
		BEGIN { n = split(off, o, " "); for (i = 1; i <= n; i++) { sub(/=.*/, "", o[i]); drop[o[i]] = 1 } }
		/^CONFIG_/ { s = $0; sub(/=.*/, "", s); if (s in drop && $0 !~ /=n$/) next }
		{ print }' >"$frag"
	printf '==> check-series: %-28s ' "$name" >&2
	if ! tools/pipeline/kconfig.sh "$wt" "$out" "$frag" >"$blog" 2>&1 ||
		! make -C "$wt" O="$ROOT/$out" ARCH=x86_64 CC="ccache gcc" -j"$(nproc)" bzImage >>"$blog" 2>&1; then
		echo "BUILD FAILED ($(since "$start"); $blog)" >&2
		tail -n 20 "$blog" | sed 's/^/    /' >&2
		printf '%s build-failed %s\n' "$name" "$(since "$start")" >>"$summary"
		failures=$((failures + 1))
		return
	fi
	local built=$((SECONDS - start))
	NSFS_RUN_DIR=$work/run NSFS_EXAMPLES=0 NSFS_TIMEOUT=300 \
		NSFS_CMD="NSFS=$nsfs EXPECT='$expect'"$'\n'"$mount_test" \
		NSFS_KERNEL_IMAGE=$out/arch/x86/boot/bzImage \
		tools/pipeline/guest-run.sh cmd lean >"$work/$name.boot.log" 2>&1 || status=$?
	cp "$work/run/console.log" "$work/$name.console.log" 2>/dev/null || true
	if ((status)); then
		echo "BOOT FAILED (status $status, built in $built s; $work/$name.boot.log)" >&2
		sed 's/^/    /' "$work/$name.boot.log" | tail -n 20 >&2
		printf '%s boot-failed %s\n' "$name" "$(since "$start")" >>"$summary"
		failures=$((failures + 1))
		return
	fi
	echo "ok (build $built s, total $(since "$start")): $(grep -a '^ok:' "$work/$name.boot.log" | head -n 1)" >&2
	printf '%s ok %s\n' "$name" "$(since "$start")" >>"$summary"
}

# The functions of the series: the symbols of its own objects, and the
# functions its diff adds or changes elsewhere (hunk headers, definitions).
series_functions() {
	local k=$BUILD/kernel-kcsan
	{
		nm "$k"/fs/namespacefs/*.o "$k"/kernel/nstree.o 2>/dev/null | awk '$2 ~ /^[tT]$/ { print $3 }'
		git -C "$TREE" diff -U0 base HEAD -- '*.c' '*.h' |
			sed -nE 's/^@@ .* @@ .*[^A-Za-z0-9_]([A-Za-z_][A-Za-z0-9_]*)\(.*/\1/p; s/^\+[A-Za-z].*[^A-Za-z0-9_]([A-Za-z_][A-Za-z0-9_]*)\(.*\)$/\1/p'
	} | sed 's/\..*//' | sort -u
}

# kcsan_step: build the kcsan kernel, run the stress test on it, judge
# its KCSAN reports.
kcsan_step() {
	local start=$SECONDS status=0 run=$work/kcsan-run reports=$work/kcsan.reports
	tools/pipeline/build-kernel.sh kcsan || {
		printf 'kcsan build-failed %s\n' "$(since "$start")" >>"$summary"
		failures=$((failures + 1))
		return
	}
	tools/pipeline/build-selftests.sh
	guest-rootfs/build.sh
	printf '==> check-series: %-28s ' kcsan >&2
	NSFS_RUN_DIR=$run NSFS_TESTS=bats-tests/stress.bats NSFS_TIMEOUT=1800 \
		NSFS_OWN_REPORTS='BUG: KCSAN:' \
		tools/pipeline/guest-run.sh check kcsan >"$work/kcsan.boot.log" 2>&1 || status=$?
	cp "$run/console.log" "$work/kcsan.console.log" 2>/dev/null || true
	# Each report, from its "BUG: KCSAN:" line to the next blank line
	# after "Reported by", one paragraph a report.
	tr -d '\r' <"$work/kcsan.console.log" | awk '
		/BUG: KCSAN:/ { on = 1 }
		on { print }
		on && /^=+$/ && seen { on = 0; seen = 0; print "" }
		on && /Reported by Kernel Concurrency Sanitizer/ { seen = 1 }' >"$reports"
	local all ours fns
	all=$(grep -c 'BUG: KCSAN:' "$reports" || true)
	fns=$(series_functions | paste -sd'|')
	ours=$(awk -v RS= -v fns="^($fns)$" '
		{ n = split($0, w, /[^A-Za-z0-9_]+/); for (i = 1; i <= n; i++) if (w[i] ~ fns) { print; print ""; break } }' "$reports")
	if ((status)) || [[ $ours ]]; then
		echo "FAILED (status $status; $work/kcsan.boot.log, $reports)" >&2
		[[ $ours ]] && head -n 40 <<<"$ours" | sed 's/^/    /' >&2
		tail -n 20 "$work/kcsan.boot.log" | sed 's/^/    /' >&2
		printf 'kcsan failed %s\n' "$(since "$start")" >>"$summary"
		failures=$((failures + 1))
		return
	fi
	echo "ok ($(since "$start")): $(grep -a '^# nsstress: seed .* created' "$work/kcsan.boot.log" | head -n 1 | sed 's/^# //'); no KCSAN report in the series' code, $all elsewhere ($reports)" >&2
	printf 'kcsan ok %s\n' "$(since "$start")" >>"$summary"
}

part=${1:-all}
case $part in all | patches | configs | kcsan) ;; *) die "usage: check-series.sh [patches|configs|kcsan]" ;; esac
total=$SECONDS
steps=0
n=0
for c in "${commits[@]}"; do
	n=$((n + 1))
	[[ $part == patches || $part == all ]] || continue
	step "$(printf 'patch-%02d' "$n")" "$c" 1 ""
	steps=$((steps + 1))
done

all="cgroup ipc mnt net pid time user uts"
# without TYPE: the expected directories without it
without() { tr ' ' '\n' <<<"$all" | grep -vx "$1" | paste -sd' '; }
head=${commits[-1]}
configs=()
[[ $part == configs || $part == all ]] && configs=(
	"no-NAMESPACE_FS 0 CONFIG_NAMESPACE_FS=n"
	"no-UTS_NS 1 CONFIG_UTS_NS=n uts"
	"no-IPC_NS 1 CONFIG_IPC_NS=n ipc"
	"no-USER_NS 1 CONFIG_USER_NS=n user"
	"no-PID_NS 1 CONFIG_PID_NS=n pid"
	"no-NET_NS 1 CONFIG_NET_NS=n net"
	"no-TIME_NS 1 CONFIG_TIME_NS=n time"
	"no-CGROUPS 1 CONFIG_CGROUPS=n cgroup"
)
for c in "${configs[@]}"; do
	read -r name nsfs off type <<<"$c"
	expect=
	[[ $type ]] && expect=$(without "$type")
	step "$name" "$head" "$nsfs" "$expect" "$off"
	steps=$((steps + 1))
done

if [[ $part == kcsan || $part == all ]]; then
	kcsan_step
	steps=$((steps + 1))
fi

msg "check-series: $steps kernels in $(since "$total"), $failures failed (summary: $summary)"
((failures == 0))
