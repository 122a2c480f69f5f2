#!/usr/bin/env bats
# Permissions: directories 0555, files 0440 owned by the creator of the
# owning user namespace; nothing can be changed, even by root; every file
# reads the same however it is read.

load helpers/common
load helpers/ns

teardown() {
	ns_cleanup
}

@test "directories are 0555, files 0440, owned by the owning user namespace's creator" {
	assert_equal "$(stat -c %a:%u:%g "$NSFS/pid")" 555:0:0
	assert_equal "$(stat -c %a:%u:%g "$NSFS/pid/procs")" 440:0:0
	spawn_in_ns user as_user 1000 unshare --user --uts sleep 1000
	user=$(ns_inum "$SPAWNED" user)
	uts=$(ns_inum "$SPAWNED" uts)
	assert_equal "$(stat -c %a:%u:%g "$NSFS/user/$user")" 555:1000:1000
	assert_equal "$(stat -c %a:%u:%g "$NSFS/user/$user/uid_map")" 440:1000:1000
	assert_equal "$(stat -c %a:%u:%g "$NSFS/uts/$uts/hostname")" 440:1000:1000
}

@test "uid 1000 cannot read files of namespaces of root or uid 1001, root can, 1000 can read its own" {
	spawn_in_ns user as_user 1000 unshare --user --uts sleep 1000
	mine=$(ns_inum "$SPAWNED" uts)
	spawn_in_ns user as_user 1001 unshare --user --uts sleep 1000
	theirs=$(ns_inum "$SPAWNED" uts)

	run as_user 1000 cat "$NSFS/uts/$mine/hostname"
	assert_success
	run as_user 1000 cat "$NSFS/uts/hostname"
	assert_failure
	assert_output --partial "Permission denied"
	run cat "$NSFS/uts/$theirs/hostname"
	assert_success
	# By default a namespace whose files uid 1000 may not read is hidden
	# from it; with hidens=off it is listed, and its files are refused.
	run as_user 1000 cat "$NSFS/uts/$theirs/hostname"
	assert_failure
	assert_output --partial "No such file or directory"
	dir=$(mktemp -d)
	mount -t namespacefs -o hidens=off namespacefs "$dir"
	run as_user 1000 cat "$dir/uts/$theirs/hostname"
	assert_failure
	assert_output --partial "Permission denied"
	run as_user 1000 ls "$dir/uts"
	umount "$dir"
	rmdir "$dir"
	assert_success
	assert_line "$theirs"
}

@test "every modifying call fails with EROFS or EPERM, even for root" {
	dir=$(mktemp -d)
	mount -t namespacefs namespacefs "$dir"
	f=$dir/pid/inum
	d=$dir/pid
	ops=(
		"create $d/new" "mkdir $d/new" "rmdir $d" "unlink $f"
		"rename $f $d/new" "link $f $d/new" "symlink $f $d/new"
		"mknod $d/new" "chmod $f" "chmod $d" "chown $f" "truncate $f"
		"setxattr $f" "utimes $f" "open-write $f" "remount $dir"
	)
	for op in "${ops[@]}"; do
		run fsop $op
		echo "# ${op%% *}: $output" >&3
		case ${op%% *} in
		remount) assert_output EINVAL ;;
		*) assert_output --regexp '^(EROFS|EPERM)$' ;;
		esac
	done
	run mount -o remount,rw "$dir"
	assert_failure
	assert_equal "$(awk -v m="$dir" '$2 == m { print $4 }' /proc/self/mounts | cut -d, -f1)" ro
	umount "$dir"
	rmdir "$dir"
}

@test "every file reads the same in one read, 1-byte reads and pread at every offset, and nothing past the end" {
	spawn_in_ns uts unshare --user --map-root-user --uts --ipc --net --mount --cgroup --time sleep 1000
	spawn unshare --fork --pid sleep 1000
	count=0
	while read -r f; do
		# procs, tasks and members change whenever a task starts or
		# exits (kernel workers and the guest's own come and go): their
		# lines are checked against two whole reads instead.
		case ${f##*/} in
		procs | tasks | members) op=consistent-live ;;
		*) op=consistent ;;
		esac
		run timeout 20 fsop $op "$f"
		[ "$output" = OK ] || fail "$f: $output"
		count=$((count + 1))
	done < <(find "$NSFS" -type f)
	echo "# $count files checked" >&3
	[ "$count" -ge 60 ]
}
