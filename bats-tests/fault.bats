#!/usr/bin/env bats
# Failed allocations: for each namespace type, creation made to fail at the
# 1st, 2nd, ... allocation until it succeeds; the same for mounting
# namespacefs and for opening and reading each of its files. After each
# failure nothing may be left behind: no namespace in the registry, no
# mount, a read that fails fails with ENOMEM and one that succeeds returns
# the whole content. tools/guest/nsfault.c does the steps and the checks;
# the console is checked for splats by the run, kmemleak below.
#
# Needs the debug kernel's CONFIG_FAULT_INJECTION, FAILSLAB and
# FAIL_PAGE_ALLOC (kernel-config/test.config).

load helpers/common
load helpers/ns

DEBUGFS=/sys/kernel/debug

# The knobs this file sets, and what they were.
KNOBS=(
	failslab/ignore-gfp-wait failslab/verbose
	fail_page_alloc/ignore-gfp-wait fail_page_alloc/ignore-gfp-highmem
	fail_page_alloc/min-order fail_page_alloc/verbose
)

setup_file() {
	[[ -e /proc/self/fail-nth && -d $DEBUGFS/failslab ]] ||
		skip "no fault injection in this kernel (CONFIG_FAULT_INJECTION, FAILSLAB, FAULT_INJECTION_DEBUG_FS)"
	local k
	for k in "${KNOBS[@]}"; do
		cat "$DEBUGFS/$k" >"$BATS_FILE_TMPDIR/${k//\//.}"
	done
	# Every allocation may fail, sleeping or not, of any order; no stack
	# trace on the console for each injected failure.
	echo N >"$DEBUGFS/failslab/ignore-gfp-wait"
	echo 0 >"$DEBUGFS/failslab/verbose"
	echo N >"$DEBUGFS/fail_page_alloc/ignore-gfp-wait"
	echo N >"$DEBUGFS/fail_page_alloc/ignore-gfp-highmem"
	echo 0 >"$DEBUGFS/fail_page_alloc/min-order"
	echo 0 >"$DEBUGFS/fail_page_alloc/verbose"
}

teardown_file() {
	local k
	for k in "${KNOBS[@]}"; do
		[[ -f $BATS_FILE_TMPDIR/${k//\//.} ]] &&
			cat "$BATS_FILE_TMPDIR/${k//\//.}" >"$DEBUGFS/$k"
	done
	return 0
}

# nsfault ARGS...: run it, print its report to the TAP stream, pass when
# it passes.
nsfault() {
	run timeout 600 nsfault "$@"
	sed 's/^/# /' <<<"$output" >&3
	assert_success
	refute_output --partial FAIL:
	assert_output --regexp 'done at step [0-9]+'
}

@test "creating a cgroup namespace fails cleanly at each allocation" {
	nsfault create cgroup
}

@test "creating an ipc namespace fails cleanly at each allocation" {
	nsfault create ipc
}

@test "creating a mount namespace fails cleanly at each allocation" {
	nsfault create mnt
}

@test "creating a network namespace fails cleanly at each allocation" {
	nsfault create net
}

@test "creating a pid namespace fails cleanly at each allocation" {
	nsfault create pid
}

@test "creating a time namespace fails cleanly at each allocation" {
	nsfault create time
}

@test "creating a user namespace fails cleanly at each allocation" {
	nsfault create user
}

@test "creating a uts namespace fails cleanly at each allocation" {
	nsfault create uts
}

@test "mounting namespacefs fails cleanly at each allocation" {
	mkdir -p "$BATS_TEST_TMPDIR/mnt"
	nsfault mount "$BATS_TEST_TMPDIR/mnt"
}

@test "opening, listing and reading every kind of file fails cleanly at each allocation" {
	local paths=("$NSFS" "$NSFS/members" "$NSFS/namespaces" "$NSFS/stats") t f
	for t in "$NSFS"/*/; do
		paths+=("${t%/}")
		for f in "$t"*; do
			[[ -d $f && ! -L $f ]] || paths+=("$f")
		done
	done
	# every file name of every type, the owner links among them
	[[ " ${paths[*]} " == *" $NSFS/uts/owner "* ]]
	[[ " ${paths[*]} " == *" $NSFS/pid/procs "* ]]
	nsfault read "${paths[@]}"
}

@test "kmemleak finds nothing after the failures" {
	[[ -w $DEBUGFS/kmemleak ]] || skip "no kmemleak in this kernel"
	# Objects younger than 5 s are not reported: wait that long for the
	# last steps' to age, then scan. kmemleak has no event to poll for.
	local until=$((SECONDS + 6))
	while ((SECONDS < until)); do
		echo scan >"$DEBUGFS/kmemleak"
	done
	echo scan >"$DEBUGFS/kmemleak"
	run cat "$DEBUGFS/kmemleak"
	assert_output ""
}
