#!/usr/bin/env bats
# Mounting namespacefs: the mount point, the file system type, one super
# block per mount, read-only, options.

load helpers/common

setup() {
	mnt=$(mktemp -d)
}

teardown() {
	umount "$mnt" 2>/dev/null || true
	rmdir "$mnt"
}

fs_magic() {
	stat -f -c %t "$1"
}

@test "the mount point /sys/fs/namespaces exists and init mounted namespacefs on it" {
	assert_dir_exists /sys/fs/namespaces
	run awk '$2 == "/sys/fs/namespaces" { print $3 }' /proc/self/mounts
	assert_output namespacefs
}

@test "/proc/filesystems lists namespacefs as a nodev file system" {
	run grep -xF "$(printf 'nodev\tnamespacefs')" /proc/filesystems
	assert_success
}

@test "a second mount elsewhere works and has the namespacefs magic" {
	run fsop mount namespacefs "$mnt" namespacefs
	assert_output OK
	run fs_magic "$mnt"
	assert_output 4e534653
	run fs_magic /sys/fs/namespaces
	assert_output 4e534653
}

@test "mounting, unmounting and mounting again work" {
	for round in 1 2 3; do
		run fsop mount namespacefs "$mnt" namespacefs
		assert_output OK
		run fsop umount "$mnt"
		assert_output OK
	done
	run fs_magic "$mnt"
	refute_output 4e534653
}

@test "every mount is its own super block" {
	mount -t namespacefs namespacefs "$mnt"
	local a b
	a=$(awk -v m="$mnt" '$5 == m { print $3 }' /proc/self/mountinfo)
	b=$(awk '$5 == "/sys/fs/namespaces" { print $3 }' /proc/self/mountinfo)
	[ -n "$a" ] && [ -n "$b" ]
	assert_not_equal "$a" "$b"
}

@test "the super block is read-only" {
	mount -t namespacefs namespacefs "$mnt"
	run awk -v m="$mnt" '$2 == m { print $4 }' /proc/self/mounts
	assert_output --regexp '^ro(,|$)'
}

@test "remounting read-write fails and the mount stays read-only" {
	mount -t namespacefs namespacefs "$mnt"
	run fsop remount "$mnt"
	assert_output EINVAL
	run mount -o remount,rw "$mnt"
	assert_failure
	run fsop remount "$mnt" "" ro
	assert_output OK
	run awk -v m="$mnt" '$2 == m { print $4 }' /proc/self/mounts
	assert_output --regexp '^ro(,|$)'
}

@test "remounting read-only with other flags works, and they take effect" {
	mount -t namespacefs namespacefs "$mnt"
	run mount -o remount,ro,nosuid,nodev,noexec "$mnt"
	assert_success
	run awk -v m="$mnt" '$2 == m { print $4 }' /proc/self/mounts
	assert_output --regexp '^ro,nosuid,nodev,noexec(,|$)'
	run fsop remount "$mnt" "" ro
	assert_output OK
}

@test "an unknown mount option fails with EINVAL" {
	run fsop mount namespacefs "$mnt" namespacefs bogus
	assert_output EINVAL
	run fsop mount namespacefs "$mnt" namespacefs uid=0
	assert_output EINVAL
	run fs_magic "$mnt"
	refute_output 4e534653
}

@test "create, mkdir and write are refused even for root" {
	mount -t namespacefs namespacefs "$mnt"
	[ "$(id -u)" -eq 0 ]
	run fsop create "$mnt/file"
	assert_output EROFS
	run fsop mkdir "$mnt/dir"
	assert_output EROFS
	run fsop symlink x "$mnt/link"
	assert_output EROFS
	run bash -c "echo data > '$mnt/file'"
	assert_failure
	assert_output --partial "Read-only file system"
	assert_file_not_exists "$mnt/file"
}
