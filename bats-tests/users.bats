#!/usr/bin/env bats
# What an unprivileged user can make namespacefs do: any user may mount it
# in a user namespace of its own, so every path is reachable from a
# rootless container. Each test plays that user (uid 1000) and checks that
# the kernel neither faults nor shows it what /proc would not.

load helpers/common
load helpers/ns

teardown() {
	ns_cleanup
	if [[ -n ${MOUNTED-} ]]; then
		umount "$MOUNTED" 2>/dev/null || :
	fi
	if [[ -n ${SHARED-} ]]; then
		rm -rf "$SHARED"
	fi
	if [[ -n ${MAX_MOUNTS-} ]]; then
		echo "$MAX_MOUNTS" >/proc/sys/user/max_namespacefs_mounts
	fi
}

# shared_dir: set SHARED to a directory that uid 1000 may use too.
shared_dir() {
	SHARED=$(mktemp -d /tmp/users.XXXXXX)
	chmod 0777 "$SHARED"
}

# busy_inodes: how many times the kernel said a super block went with
# inodes still in use.
busy_inodes() {
	dmesg | grep -c 'Busy inodes after unmount of namespacefs' || :
}

@test "four unprivileged mount, watch, churn and detach loops for a minute leave no inode busy" {
	before=$(busy_inodes)
	run as_user 1000 timeout 300 nsumount -t "${UMOUNT_SECONDS:-60}" -l 4
	echo "# $output" >&3
	assert_success
	[[ $output =~ nsumount:\ ([0-9]+)\ mounts,\ ([0-9]+)\ events ]]
	# Enough rounds, and events under way when the mounts went.
	((BASH_REMATCH[1] >= 100)) || fail "only ${BASH_REMATCH[1]} mounts"
	((BASH_REMATCH[2] >= 100)) || fail "only ${BASH_REMATCH[2]} events"
	assert_equal "$(busy_inodes)" "$before"
}

@test "uid 1000 sees in the host's mount its own namespaces and its containers', none of root's" {
	spawn_in_ns uts unshare --uts --net sleep 1000
	root_uts=$(ns_inum "$SPAWNED" uts) root_net=$(ns_inum "$SPAWNED" net)
	spawn as_user 1000 unshare --user --uts sleep 1000
	wait_until 10 in_new_ns "$SPAWNED" uts
	mine=$(ns_inum "$SPAWNED" uts)

	run as_user 1000 ls "$NSFS/uts"
	assert_success
	assert_line "$mine"
	refute_line "$root_uts"
	run as_user 1000 ls "$NSFS/net"
	refute_line "$root_net"
	run as_user 1000 stat "$NSFS/uts/$root_uts"
	assert_failure
	assert_output --partial "No such file or directory"
	run as_user 1000 cat "$NSFS/namespaces"
	assert_line --regexp "^uts $mine "
	refute_line --regexp "^uts $root_uts "
	refute_line --regexp "^net $root_net "

	# Root, privileged over the view, sees both.
	run ls "$NSFS/uts"
	assert_line "$root_uts"
	assert_line "$mine"

	# hidens=off opts in to every reader seeing the whole view.
	shared_dir
	MOUNTED=$SHARED/all
	mkdir "$MOUNTED"
	mount -t namespacefs -o hidens=off namespacefs "$MOUNTED"
	run as_user 1000 ls "$MOUNTED/uts"
	assert_line "$root_uts"
	assert_line "$mine"
}

@test "a process of uid 1000 in root's pid namespace sees that namespace, not its siblings" {
	spawn unshare --pid --fork sleep 1000
	wait_until 10 child_of "$SPAWNED"
	sibling=$(ns_inum "$(child_of "$SPAWNED")" pid)
	run unshare --pid --fork setpriv --reuid=1000 --regid=1000 --clear-groups \
		bash -c "readlink /proc/self/ns/pid; ls '$NSFS/pid'; cat '$NSFS/namespaces'"
	assert_success
	[[ ${lines[0]} =~ pid:\[([0-9]+)\] ]]
	own=${BASH_REMATCH[1]}
	assert_line "$own"
	assert_line --regexp "^pid $own "
	refute_line "$sibling"
	refute_line --regexp "^pid $sibling "
}

@test "stats gives the machine's created and destroyed counts to root only" {
	run cat "$NSFS/stats"
	assert_line --regexp '^uts [0-9]+ [0-9]+ [0-9]+$'
	run as_user 1000 cat "$NSFS/stats"
	assert_success
	assert_line --regexp '^uts [0-9]+$'
	refute_line --regexp '^[a-z]+ [0-9]+ [0-9]+'
}

