#!/usr/bin/env bats
# uts namespaces: flat, with uname, hostname and domainname.

load helpers/common
load helpers/ns

teardown() {
	cd /
	ns_cleanup
}

@test "a uts namespace appears under uts/ with its host name, and disappears" {
	spawn_in_ns uts unshare --uts bash -c 'hostname nsfs-uts-1; exec sleep 1000'
	pid=$SPAWNED
	inum=$(ns_inum "$pid" uts)
	wait_until 10 test "$(cat "$NSFS/uts/$inum/hostname" 2>/dev/null)" = nsfs-uts-1
	run cat "$NSFS/uts/$inum/uname"
	assert_output --regexp '^[^ ]+ nsfs-uts-1 '
	run ls "$NSFS/uts"
	assert_line "$inum"

	ns_cleanup
	wait_until 10 test ! -e "$NSFS/uts/$inum"
	run ls "$NSFS/uts"
	refute_line "$inum"
}

@test "uname, hostname and domainname match what the namespace's members see" {
	spawn_in_ns uts unshare --uts bash -c \
		'hostname nsfs-uts-2; echo nsfs-domain > /proc/sys/kernel/domainname; exec sleep 1000'
	pid=$SPAWNED
	inum=$(ns_inum "$pid" uts)
	wait_until 10 test "$(cat "$NSFS/uts/$inum/domainname" 2>/dev/null)" = nsfs-domain

	expected="$(nsenter -t "$pid" -u uname -snrvm) $(nsenter -t "$pid" -u cat /proc/sys/kernel/domainname)"
	run cat "$NSFS/uts/$inum/uname"
	assert_output "$expected"
	run cat "$NSFS/uts/$inum/hostname"
	assert_output nsfs-uts-2
	run cat "$NSFS/uts/$inum/domainname"
	assert_output nsfs-domain
	run cat "$NSFS/uts/$inum/procs"
	assert_output "$pid"
	run cat "$NSFS/uts/$inum/tasks"
	assert_output "$pid"
}

@test "uts/ itself stands for the mounter's uts namespace" {
	run cat "$NSFS/uts/hostname"
	assert_output "$(hostname)"
	run cat "$NSFS/uts/inum"
	assert_output "$(ns_inum $$ uts)"
	run cat "$NSFS/uts/procs"
	assert_line "$$"
	assert_line 1
}
