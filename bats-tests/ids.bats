#!/usr/bin/env bats
# Names and ids: inum is the number /proc/PID/ns/TYPE shows, id is unique
# and is what NS_GET_ID returns.

load helpers/common
load helpers/ns

teardown() {
	ns_cleanup
}

@test "inum and the directory name equal the number in readlink /proc/PID/ns/TYPE" {
	spawn_in_ns uts unshare --uts sleep 1000
	uts=$(ns_inum "$SPAWNED" uts)
	spawn unshare --fork --pid sleep 1000
	pidns=$(ns_inum "$(child_of "$SPAWNED")" pid)

	assert_equal "$(cat "$NSFS/uts/$uts/inum")" "$uts"
	assert_equal "$(cat "$NSFS/pid/$pidns/inum")" "$pidns"
	assert_equal "$(cat "$NSFS/uts/inum")" "$(ns_inum 1 uts)"
	assert_equal "$(cat "$NSFS/pid/inum")" "$(ns_inum 1 pid)"
	assert_equal "$(stat -c %i "$NSFS/uts/$uts")" "$uts"
}

@test "id equals what NS_GET_ID returns on /proc/PID/ns/TYPE" {
	spawn_in_ns uts unshare --uts sleep 1000
	pid=$SPAWNED
	uts=$(ns_inum "$pid" uts)

	run nsid "/proc/$pid/ns/uts"
	assert_success
	assert_output "uts:[$uts] $(cat "$NSFS/uts/$uts/id")"
	run nsid /proc/self/ns/pid
	assert_output "pid:[$(ns_inum 1 pid)] $(cat "$NSFS/pid/id")"
	run nsid /proc/self/ns/uts
	assert_output "uts:[$(ns_inum 1 uts)] $(cat "$NSFS/uts/id")"
}

@test "ids are unique across the whole tree and never reused" {
	spawn_in_ns uts unshare --uts sleep 1000
	first=$(cat "$NSFS/uts/$(ns_inum "$SPAWNED" uts)/id")
	ns_cleanup
	spawn_in_ns uts unshare --uts sleep 1000
	second=$(cat "$NSFS/uts/$(ns_inum "$SPAWNED" uts)/id")
	[ "$second" -gt "$first" ]

	run bash -c "find '$NSFS' -name id -type f -exec cat {} + | sort | uniq -d"
	assert_success
	assert_output ""
	[ "$(find "$NSFS" -name id -type f | wc -l)" -ge 3 ]
}
