#!/usr/bin/env bats
# The defects of the 2021 proof of concept: namespaces dying in atomic
# context, files kept open across a namespace's death, reused inode numbers,
# one view for every container. The runner fails the suite on any splat
# that these leave on the console of the debug kernel.

load helpers/common
load helpers/ns

teardown() {
	cd /
	[ -z "${fd:-}" ] || exec {fd}<&-
	ns_cleanup
}

@test "1,000 pid namespaces created and destroyed leave nothing behind" {
	before=$(ns_dir_count pid)
	# Each with an init that runs and exits, made from C: a shell loop of
	# unshare costs 0.2 s an iteration here.
	run nsbench rate pid-init 1000
	assert_success
	wait_until 20 test "$(ns_dir_count pid)" -eq "$before"
}

@test "a pid namespace whose last reference goes with interrupts off (F_SETOWN) vanishes cleanly" {
	before=$(ns_dir_count pid)
	for ((i = 0; i < 20; i++)); do
		run nstest setown
		assert_output done
	done
	wait_until 10 test "$(ns_dir_count pid)" -eq "$before"
}

@test "an open file and a working directory in a dead namespace's directory see nothing" {
	spawn_in_ns uts unshare --uts bash -c 'hostname dying-ns; exec sleep 1000'
	inum=$(ns_inum "$SPAWNED" uts)
	dir=$NSFS/uts/$inum
	wait_until 10 test "$(cat "$dir/hostname" 2>/dev/null)" = dying-ns
	exec {fd}<"$dir/hostname"
	cd "$dir"

	ns_cleanup
	wait_until 10 test ! -e "$dir"
	run cat <&"$fd"
	assert_failure
	assert_output --partial "No such file or directory"
	run ls -A .
	assert_output ""
	run cat hostname
	assert_failure
}

@test "a reused inode number is a new directory that an old descriptor does not see" {
	spawn_in_ns uts unshare --uts bash -c 'hostname old-ns; exec sleep 1000'
	inum=$(ns_inum "$SPAWNED" uts)
	dir=$NSFS/uts/$inum
	wait_until 10 test "$(cat "$dir/hostname" 2>/dev/null)" = old-ns
	old_id=$(cat "$dir/id")
	exec {fd}<"$dir/hostname"
	cd "$dir"
	ns_cleanup
	wait_until 10 test ! -e "$dir"

	# New namespaces, kept alive, until one gets the old number.
	for ((try = 0; try < 50; try++)); do
		spawn_in_ns uts unshare --uts bash -c 'hostname new-ns; exec sleep 1000'
		[ "$(ns_inum "$SPAWNED" uts)" != "$inum" ] || break
	done
	assert_equal "$(ns_inum "$SPAWNED" uts)" "$inum"
	wait_until 10 test "$(cat "$dir/hostname" 2>/dev/null)" = new-ns
	assert_not_equal "$(cat "$dir/id")" "$old_id"

	run cat <&"$fd"
	assert_failure
	refute_output --partial new-ns
	run ls -A .
	assert_output ""
	run cat hostname
	assert_failure
	refute_output --partial new-ns
}

@test "a mount made in a child pid namespace shows that namespace's subtree only" {
	spawn unshare --fork --pid sleep 1000
	sibling=$(ns_inum "$(child_of "$SPAWNED")" pid)
	assert_dir_exists "$NSFS/pid/$sibling"

	export PROBES="pid/$sibling"
	run unshare --fork --pid --mount bash -c "$CONTAINER"
	assert_success
	assert_line --regexp '^pid-inum ([0-9]+) pid:\[\1\]$'
	refute_line --regexp "^pid-inum $(ns_inum $$ pid) "
	assert_line "pid-level 1"
	assert_line "reaper 1"
	assert_line --regexp '^procs 1 '
	assert_line --regexp '^pid-child [0-9]+ [0-9]+$'
	refute_line --regexp "^pid-child $sibling "
	assert_line "absent pid/$sibling"
}
