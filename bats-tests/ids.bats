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

@test "the initial namespaces have upstream's fixed ids, later ones come after them" {
	local type want
	declare -A fixed=([ipc]=1 [uts]=2 [user]=3 [pid]=4 [cgroup]=5
		[time]=6 [net]=7 [mnt]=8)
	for type in "${!fixed[@]}"; do
		want=${fixed[$type]}
		# PID 1 of the guest runs in the initial namespaces.
		run nsid "/proc/1/ns/$type"
		assert_output "$type:[$(ns_inum 1 "$type")] $want"
		[ "$(ns_inum $$ "$type")" != "$(ns_inum 1 "$type")" ] ||
			assert_equal "$(cat "$NSFS/$type/id")" "$want"
	done
	spawn_in_ns uts unshare --uts sleep 1000
	[ "$(cat "$NSFS/uts/$(ns_inum "$SPAWNED" uts)/id")" -gt 8 ]
}

@test "a mount namespace's id is its mntns_id, as NS_GET_MNTNS_ID gives it" {
	spawn_in_ns mnt unshare --mount sleep 1000
	dir=$NSFS/mnt/$(ns_inum "$SPAWNED" mnt)
	assert_equal "$(cat "$dir/id")" "$(nstest mntns-id "/proc/$SPAWNED/ns/mnt")"
	assert_equal "$(cat "$dir/id")" "$(cat "$dir/mntns_id")"
	assert_equal "$(nstest mntns-id /proc/1/ns/mnt)" 8
}

@test "a directory, whose offsets hold ids, can be sought past 2^31" {
	run fsop seekdir "$NSFS/uts" $((1 << 33))
	assert_output "OK 0"
	run fsop seekdir "$NSFS/uts" 0
	assert_output --regexp '^OK [1-9][0-9]*$'
}

# The root directory's offsets count its entries: past the last, wherever
# lseek puts them, nothing is listed (an int index once wrapped: 2^32 + 2
# listed the root again, 2^63 - 1 read before its array).
@test "the root directory lists nothing from any offset past its last entry" {
	local off
	for off in 13 $(((1 << 32) + 2)) $(((1 << 62) + 5)) 9223372036854775807; do
		run fsop seekdir "$NSFS" "$off"
		assert_output "OK 0"
	done
	# The 8 types, members, namespaces and stats.
	run fsop seekdir "$NSFS" 2
	assert_output "OK 11"
	run fsop seekdir "$NSFS" 12
	assert_output "OK 1"
}

# five_uts: two uts namespaces owned by the initial user namespace, made
# before and after three in nested user namespaces (two levels), so that
# owners and ids interleave; wait until the host's mount lists them all.
five_uts() {
	local before
	before=$(ls "$NSFS/uts" | grep -c '^[0-9]' || :)
	spawn_in_ns uts unshare --uts sleep 1000
	spawn_in_ns user unshare --user --map-root-user --uts bash -c '
		unshare --uts sleep 1000 &
		unshare --user --map-root-user --uts sleep 1000 &
		exec sleep 1000'
	spawn_in_ns uts unshare --uts sleep 1000
	wait_until 10 test "$(ls "$NSFS/uts" | grep -c '^[0-9]')" -ge $((before + 5))
}

@test "a flat directory lists each namespace once, one entry a call, and resumes at every offset" {
	five_uts
	run fsop dir-resume "$NSFS/uts"
	assert_output "OK $(ls -a "$NSFS/uts" | wc -l)"
	run fsop dir-resume "$NSFS/pid"
	assert_output "OK $(ls -a "$NSFS/pid" | wc -l)"
}

@test "readdir gives each entry the inode number that stat gives it, unique and stable" {
	spawn unshare --fork --pid sleep 1000
	wait_until 10 child_of "$SPAWNED"
	pid=$(ns_inum "$(child_of "$SPAWNED")" pid)
	spawn_in_ns uts unshare --uts sleep 1000
	uts=$(ns_inum "$SPAWNED" uts)
	all=
	for d in "$NSFS" "$NSFS/pid" "$NSFS/uts" "$NSFS/pid/$pid" \
		"$NSFS/uts/$uts" "$NSFS/user"; do
		run fsop inodes "$d"
		assert_success
		refute_output ""
		all+=$output$'\n'
		run awk '$2 != $3' <<<"$output"
		assert_output ""
	done
	# Files, links and directories alike: no number twice.
	run bash -c "awk 'NF { print \$3 }' <<<'$all' | sort | uniq -d"
	assert_output ""
	# A file keeps its number from one lookup to the next.
	a=$(stat -c %i "$NSFS/uts/$uts/hostname")
	b=$(stat -c %i "$NSFS/uts/$uts/hostname")
	assert_equal "$a" "$b"
	assert_equal "$(stat -c %i "$NSFS/uts/$uts/owner")" "$(stat -c %i "$NSFS/uts/$uts/owner")"
}

