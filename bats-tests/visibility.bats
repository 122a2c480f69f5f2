#!/usr/bin/env bats
# Visibility: a mount shows what its mounter's namespaces may see, nothing
# of the host's or of other users' containers.

load helpers/common
load helpers/ns

teardown() {
	ns_cleanup
}

@test "an unprivileged container's mount shows its own pid namespace, its child, PIDs in its numbering" {
	run as_user 1000 unshare --user --map-root-user --pid --fork --mount --mount-proc bash -c "$CONTAINER"
	assert_success
	# pid/ and user/ stand for the container's own namespaces.
	assert_line --regexp '^pid-inum ([0-9]+) pid:\[\1\]$'
	assert_line --regexp '^user-inum ([0-9]+) user:\[\1\]$'
	# bash is PID 1 there; its child's init is PID 1 there too, and has a
	# PID in the container's numbering as its reaper.
	assert_line --regexp '^procs 1 '
	assert_line "reaper 1"
	assert_line --regexp '^pid-child [0-9]+ [0-9]+$'
	refute_line --regexp '^pid-child [0-9]+ 0$'
}

@test "namespaces of the host and of another user are absent from readdir and lookup" {
	spawn_in_ns uts unshare --uts --net bash -c 'hostname nsfs-secret-host; exec sleep 1000'
	host_uts=$(ns_inum "$SPAWNED" uts)
	host_net=$(ns_inum "$SPAWNED" net)
	spawn unshare --fork --pid sleep 1000
	host_pid=$(ns_inum "$(child_of "$SPAWNED")" pid)
	spawn_in_ns user as_user 1001 unshare --user --map-root-user --uts bash -c 'hostname nsfs-secret-1001; exec sleep 1000'
	other_uts=$(ns_inum "$SPAWNED" uts)
	other_user=$(ns_inum "$SPAWNED" user)
	wait_until 10 test "$(cat "$NSFS/uts/$other_uts/hostname" 2>/dev/null)" = nsfs-secret-1001

	export PROBES="uts/$host_uts net/$host_net pid/$host_pid uts/$other_uts user/$other_user"
	run as_user 1000 unshare --user --map-root-user --pid --fork --mount --mount-proc \
		bash -c "$CONTAINER"
	assert_success
	for probe in "uts/$host_uts" "net/$host_net" "pid/$host_pid" "uts/$other_uts" "user/$other_user"; do
		assert_line "absent $probe"
	done
	refute_line --regexp "^listed (uts|net|pid|user) ($host_uts|$host_net|$host_pid|$other_uts|$other_user)\$"
	refute_line "secret leaked"
	# The host's mount sees them all.
	for probe in "uts/$host_uts" "net/$host_net" "pid/$host_pid" "uts/$other_uts" "user/$other_user"; do
		assert_dir_exists "$NSFS/$probe"
	done
}

@test "a container's own namespaces of the flat types are listed in its mount" {
	export CONTAINER PROBES=
	run as_user 1000 unshare --user --map-root-user --pid --fork --mount --mount-proc bash -c '
		unshare --uts --net --ipc sleep 1000 &
		# Saved: the process substitution below sets $! too.
		sleeper=$!
		for ((i = 0; i < 200; i++)); do
			[ "$(readlink /proc/$sleeper/ns/uts)" != "$(readlink /proc/self/ns/uts)" ] && break
			read -rt 0.05 <> <(:) || :
		done
		readlink /proc/$sleeper/ns/uts
		readlink /proc/$sleeper/ns/net
		eval "$CONTAINER"'
	assert_success
	uts=$(sed -n 's/^uts:\[\([0-9]*\)\]$/\1/p' <<<"$output")
	net=$(sed -n 's/^net:\[\([0-9]*\)\]$/\1/p' <<<"$output")
	assert_line "listed uts $uts"
	assert_line "listed net $net"
}

@test "mounting needs CAP_SYS_ADMIN over the user and the pid namespace" {
	dir=$(mktemp -d)
	chmod 777 "$dir"
	# No namespaces at all.
	run as_user 1000 fsop mount namespacefs "$dir" namespacefs
	assert_output EPERM
	# A user namespace only: the pid namespace is still the host's.
	run as_user 1000 unshare --user --map-root-user --mount fsop mount namespacefs "$dir" namespacefs
	assert_output EPERM
	# User and pid namespaces, but the host's mount namespace.
	run as_user 1000 unshare --user --map-root-user --pid --fork fsop mount namespacefs "$dir" namespacefs
	assert_output EPERM
	# All three: it works.
	run as_user 1000 unshare --user --map-root-user --pid --fork --mount fsop mount namespacefs "$dir" namespacefs
	assert_output OK
	rmdir "$dir"
}

# The script of the container below: mount namespacefs on $DIR, make two
# uts namespaces and a third in a nested user namespace, wait until the
# mount lists all three, then say "ready" and stay.
LISTER='
	mount -t namespacefs namespacefs "$DIR" || exit 1
	unshare --uts sleep 1000 &
	unshare --uts sleep 1000 &
	unshare --user --map-root-user --uts sleep 1000 &
	for ((i = 0; i < 200; i++)); do
		[ "$(ls "$DIR/uts" | grep -c "^[0-9]")" -ge 3 ] && break
		read -rt 0.05 <> <(:) || :
	done
	ls "$DIR/uts" | grep "^[0-9]" | tr "\n" " "
	echo
	echo ready
	exec sleep 1000'

@test "a container's listing costs the same however many namespaces the host holds that it cannot see" {
	local dir uts before after n1 n2
	dir=$(mktemp -d)
	chmod 777 "$dir"
	export DIR=$dir
	spawn_ready as_user 1000 unshare --user --map-root-user --pid --fork --mount bash -c "$LISTER"
	uts=/proc/$(child_of "$SPAWNED")/root$dir/uts
	run bash -c "ls '$uts' | grep -c '^[0-9]'"
	assert_output 3
	read -r n1 before < <(nsbench readdir "$uts" 201)
	spawn_ready nsbench hold uts 3000
	read -r n2 after < <(nsbench readdir "$uts" 201)
	echo "# a container's uts directory: $before s, $after s with 3000 more uts namespaces on the host" >&3
	assert_equal "$n2" "$n1"
	# A walk over every uts namespace, filtered by owner, grows with the
	# 3000.
	awk -v a="$after" -v b="$before" 'BEGIN { exit !(a < 1.5 * b) }' ||
		fail "listing grew from $before s to $after s"
}
