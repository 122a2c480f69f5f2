#!/usr/bin/env bats
# user namespaces: nested by parent, with maps, creator, level, setgroups.

load helpers/common
load helpers/ns

teardown() {
	ns_cleanup
}

# has_content FILE: FILE reads as something (its st_size is always 0).
has_content() {
	[ -n "$(cat "$1" 2>/dev/null)" ]
}

# The user namespace of PID, once it is DEPTH levels below the initial one.
at_user_level() {
	[ "$(cat "$(ns_dir user "$(ns_inum "$1" user)")/level" 2>/dev/null)" = "$2" ]
}

@test "nested user namespaces appear three deep under their parents and vanish" {
	spawn unshare -Ur unshare -Ur unshare -Ur sleep 1000
	wait_until 10 at_user_level "$SPAWNED" 3
	inum=$(ns_inum "$SPAWNED" user)
	dir=$(ns_dir user "$inum")
	[[ $dir =~ ^$NSFS/user/([0-9]+)/([0-9]+)/$inum$ ]]
	assert_equal "$(cat "$NSFS/user/${BASH_REMATCH[1]}/level")" 1
	assert_equal "$(cat "$NSFS/user/${BASH_REMATCH[1]}/${BASH_REMATCH[2]}/level")" 2
	assert_equal "$(cat "$dir/level")" 3
	assert_not_exists "$NSFS/user/$inum"
	top=$NSFS/user/${BASH_REMATCH[1]}

	ns_cleanup
	wait_until 10 test ! -e "$top"
}

@test "uid_map, gid_map and projid_map match /proc/PID and are relative to the mount" {
	spawn_in_ns user unshare --user --map-user=1234 --map-group=2345 sleep 1000
	pid=$SPAWNED
	dir=$NSFS/user/$(ns_inum "$pid" user)
	wait_until 10 has_content "$dir/gid_map"
	for map in uid_map gid_map projid_map; do
		assert_equal "$(cat "$dir/$map")" "$(cat "/proc/$pid/$map")"
	done
	run cat "$dir/uid_map"
	assert_output --regexp '^ +1234 +0 +1$'
	# The initial namespace's maps, as the guest's init sees them.
	assert_equal "$(cat "$NSFS/user/uid_map")" "$(cat /proc/1/uid_map)"
}

@test "creator, level and setgroups are right, and procs lists the members" {
	spawn_in_ns user unshare --user --setgroups=deny sleep 1000
	pid=$SPAWNED
	dir=$NSFS/user/$(ns_inum "$pid" user)
	assert_equal "$(cat "$dir/creator")" 0
	assert_equal "$(cat "$dir/level")" 1
	assert_equal "$(cat "$dir/setgroups")" deny
	assert_equal "$(cat "$dir/procs")" "$pid"
	assert_equal "$(cat "$NSFS/user/setgroups")" allow
	assert_equal "$(cat "$NSFS/user/level")" 0

	spawn_in_ns user setpriv --reuid=1000 --regid=1000 --clear-groups unshare --user sleep 1000
	dir=$NSFS/user/$(ns_inum "$SPAWNED" user)
	assert_equal "$(cat "$dir/creator")" 1000
	assert_equal "$(stat -c %u:%g "$dir/uid_map")" 1000:1000
}

@test "owner links resolve to the user namespace made in the same unshare call" {
	spawn_in_ns uts unshare --user --uts --ipc --net --map-root-user sleep 1000
	pid=$SPAWNED
	user=$(ns_inum "$pid" user)
	for type in uts ipc net; do
		dir=$NSFS/$type/$(ns_inum "$pid" "$type")
		run readlink "$dir/owner"
		assert_output "../../user/$user"
		assert_equal "$(cat "$dir/owner/inum")" "$user"
	done
	run readlink "$NSFS/uts/owner"
	assert_output ../user
	assert_not_exists "$NSFS/user/$user/owner"
}

@test "owner links resolve through nested user namespaces made by two unshare calls" {
	spawn unshare --user --map-root-user unshare --user --map-root-user --uts --fork --pid sleep 1000
	child=$(child_of "$SPAWNED")
	user2=$(ns_inum "$child" user)
	wait_until 10 at_user_level "$child" 2
	user1=$(basename "$(dirname "$(ns_dir user "$user2")")")
	uts=$(ns_inum "$child" uts)
	pidns=$(ns_inum "$child" pid)

	run readlink "$NSFS/uts/$uts/owner"
	assert_output "../../user/$user1/$user2"
	assert_equal "$(cat "$NSFS/uts/$uts/owner/inum")" "$user2"
	run readlink "$NSFS/pid/$pidns/owner"
	assert_output "../../user/$user1/$user2"
	assert_equal "$(cat "$NSFS/pid/$pidns/owner/level")" 2
}
