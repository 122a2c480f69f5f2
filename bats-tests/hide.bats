#!/usr/bin/env bats
# hidens=invisible, the default: a mount shows a user only the namespaces
# whose files it may read, in readdir, lookup, the namespaces file and
# inotify alike; root (privileged over the view) sees them all; with
# hidens=off everyone sees the whole view.

load helpers/common
load helpers/ns

HIDDEN=/tmp/nsfs-hidden
OPEN=/tmp/nsfs-open

setup() {
	watchers=()
	mkdir -p "$HIDDEN" "$OPEN"
	chmod 0755 "$HIDDEN" "$OPEN"
	mount -t namespacefs -o hidens=invisible namespacefs "$HIDDEN"
	mount -t namespacefs -o hidens=off namespacefs "$OPEN"
	# Namespaces of root, of uid 1001 and of uid 1000: uts and ipc owned
	# by a user namespace of each user (root's by the initial one), and a
	# pid namespace each.
	spawn_in_ns uts unshare --uts --ipc sleep 1000
	root_uts=$(ns_inum "$SPAWNED" uts)
	spawn unshare --pid --fork sleep 1000
	wait_until 10 child_of "$SPAWNED"
	root_pid=$(ns_inum "$(child_of "$SPAWNED")" pid)
	for u in 1001 1000; do
		spawn as_user "$u" unshare --user --uts --ipc --pid --fork sleep 1000
		wait_until 10 child_of "$SPAWNED"
		child=$(child_of "$SPAWNED")
		eval "user_$u=$(ns_inum "$child" user) uts_$u=$(ns_inum "$child" uts)"
		eval "ipc_$u=$(ns_inum "$child" ipc) pid_$u=$(ns_inum "$child" pid)"
	done
}

teardown() {
	for w in "${watchers[@]}"; do
		kill "$w" 2>/dev/null || :
	done
	ns_cleanup
	umount "$HIDDEN" "$OPEN" 2>/dev/null || :
	rmdir "$HIDDEN" "$OPEN" 2>/dev/null || :
}

# entries USER DIR: the namespaces that USER lists in DIR.
entries() {
	run as_user "$1" ls "$2"
	assert_success
	grep '^[0-9]' <<<"$output" | sort | paste -sd' '
}

# has USER PATH: USER finds PATH by lookup.
has() {
	(as_user "$1" stat "$2") >/dev/null 2>&1
}

@test "hidens=off shows in /proc/mounts, the default does not, a bad value fails, remount changes it" {
	run grep " $HIDDEN namespacefs " /proc/mounts
	refute_output --partial "hidens"
	run grep " $OPEN namespacefs " /proc/mounts
	assert_output --partial ",hidens=off"
	run grep " $NSFS namespacefs " /proc/mounts
	refute_output --partial "hidens"

	run mount -t namespacefs -o hidens=bogus namespacefs "$HIDDEN"
	assert_failure
	run mount -t namespacefs -o hidden namespacefs "$HIDDEN"
	assert_failure

	# A remount that does not name it keeps it.
	mount -o remount,ro,nosuid "$OPEN"
	run grep " $OPEN namespacefs " /proc/mounts
	assert_output --partial ",hidens=off"
	assert has 1000 "$OPEN/uts/$root_uts"

	mount -o remount,hidens=off "$HIDDEN"
	run grep " $HIDDEN namespacefs " /proc/mounts
	assert_output --partial ",hidens=off"
	assert has 1000 "$HIDDEN/uts/$root_uts"

	mount -o remount,hidens=invisible "$HIDDEN"
	refute has 1000 "$HIDDEN/uts/$root_uts"
}

