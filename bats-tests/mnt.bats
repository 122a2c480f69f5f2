#!/usr/bin/env bats
# mount namespaces: mounts, mntns_id, churn, anonymous namespaces.

load helpers/common
load helpers/ns

setup() {
	scratch=$(mktemp -d)
}

teardown() {
	ns_cleanup
	umount -R "$scratch"/* 2>/dev/null || :
	rm -rf "$scratch"
}

mnt_count() {
	ns_dir_count mnt
}

@test "mounts equals the line count of /proc/PID/mountinfo, after mounting a tmpfs too" {
	spawn_in_ns mnt unshare --mount bash -c 'mount -t tmpfs nsfs-tmp /mnt; exec sleep 1000'
	pid=$SPAWNED
	dir=$NSFS/mnt/$(ns_inum "$pid" mnt)
	wait_until 10 grep -q nsfs-tmp "/proc/$pid/mountinfo"
	assert_equal "$(cat "$dir/mounts")" "$(wc -l <"/proc/$pid/mountinfo")"
	assert_equal "$(cat "$NSFS/mnt/mounts")" "$(wc -l </proc/self/mountinfo)"
}

@test "mntns_id equals NS_GET_MNTNS_ID" {
	spawn_in_ns mnt unshare --mount sleep 1000
	pid=$SPAWNED
	dir=$NSFS/mnt/$(ns_inum "$pid" mnt)
	assert_equal "$(cat "$dir/mntns_id")" "$(nstest mntns-id "/proc/$pid/ns/mnt")"
	assert_equal "$(cat "$NSFS/mnt/mntns_id")" "$(nstest mntns-id /proc/self/ns/mnt)"
}

@test "mount namespace churn with namespacefs mounted and bind-mounted leaves nothing behind" {
	before=$(mnt_count)
	mkdir "$scratch/bind" "$scratch/second"
	mount --bind "$NSFS" "$scratch/bind"
	mount -t namespacefs namespacefs "$scratch/second"
	# 200 copies of a mount namespace that holds both mounts, each made
	# and dropped from C (a shell loop costs 0.2 s an unshare here) ...
	run nsbench rate mnt 200
	assert_success
	# ... and in 20 of them namespacefs mounted, listed and unmounted.
	for ((i = 0; i < 20; i++)); do
		unshare --mount --propagation private bash -c \
			"mount -t namespacefs namespacefs '$scratch/second' && ls '$scratch/second/mnt' >/dev/null && umount '$scratch/second'"
	done
	ls -R "$scratch/bind/mnt" "$scratch/second/mnt" >/dev/null
	umount "$scratch/bind" "$scratch/second"
	wait_until 10 test "$(mnt_count)" -eq "$before"
}

@test "anonymous mount namespaces made by open_tree are not listed" {
	before=$(ls "$NSFS/mnt")
	run nstest open-tree /tmp ls "$NSFS/mnt"
	assert_success
	assert_output "$before"
}
