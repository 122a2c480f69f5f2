#!/usr/bin/env bats
# ipc namespaces: the number of objects of each kind.

load helpers/common
load helpers/ns

teardown() {
	ns_cleanup
}

# in_ipc PID CMD...: run CMD in PID's ipc namespace.
in_ipc() {
	local pid=$1
	shift
	nsenter -t "$pid" -i "$@"
}

# sysv_count PID KIND: the objects of KIND (msg, sem, shm) that
# /proc/sysvipc/KIND lists inside PID's ipc namespace.
sysv_count() {
	in_ipc "$1" tail -n +2 "/proc/sysvipc/$2" | wc -l
}

@test "a new ipc namespace has no objects" {
	spawn_in_ns ipc unshare --ipc sleep 1000
	dir=$NSFS/ipc/$(ns_inum "$SPAWNED" ipc)
	for f in msg_queues sem_arrays shm_segments mq_queues; do
		assert_equal "$(cat "$dir/$f")" 0
	done
}

@test "msg_queues, sem_arrays, shm_segments and mq_queues count what was made inside" {
	spawn_in_ns ipc unshare --ipc sleep 1000
	pid=$SPAWNED
	dir=$NSFS/ipc/$(ns_inum "$pid" ipc)
	in_ipc "$pid" ipcmk -Q
	in_ipc "$pid" ipcmk -Q
	in_ipc "$pid" ipcmk -S 3
	in_ipc "$pid" ipcmk -M 4096
	in_ipc "$pid" ipcmk -M 4096
	in_ipc "$pid" ipcmk -M 8192
	in_ipc "$pid" nstest mq /nsfs-q1
	in_ipc "$pid" nstest mq /nsfs-q2

	assert_equal "$(cat "$dir/msg_queues")" 2
	assert_equal "$(cat "$dir/sem_arrays")" 1
	assert_equal "$(cat "$dir/shm_segments")" 3
	assert_equal "$(cat "$dir/mq_queues")" 2
	assert_equal "$(cat "$dir/msg_queues")" "$(sysv_count "$pid" msg)"
	assert_equal "$(cat "$dir/sem_arrays")" "$(sysv_count "$pid" sem)"
	assert_equal "$(cat "$dir/shm_segments")" "$(sysv_count "$pid" shm)"
	# None of it is in the initial namespace.
	assert_equal "$(cat "$NSFS/ipc/msg_queues")" "$(tail -n +2 /proc/sysvipc/msg | wc -l)"
}

@test "an ipc namespace vanishes after its last process" {
	spawn_in_ns ipc unshare --ipc sleep 1000
	inum=$(ns_inum "$SPAWNED" ipc)
	in_ipc "$SPAWNED" ipcmk -Q
	assert_dir_exists "$NSFS/ipc/$inum"
	ns_cleanup
	wait_until 10 test ! -e "$NSFS/ipc/$inum"
}