@test "a namespace uid 1000 is in names no owner that is hidden from it" {
	spawn_in_ns net unshare --user --map-root-user --net sleep 1000
	net=$(ns_inum "$SPAWNED" net) owner=$(ns_inum "$SPAWNED" user)
	run cat "$NSFS/namespaces"
	assert_line --regexp "^net $net [0-9]+ 0 $owner 0$"
	run readlink "$NSFS/net/$net/owner"
	assert_output "../../user/$owner"

	run nsenter -t "$SPAWNED" --net setpriv --reuid=1000 --regid=1000 --clear-groups \
		bash -c "test -d '$NSFS/net/$net' && echo visible; cat '$NSFS/namespaces'; readlink '$NSFS/net/$net/owner' || echo no-owner; ls '$NSFS/net/$net'"
	# Its own network namespace: there, with no owner.
	assert_line visible
	assert_line --regexp "^net $net [0-9]+ 0 0 0$"
	refute_line --regexp "^user $owner "
	assert_line no-owner
	refute_line owner
}

@test "fspick and fsconfig change hidens, without naming ro" {
	dir=$BATS_TEST_TMPDIR/m
	mkdir "$dir"
	mount -t namespacefs namespacefs "$dir"
	MOUNTED=$dir
	run fsop reconfigure "$dir" hidens off
	assert_output OK
	run grep " $dir namespacefs " /proc/mounts
	assert_output --partial "ro,"
	assert_output --partial ",hidens=off"
	run fsop reconfigure "$dir" hidens invisible
	assert_output OK
	run grep " $dir namespacefs " /proc/mounts
	refute_output --partial "hidens"
	# Read-write is still refused.
	run fsop reconfigure "$dir" rw ""
	refute_output OK
}

@test "the directory of a namespace that died still lists . and .." {
	spawn_in_ns uts unshare --uts sleep 1000
	holder=$SPAWNED inum=$(ns_inum "$SPAWNED" uts)
	fifo=$BATS_TEST_TMPDIR/go out=$BATS_TEST_TMPDIR/ls
	mkfifo "$fifo"
	spawn bash -c "cd '$NSFS/uts/$inum' && echo ready >'$out.ready' && read -r _ <'$fifo' && ls -a >'$out'"
	wait_until 10 test -s "$out.ready"
	kill_tree "$holder"
	wait_until 10 bash -c "! test -e '$NSFS/uts/$inum'"
	echo go >"$fifo"
	wait_until 10 test -e "$out"
	wait_until 10 test -s "$out"
	assert_equal "$(paste -sd' ' "$out")" ". .."
}

# The container of the refs test: uid 1000's own user, pid, mount and
# network namespaces and namespacefs mount; it says which network namespace
# it has, waits until told to go on, then reads its refs and stays.
REFS_CONTAINER='
	d=$(mktemp -d)
	mount -t namespacefs namespacefs "$d" || exit 1
	readlink /proc/self/ns/net >"$1"
	read -r _ <"$2"
	cat "$d/net/refs" >"$3.tmp"
	mv "$3.tmp" "$3"
	exec sleep 1000
'

@test "refs counts the tasks of the mount's pid namespace only, for a reader privileged over it" {
	shared_dir
	fifo=$SHARED/go out=$SHARED/refs net=$SHARED/net
	mkfifo -m 0666 "$fifo"
	spawn as_user 1000 unshare --user --map-root-user --pid --fork --mount --net \
		bash -c "$REFS_CONTAINER" refs "$net" "$fifo" "$out"
	wait_until 10 test -s "$net"
	[[ $(<"$net") =~ net:\[([0-9]+)\] ]]
	inum=${BASH_REMATCH[1]}
	# A host process the container cannot see joins its network namespace.
	spawn nsenter --net="/proc/$SPAWNED/ns/net" sleep 1000
	wait_until 10 test "$(ns_inum "$SPAWNED" net)" = "$inum"
	echo go >"$fifo"
	wait_until 10 test -s "$out"
	run grep '^tasks ' "$out"
	assert_output "tasks 1"

	# uid 1000 is not privileged over the host's mount: no walk of its tasks.
	run as_user 1000 cat "$NSFS/net/$inum/refs"
	assert_failure
	assert_output --partial "Operation not permitted"
	run cat "$NSFS/net/$inum/refs"
	assert_line "tasks 2"
}

@test "user.max_namespacefs_mounts bounds a user's mounts, with ENOSPC past it" {
	MAX_MOUNTS=$(cat /proc/sys/user/max_namespacefs_mounts)
	echo 2 >/proc/sys/user/max_namespacefs_mounts
	run as_user 1000 unshare --user --map-root-user --mount --pid --fork bash -c \
		'd=$(mktemp -d); for i in 1 2 3; do fsop mount none "$d" namespacefs || break; done'
	assert_equal "$(paste -sd' ' <<<"$output")" "OK OK ENOSPC"
	# Mounts that went give their place back.
	run as_user 1000 unshare --user --map-root-user --mount --pid --fork bash -c \
		'd=$(mktemp -d); fsop mount none "$d" namespacefs'
	assert_output OK
}