@test "uid 1000 lists and looks up only its own namespaces; root, and everyone with hidens=off, see all" {
	# uts and ipc: flat, in the type's directory.
	assert_equal "$(entries 1000 "$HIDDEN/uts")" "$uts_1000"
	assert_equal "$(entries 1001 "$HIDDEN/uts")" "$uts_1001"
	assert has 1000 "$HIDDEN/uts/$uts_1000"
	assert has 1000 "$HIDDEN/ipc/$ipc_1000/inum"
	assert has 1001 "$HIDDEN/ipc/$ipc_1001"
	refute has 1000 "$HIDDEN/ipc/$ipc_1001"
	refute has 1000 "$HIDDEN/uts/$root_uts"
	refute has 1000 "$HIDDEN/uts/$uts_1001"
	refute has 1001 "$HIDDEN/uts/$uts_1000"
	run as_user 1000 stat "$HIDDEN/uts/$root_uts"
	assert_output --partial "No such file or directory"

	# user and pid nest: a user's namespaces are children of the initial
	# ones, which are the type directories and stay.
	assert_equal "$(entries 1000 "$HIDDEN/user")" "$user_1000"
	assert_equal "$(entries 1000 "$HIDDEN/pid")" "$pid_1000"
	refute has 1000 "$HIDDEN/pid/$root_pid"
	refute has 1000 "$HIDDEN/pid/$pid_1001"
	assert has 1000 "$HIDDEN/pid/$pid_1000/procs"

	# The namespaces file: the same namespaces as the directories.
	run as_user 1000 cat "$HIDDEN/namespaces"
	assert_success
	assert_line --regexp "^uts $uts_1000 "
	assert_line --regexp "^user $user_1000 "
	assert_line --regexp "^pid $pid_1000 "
	for inum in "$root_uts" "$uts_1001" "$root_pid" "$pid_1001" "$user_1001"; do
		refute_line --regexp "^[a-z]+ $inum "
	done

	# Root is privileged over the view: it sees everything, as uid 1000
	# does with hidens=off.
	want=$(printf '%s\n' "$root_uts" "$uts_1000" "$uts_1001" | sort | paste -sd' ')
	assert_equal "$(entries 0 "$HIDDEN/uts" | tr ' ' '\n' | grep -xE "$root_uts|$uts_1000|$uts_1001" | paste -sd' ')" "$want"
	assert_equal "$(entries 1000 "$OPEN/uts" | tr ' ' '\n' | grep -xE "$root_uts|$uts_1000|$uts_1001" | paste -sd' ')" "$want"
	assert has 0 "$HIDDEN/pid/$root_pid"
	assert has 1000 "$OPEN/pid/$root_pid"
}

@test "a hidden directory that root keeps in use is not found by uid 1000" {
	spawn bash -c "cd '$HIDDEN/uts/$root_uts' && exec sleep 1000"
	wait_until 10 sits_in "$HIDDEN/uts/$root_uts" "$SPAWNED"
	run as_user 1000 stat "$HIDDEN/uts/$root_uts"
	assert_failure
	assert_output --partial "No such file or directory"
	run as_user 1000 cat "$HIDDEN/uts/$root_uts/inum"
	assert_failure
	assert_output --partial "No such file or directory"
	run as_user 1000 ls "$HIDDEN/uts/$root_uts"
	assert_failure
	# Root still reads it.
	run cat "$HIDDEN/uts/$root_uts/inum"
	assert_output "$root_uts"
}

@test "inotify tells uid 1000 only of its own namespaces, root of every one" {
	log_1000=$BATS_TEST_TMPDIR/events.1000
	log_root=$BATS_TEST_TMPDIR/events.root
	log_plain=$BATS_TEST_TMPDIR/events.plain
	(as_user 1000 nstest watch 120 "$HIDDEN/uts") >"$log_1000" 2>&1 3>&- &
	watchers+=($!)
	nstest watch 120 "$HIDDEN/uts" >"$log_root" 2>&1 3>&- &
	watchers+=($!)
	# uid 1000 on the mount with hidens=off: every event.
	(as_user 1000 nstest watch 120 "$OPEN/uts") >"$log_plain" 2>&1 3>&- &
	watchers+=($!)
	for f in "$log_1000" "$log_root" "$log_plain"; do
		wait_until 10 grep -qx ready "$f"
	done

	# Root's, uid 1001's, then uid 1000's: events are posted in order, so
	# once uid 1000's watcher has its own, it has been passed the others.
	# The namespaces of setup() live on, so that none of these reuses an
	# inode number of theirs.
	made=() pids=()
	spawn_in_ns uts unshare --uts sleep 1000
	made+=("$(ns_inum "$SPAWNED" uts)") pids+=("$SPAWNED")
	for u in 1001 1000; do
		spawn as_user "$u" unshare --user --uts sleep 1000
		wait_until 10 in_new_ns "$SPAWNED" uts
		made+=("$(ns_inum "$SPAWNED" uts)") pids+=("$SPAWNED")
	done
	wait_until 10 grep -q " CREATE $HIDDEN/uts ${made[2]}\$" "$log_1000"
	for p in "${pids[@]}"; do
		kill_tree "$p"
	done
	wait_until 10 grep -q " DELETE $HIDDEN/uts ${made[2]}\$" "$log_1000"
	for f in "$log_root" "$log_plain"; do
		wait_until 10 grep -q " DELETE [^ ]* ${made[2]}\$" "$f"
	done

	# uid 1000: its own create and delete, nothing else.
	run grep -c " $HIDDEN/uts " "$log_1000"
	assert_output 2
	# Root, and uid 1000 with hidens=off: all three, both ways.
	for inum in "${made[@]}"; do
		for f in "$log_root" "$log_plain"; do
			grep -q " CREATE [^ ]* $inum\$" "$f"
			grep -q " DELETE [^ ]* $inum\$" "$f"
		done
	done
}
