#!/usr/bin/env bats
# What keeps a namespace alive: the refs file of every namespace, and
# `lsnamespaces holders`, which names each holder and releases nothing.

load helpers/common
load helpers/ns

setup() {
	bind=$BATS_TEST_TMPDIR/bind
	extra=()
}

teardown() {
	ns_cleanup
	[ "${#extra[@]}" -eq 0 ] || kill -KILL "${extra[@]}" 2>/dev/null || :
	[ -z "${fd-}" ] || exec {fd}<&-
}

# refs_of DIR KEY: the value of KEY (count, tasks, nsfs) in DIR/refs.
refs_of() {
	awk -v k="$2" '$1 == k { print $2 }' "$1/refs"
}

# refs_are DIR COUNT TASKS NSFS: DIR/refs says exactly that.
refs_are() {
	[ "$(cat "$1/refs")" = "count $2"$'\n'"tasks $3"$'\n'"nsfs $4" ]
}

# holders INUM: lsnamespaces holders -J, one JSON object a line.
holders() {
	lsnamespaces holders -J "$1" | jq -c '.holders[]'
}

# holder_count INUM JQ-FILTER: how many holder lines match.
holder_count() {
	holders "$1" | jq -s "[.[] | select($2)] | length"
}

no_holder() {
	[ "$(holder_count "$1" "$2")" -eq 0 ]
}

# one_holder INUM JQ-FILTER: exactly one holder line matches.
one_holder() {
	assert_equal "$(holder_count "$1" "$2")" 1
}

@test "refs counts an nsproxy once however many tasks share it, and the nsfs inode once" {
	# Two processes and four threads in one uts namespace: forks and
	# threads share the nsproxy, which holds the one reference.
	spawn_in_ns uts unshare --uts bash -c 'nstest threads 4 & exec nstest threads 4'
	local inum dir
	inum=$(ns_inum "$SPAWNED" uts)
	dir=$NSFS/uts/$inum
	wait_until 10 has_threads "$SPAWNED" 4
	wait_until 10 refs_are "$dir" 1 1 0
	# Open nsfs files, however many, hold one reference: their inode's.
	exec {fd}<"/proc/$SPAWNED/ns/uts"
	exec {fd2}<"/proc/$SPAWNED/ns/uts"
	run cat "$dir/refs"
	assert_output $'count 2\ntasks 1\nnsfs 1'
	exec {fd2}<&-
	exec {fd}<&-
	unset fd
	wait_until 10 refs_are "$dir" 1 1 0
}

@test "refs counts a pid namespace's PIDs and the nsproxy that makes children in it" {
	# unshare's nsproxy makes children in the new namespace; its child
	# sleep shares that nsproxy and has one PID there.
	spawn unshare --pid --fork sleep 1000
	local child inum dir
	child=$(child_of "$SPAWNED")
	inum=$(ns_inum "$child" pid)
	dir=$(ns_dir pid "$inum")
	assert [ -n "$dir" ]
	wait_until 10 refs_are "$dir" 2 2 0
	# The initial pid namespace keeps no count: reading its files must not
	# raise it either (namespacefs's put went through put_pid_ns(), which
	# leaves that namespace alone, and each read added one).
	local before i
	before=$(refs_of "$NSFS/pid" count)
	for ((i = 0; i < 50; i++)); do
		cat "$NSFS/pid/refs" "$NSFS/pid/level" >/dev/null
	done
	assert_equal "$(refs_of "$NSFS/pid" count)" "$before"
	run holders "$(ns_inum $$ pid)"
	assert_line --partial '"holder":"total","refs":null'
	assert_line --partial '"holder":"kernel","refs":null'
	# A user namespace's tasks hold it by their credentials (real and
	# effective, one object here) and their address space (made at exec).
	# The file of the executable holds it too, by the credentials sleep
	# was opened with, unshare's: that is not the tasks'.
	spawn_in_ns user unshare --user sleep 1000
	inum=$(ns_inum "$SPAWNED" user)
	dir=$(ns_dir user "$inum")
	wait_until 10 test "$(refs_of "$dir" tasks)" = 2
	cat "$dir/refs" >&2
	assert [ "$(refs_of "$dir" count)" -ge 2 ]
	assert_equal "$(refs_of "$dir" nsfs)" 0
}

