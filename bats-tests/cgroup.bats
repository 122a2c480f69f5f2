#!/usr/bin/env bats
# cgroup namespaces: root, and the last reference dropped by a cgroup file.

load helpers/common
load helpers/ns

CG=/sys/fs/cgroup

setup() {
	grep -q cgroup2 /proc/filesystems
	grep -q " $CG cgroup2 " /proc/self/mounts || mount -t cgroup2 cgroup2 "$CG"
	group=$CG/nsfs-test-$BATS_TEST_NUMBER
	mkdir -p "$group/inner"
}

teardown() {
	ns_cleanup
	rmdir "$group/inner" "$group" 2>/dev/null || :
}

@test "root equals what /proc/PID/cgroup shows for a process moved into a child cgroup" {
	spawn_in_ns cgroup bash -c "echo \$\$ > '$group/inner/cgroup.procs' && exec unshare --cgroup sleep 1000"
	pid=$SPAWNED
	dir=$NSFS/cgroup/$(ns_inum "$pid" cgroup)
	run cat "$dir/root"
	assert_output "/nsfs-test-$BATS_TEST_NUMBER/inner"
	assert_equal "0::$(cat "$dir/root")" "$(cat "/proc/$pid/cgroup")"
	run cat "$NSFS/cgroup/root"
	assert_output /
}

@test "a cgroup namespace whose last reference goes with a cgroup file vanishes cleanly" {
	before=$(ns_dir_count cgroup)
	for ((i = 0; i < 20; i++)); do
		# The process holds a cgroup file opened inside the namespace,
		# which keeps a reference to it until the file is released.
		unshare --cgroup bash -c "exec 3<'$CG/cgroup.procs'; exit 0"
	done
	wait_until 10 test "$(ns_dir_count cgroup)" -eq "$before"
}
