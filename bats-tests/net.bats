#!/usr/bin/env bats
# network namespaces: cookie, devices, and namespaces with no process.

load helpers/common
load helpers/ns

setup() {
	hold=$(mktemp -d)
}

teardown() {
	ns_cleanup
	local f
	for f in "$hold"/*; do
		umount "$f" 2>/dev/null || :
	done
	rm -rf "$hold"
}

# The devices of PID's network namespace as `ip` shows them from inside:
# "IFINDEX NAME up|down", one a line, by ifindex.
devices_inside() {
	nsenter -t "$1" -n ip -o link show |
		awk -F': ' '{ split($2, n, "@"); flags = $3; sub(/>.*/, "", flags);
			state = (("," flags ",") ~ /[<,]UP,/) ? "up" : "down";
			print $1, n[1], state }' | sort -n
}

@test "cookie equals SO_NETNS_COOKIE inside the namespace" {
	spawn_in_ns net unshare --net sleep 1000
	pid=$SPAWNED
	dir=$NSFS/net/$(ns_inum "$pid" net)
	run cat "$dir/cookie"
	assert_output "$(nsenter -t "$pid" -n nstest netns-cookie)"
	run cat "$NSFS/net/cookie"
	assert_output "$(nstest netns-cookie)"
	refute_output "$(cat "$dir/cookie")"
}

@test "devices match the links seen inside after adding a dummy and a veth pair" {
	spawn_in_ns net unshare --net sleep 1000
	pid=$SPAWNED
	dir=$NSFS/net/$(ns_inum "$pid" net)
	run cat "$dir/devices"
	assert_line "1 lo down"
	assert_output "$(devices_inside "$pid")"

	nsenter -t "$pid" -n ip link set lo up
	nsenter -t "$pid" -n ip link add nsfs-dummy0 type dummy
	nsenter -t "$pid" -n ip link add nsfs-veth0 type veth peer name nsfs-veth1
	nsenter -t "$pid" -n ip link set nsfs-veth0 up
	run cat "$dir/devices"
	assert_output "$(devices_inside "$pid")"
	assert_line "1 lo up"
	assert_line --regexp '^[0-9]+ nsfs-dummy0 down$'
	assert_line --regexp '^[0-9]+ nsfs-veth1 down$'
}

@test "a network namespace held by a bind mount stays listed until unmounted" {
	touch "$hold/net"
	unshare --net="$hold/net" true
	# The bind mount is of the namespace's nsfs inode.
	inum=$(stat -c %i "$hold/net")
	assert_dir_exists "$NSFS/net/$inum"
	run cat "$NSFS/net/$inum/procs"
	assert_output ""
	umount "$hold/net"
	wait_until 10 test ! -e "$NSFS/net/$inum"
}

@test "a network namespace held only by an open /proc/PID/ns file stays listed until closed" {
	spawn_in_ns net unshare --net sleep 1000
	inum=$(ns_inum "$SPAWNED" net)
	exec {fd}<"/proc/$SPAWNED/ns/net"
	ns_cleanup
	wait_until 10 test -z "$(cat "$NSFS/net/$inum/procs")"
	assert_dir_exists "$NSFS/net/$inum"
	exec {fd}<&-
	wait_until 10 test ! -e "$NSFS/net/$inum"
}

@test "100 network namespaces torn down in one cleanup batch all vanish" {
	before=$(ns_dir_count net)
	for ((i = 0; i < 100; i++)); do
		touch "$hold/$i"
		unshare --net="$hold/$i" true
	done
	assert_equal "$(ns_dir_count net)" $((before + 100))
	umount "$hold"/*
	wait_until 30 test "$(ns_dir_count net)" -eq "$before"
}
