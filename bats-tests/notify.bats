#!/usr/bin/env bats
# inotify: IN_CREATE and IN_DELETE with IN_ISDIR on the parent directory
# when a namespace comes and goes, in every mount that can see it.

load helpers/common
load helpers/ns

setup() {
	log=$BATS_TEST_TMPDIR/events
	watcher=
}

teardown() {
	[ -z "$watcher" ] || kill "$watcher" 2>/dev/null || :
	ns_cleanup
}

# start_watch SECONDS DIR...: watch DIRs in the background, events to $log.
start_watch() {
	nstest watch "$@" >"$log" 2>&1 3>&- &
	watcher=$!
	wait_until 10 grep -qx ready "$log"
}

# saw WHAT DIR NAME: the log has that event.
saw() {
	grep -q " $1 $2 $3\$" "$log"
}

# event_time WHAT DIR NAME: when the log got the last such event.
event_time() {
	grep " $1 $2 $3\$" "$log" | tail -n 1 | cut -d' ' -f1
}

# exited PID: PID is a zombie or gone.
exited() {
	[ ! -e "/proc/$1" ] || grep -q '^State:[[:space:]]*Z' "/proc/$1/status"
}

# user_child_visible PID: the user namespace of PID has a directory in $dir.
user_child_visible() {
	[ -e "$dir/$(ns_inum "$1" user)" ]
}

@test "a grandchild pid namespace gives IN_CREATE and IN_DELETE in its parent's directory" {
	spawn unshare --fork --pid sleep 1000
	init=$(child_of "$SPAWNED")
	dir=$NSFS/pid/$(ns_inum "$init" pid)
	start_watch 60 "$dir" "$NSFS/pid"

	spawn nsenter -t "$init" -p unshare --fork --pid sleep 1000
	grandchild=$(descendant "$SPAWNED" 2)
	inum=$(ns_inum "$grandchild" pid)
	wait_until 5 saw CREATE "$dir" "$inum"
	kill -KILL "$grandchild"
	wait_until 5 saw DELETE "$dir" "$inum"
	# Not in pid/ itself: only in the parent's directory.
	run grep -c " $inum\$" "$log"
	assert_output 2
}

@test "flat types (net, uts) give IN_CREATE and IN_DELETE in the type's directory" {
	start_watch 60 "$NSFS/net" "$NSFS/uts"
	spawn_in_ns uts unshare --net --uts sleep 1000
	net=$(ns_inum "$SPAWNED" net)
	uts=$(ns_inum "$SPAWNED" uts)
	wait_until 5 saw CREATE "$NSFS/net" "$net"
	wait_until 5 saw CREATE "$NSFS/uts" "$uts"
	ns_cleanup
	wait_until 5 saw DELETE "$NSFS/uts" "$uts"
	wait_until 10 saw DELETE "$NSFS/net" "$net"
}

@test "nested user namespaces give events in their parent's directory" {
	spawn_in_ns user unshare --user --map-root-user sleep 1000
	outer=$SPAWNED
	dir=$NSFS/user/$(ns_inum "$outer" user)
	start_watch 60 "$dir"
	spawn nsenter -t "$outer" -U unshare --user --map-root-user sleep 1000
	wait_until 10 user_child_visible "$SPAWNED"
	inum=$(ns_inum "$SPAWNED" user)
	wait_until 5 saw CREATE "$dir" "$inum"
	ns_cleanup
	wait_until 5 saw DELETE "$dir" "$inum"
}

