#!/usr/bin/env bats
# time namespaces: offsets.

load helpers/common
load helpers/ns

teardown() {
	ns_cleanup
}

@test "offsets equal /proc/PID/timens_offsets for a namespace made with offsets" {
	spawn_in_ns time unshare --time --monotonic=86400 --boottime=3600 sleep 1000
	pid=$SPAWNED
	dir=$NSFS/time/$(ns_inum "$pid" time)
	assert_equal "$(cat "$dir/offsets")" "$(cat "/proc/$pid/timens_offsets")"
	run cat "$dir/offsets"
	assert_line --regexp '^monotonic +86400 +0$'
	assert_line --regexp '^boottime +3600 +0$'
	run cat "$NSFS/time/offsets"
	assert_line --regexp '^monotonic +0 +0$'
}

@test "a time namespace lists its member and vanishes after it" {
	spawn_in_ns time unshare --time sleep 1000
	pid=$SPAWNED
	inum=$(ns_inum "$pid" time)
	assert_equal "$(cat "$NSFS/time/$inum/procs")" "$pid"
	ns_cleanup
	wait_until 10 test ! -e "$NSFS/time/$inum"
}