@test "lsnamespaces holders names a network namespace's process, bind mount, fd and socket, and each release shows" {
	local inum mounter opener sock
	spawn_in_ns net unshare --net sleep 1000
	local member=$SPAWNED
	inum=$(ns_inum "$member" net)
	# A bind mount in a mount namespace of its own, an open file in an
	# unrelated process, a socket in a process that lives elsewhere.
	touch "$bind"
	spawn unshare --mount --propagation private bash -c \
		"mount --bind /proc/$member/ns/net $bind && exec sleep 1000"
	mounter=$SPAWNED
	wait_until 10 grep -q "net:\[$inum\]" "/proc/$mounter/mountinfo"
	spawn bash -c "exec 7</proc/$member/ns/net; exec sleep 1000"
	opener=$SPAWNED
	wait_until 10 test "$(readlink "/proc/$opener/fd/7")" = "net:[$inum]" ||
		ls -l "/proc/$opener/fd" "/proc/$opener/exe" >&2
	spawn_ready nstest socket-in "/proc/$member/ns/net"
	sock=$SPAWNED

	run holders "$inum"
	assert_success
	echo "$output" >&2
	one_holder "$inum" ".holder == \"process\" and .pid == $member"
	one_holder "$inum" ".holder == \"mount\" and .pid == $mounter and (.detail | startswith(\"$bind in mnt:[\"))"
	one_holder "$inum" ".holder == \"fd\" and .pid == $opener and .detail == \"fd 7\""
	one_holder "$inum" ".holder == \"socket\" and .pid == $sock and .refs == 1"
	# The references add up, and nothing is left unexplained: the
	# member's nsproxy, the nsfs inode, the socket.
	one_holder "$inum" '.holder == "total" and .refs == 3'
	one_holder "$inum" '.holder == "tasks" and .refs == 1'
	one_holder "$inum" '.holder == "nsfs" and .refs == 1'
	one_holder "$inum" '.holder == "kernel" and .refs == 0'
	# The HOLDERS column says the same in short: the socket is "other".
	run bash -c "lsnamespaces -t net -J -o NS,HOLDERS | jq -r '.namespaces[] | select(.ns == $inum) | .holders'"
	assert_output "tasks 1, nsfs 1, other 1"

	# Released one by one: each goes from the list, the namespace stays
	# until the last.
	kill "$member"
	wait_until 10 no_holder "$inum" '.holder == "process"'
	one_holder "$inum" '.holder == "tasks" and .refs == 0'
	kill "$sock"
	wait_until 10 no_holder "$inum" '.holder == "socket"'
	kill "$opener"
	wait_until 10 no_holder "$inum" '.holder == "fd"'
	assert has_ns_dir net "$inum"
	one_holder "$inum" '.holder == "nsfs" and .refs == 1'
	one_holder "$inum" '.holder == "total" and .refs == 1'
	kill "$mounter"
	wait_until 10 bash -c "! test -d $NSFS/net/$inum"
	run lsnamespaces holders "$inum"
	assert_failure
	assert_output --partial "no namespace $inum"
}

@test "lsnamespaces holders names a user namespace's child and the namespaces it owns" {
	# bash in user namespace U and a uts namespace X that U owns; below it
	# sleep, in a child user namespace C of U, still in X.
	spawn unshare --user --map-root-user --uts bash -c 'unshare --user sleep 1000 & wait'
	local shell=$SPAWNED sleeper user child uts
	sleeper=$(descendant "$shell" 1)
	extra+=("$sleeper")
	wait_until 10 in_new_ns "$sleeper" user
	wait_until 10 test "$(ns_inum "$sleeper" user)" != "$(ns_inum "$shell" user)"
	user=$(ns_inum "$shell" user)
	child=$(ns_inum "$sleeper" user)
	uts=$(ns_inum "$shell" uts)

	run holders "$user"
	assert_success
	echo "$output" >&2
	one_holder "$user" ".holder == \"process\" and .pid == $shell"
	one_holder "$user" ".holder == \"child\" and .detail == \"user:[$child]\" and .refs == 1"
	one_holder "$user" ".holder == \"owned\" and .detail == \"uts:[$uts]\" and .refs == 1"

	# Without its process, U is still held by C and by X; what else holds
	# it (files opened with its credentials, an address space that a CPU
	# has not let go of yet) is the kernel's, and goes with them.
	kill -KILL "$shell"
	wait_until 10 no_holder "$user" '.holder == "process"'
	one_holder "$user" '.holder == "tasks" and .refs == 0'
	one_holder "$user" ".holder == \"child\" and .detail == \"user:[$child]\""
	one_holder "$user" ".holder == \"owned\" and .detail == \"uts:[$uts]\""
	one_holder "$user" '.holder == "total" and .refs >= 2'
	one_holder "$user" '.holder == "kernel" and .refs >= 0'
	kill -KILL "$sleeper"
	wait_until 30 bash -c "! test -d $NSFS/user/$user"
}

@test "lsnamespaces holders refuses what it cannot answer" {
	run lsnamespaces holders
	assert_failure
	assert_output --partial "needs a namespace"
	run lsnamespaces holders --proc "$(ns_inum $$ net)"
	assert_failure
	assert_output --partial "no --proc or --root"
	run lsnamespaces holders 1
	assert_failure
	assert_output --partial "no namespace 1"
}