@test "a mount in an unprivileged container gets events only for its own namespaces" {
	mkdir -p /tmp/nsfs-notify
	chmod 1777 /tmp/nsfs-notify
	rm -f /tmp/nsfs-notify/*
	# The container: user, pid and mount namespaces of uid 1000, with its
	# own namespacefs mount, which it watches while it makes a uts
	# namespace; it waits for the host to make one too.
	spawn setpriv --reuid=1000 --regid=1000 --clear-groups \
		unshare --user --map-root-user --pid --fork --mount bash -c '
		d=$(mktemp -d) && mount -t namespacefs namespacefs "$d" || exit 1
		nstest watch 60 "$d/uts" >/tmp/nsfs-notify/container &
		until grep -qx ready /tmp/nsfs-notify/container; do read -rt 0.05 <> <(:) || :; done
		unshare --uts bash -c "readlink /proc/self/ns/uts >/tmp/nsfs-notify/mine; exec sleep 1000" &
		until [ -e /tmp/nsfs-notify/host-done ]; do read -rt 0.05 <> <(:) || :; done
		kill %1'
	container=$SPAWNED
	start_watch 60 "$NSFS/uts"
	wait_until 20 test -s /tmp/nsfs-notify/mine
	mine=$(tr -dc 0-9 </tmp/nsfs-notify/mine)
	wait_until 5 saw CREATE "$NSFS/uts" "$mine"

	# The host's namespace, then a second one: once the host's watcher has
	# the second, the work item is past the first for every mount. All
	# are kept alive, so that no inode number is reused meanwhile.
	spawn_in_ns uts unshare --uts sleep 1000
	host=$(ns_inum "$SPAWNED" uts)
	spawn_in_ns uts unshare --uts sleep 1000
	wait_until 5 saw CREATE "$NSFS/uts" "$(ns_inum "$SPAWNED" uts)"
	touch /tmp/nsfs-notify/host-done
	wait_until 10 exited "$container"

	run grep -c " CREATE " /tmp/nsfs-notify/container
	assert_output 1
	run grep " CREATE " /tmp/nsfs-notify/container
	assert_output --partial " $mine"
	refute_output --partial " $host"
	rm -rf /tmp/nsfs-notify
}

@test "1,000 namespaces created and destroyed fast: a create and a delete each, or an overflow" {
	start_watch 300 "$NSFS/uts"
	for ((i = 0; i < 1000; i++)); do
		unshare --uts true
	done
	wait_until 60 bash -c "[ \$(grep -c ' DELETE ' '$log') -ge 1000 ] || grep -q OVERFLOW '$log'"
	kill "$watcher"
	watcher=
	if grep -q OVERFLOW "$log"; then
		echo "# the watcher's queue overflowed" >&3
	else
		assert_equal "$(grep -c ' CREATE ' "$log")" 1000
		assert_equal "$(grep -c ' DELETE ' "$log")" 1000
	fi
	# Per name, events alternate and start with a create: never a delete
	# without its create.
	run awk '$2 == "CREATE" { if (open[$4]++) bad++ }
		 $2 == "DELETE" { if (!open[$4]--) bad++ }
		 $2 == "OVERFLOW" { exit }
		 END { print bad + 0 }' "$log"
	assert_output 0
}

@test "events arrive within a second of the namespace's creation and end" {
	start_watch 120 "$NSFS/uts"
	: >"$BATS_TEST_TMPDIR/latency"
	for ((i = 0; i < 20; i++)); do
		t0=$EPOCHREALTIME
		spawn_in_ns uts unshare --uts sleep 1000
		inum=$(ns_inum "$SPAWNED" uts)
		wait_until 5 saw CREATE "$NSFS/uts" "$inum"
		echo "create $(bc <<<"$(event_time CREATE "$NSFS/uts" "$inum") - $t0")" >>"$BATS_TEST_TMPDIR/latency"
		# The namespace goes once its only process is reaped.
		kill -KILL "$SPAWNED"
		wait "$SPAWNED" 2>/dev/null || :
		t1=$EPOCHREALTIME
		NS_PIDS=()
		wait_until 5 saw DELETE "$NSFS/uts" "$inum"
		echo "delete $(bc <<<"$(event_time DELETE "$NSFS/uts" "$inum") - $t1")" >>"$BATS_TEST_TMPDIR/latency"
	done
	# Create: from just before unshare starts; delete: from the reaping of
	# the namespace's last process (the event may come first: negative).
	for kind in create delete; do
		grep "^$kind " "$BATS_TEST_TMPDIR/latency" | sort -k2 -n |
			awk -v kind="$kind" '{ v[NR] = $2 } END { printf "# %s latency over %d events: median %.3f s, worst %.3f s\n", kind, NR, v[int((NR + 1) / 2)], v[NR] }' >&3
	done
	run awk '$2 >= 1 { print }' "$BATS_TEST_TMPDIR/latency"
	assert_output ""
}
