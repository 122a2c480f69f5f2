#!/usr/bin/env bats
# The nsfs tool against namespacefs, against lsns, and against itself
# with --proc.

load helpers/common
load helpers/ns

setup() {
	# Namespaces of every kind to look at: nested pid and user, a uts host
	# name, a network namespace held only by a bind mount.
	spawn unshare --user --map-root-user --fork --pid --uts --ipc --net --mount --cgroup --time \
		unshare --user --map-root-user --fork --pid --uts bash -c 'hostname nsfs-web; exec sleep 1000'
	web=$(descendant "$SPAWNED" 2)
	wait_until 10 test "$(nsenter -t "$web" -u hostname 2>/dev/null)" = nsfs-web
	held=$(mktemp)
	unshare --net="$held" true
}

teardown() {
	ns_cleanup
	umount "$held" 2>/dev/null || :
	rm -f "$held"
}

# Every namespace directory of namespacefs as "TYPE INUM", sorted.
nsfs_dirs() {
	local type
	for type in cgroup ipc mnt net pid time user uts; do
		echo "$type $(cat "$NSFS/$type/inum")"
		find "$NSFS/$type" -mindepth 1 -type d | sed "s|.*/|$type |"
	done | sort
}

@test "nsfs lists every namespace that namespacefs has" {
	run nsfs --list --raw --noheadings --output TYPE,NS
	assert_success
	assert_equal "$(sort <<<"$output")" "$(nsfs_dirs)"
}

# agrees_with_lsns: every row of lsns is a row of nsfs, run right after it;
# what differs goes to $BATS_TEST_TMPDIR/differ.
agrees_with_lsns() {
	local lsns_rows nsfs_rows row
	lsns_rows=$(lsns --raw --noheadings --output NS,TYPE,NPROCS)
	nsfs_rows=$(nsfs --list --raw --noheadings --output NS,TYPE,NPROCS)
	: >"$BATS_TEST_TMPDIR/differ"
	while read -r row; do
		grep -qxF "$row" <<<"$nsfs_rows" ||
			echo "lsns has \"$row\", nsfs has \"$(grep "^${row%% *} " <<<"$nsfs_rows")\"" >>"$BATS_TEST_TMPDIR/differ"
	done <<<"$lsns_rows"
	[ ! -s "$BATS_TEST_TMPDIR/differ" ]
}

@test "nsfs agrees with lsns on every namespace lsns sees and its process count" {
	# The two tools look at different instants: a process that comes or
	# goes in between changes a count, so they must agree in one of a few
	# tries.
	wait_until 10 agrees_with_lsns || fail "$(cat "$BATS_TEST_TMPDIR/differ")"
	run nsfs --list --raw --noheadings --output NS,TYPE,NPROCS
	# The bind-mounted network namespace has no process: lsns of util-linux
	# 2.38 may not see it, nsfs does.
	assert_line --partial "$(stat -c %i "$held") net 0"
}

@test "--proc and namespacefs give the same namespaces, parents and owners" {
	run nsfs --list --raw --noheadings --output TYPE,NS,PARENT,OWNER
	assert_success
	from_nsfs=$(sort <<<"$output")
	run nsfs --proc --list --raw --noheadings --output TYPE,NS,PARENT,OWNER
	assert_success
	assert_equal "$(sort <<<"$output")" "$from_nsfs"
}

@test "the tree nests pid and user namespaces, and --owner puts the others under their owner" {
	run nsfs tree --type pid --raw --noheadings --output NS,PARENT
	assert_success
	pid2=$(ns_inum "$web" pid)
	pid1=$(basename "$(dirname "$(ns_dir pid "$pid2")")")
	assert_line "$pid2 $pid1"
	run nsfs tree --owner --list --raw --noheadings --output TYPE,NS,OWNER
	assert_line "uts $(ns_inum "$web" uts) $(ns_inum "$web" user)"
}

@test "JSON output parses and uses lsns's field names" {
	run nsfs --json
	assert_success
	jq -e '.namespaces | length > 10' <<<"$output"
	jq -e '[.. | objects | select(has("ns"))][0] | has("type") and has("nprocs") and has("pid") and has("command")' <<<"$output"
	run nsfs --list --json
	jq -e '.namespaces | map(select(.type == "uts" and .ns == '"$(ns_inum "$web" uts)"')) | length == 1' <<<"$output"
}

@test "nsfs containers names each container by the host name of its processes" {
	run nsfs containers
	assert_success
	assert_output --regexp "nsfs-web"
	assert_line --regexp "nsfs-web.*\\b$web\\b"
	run nsfs containers --json
	jq -e '.' <<<"$output" >/dev/null
}

@test "nsfs watch prints namespaces as they come and go" {
	nsfs watch >"$BATS_TEST_TMPDIR/watch" 2>"$BATS_TEST_TMPDIR/watch.err" 3>&- &
	watcher=$!
	wait_until 10 grep -q watching "$BATS_TEST_TMPDIR/watch.err"
	spawn_in_ns uts unshare --uts sleep 1000
	inum=$(ns_inum "$SPAWNED" uts)
	wait_until 5 grep -q "^+ uts $inum" "$BATS_TEST_TMPDIR/watch"
	kill "$SPAWNED"
	wait_until 5 grep -q "^- uts $inum" "$BATS_TEST_TMPDIR/watch"
	kill "$watcher"
}

@test "--root reads another mount, and a missing namespacefs gets a clear message" {
	dir=$(mktemp -d)
	mount -t namespacefs namespacefs "$dir"
	run nsfs --root "$dir" --list --raw --noheadings --output TYPE,NS
	assert_success
	assert_equal "$(sort <<<"$output")" "$(nsfs_dirs)"
	umount "$dir"
	rmdir "$dir"

	run unshare --mount bash -c 'umount /sys/fs/namespaces && nsfs'
	assert_failure 1
	assert_output --partial "mount -t namespacefs"
	run nsfs --bogus-option
	assert_failure 2
}

@test "a user who cannot read everything sees what is visible and is told what is not" {
	run setpriv --reuid=1000 --regid=1000 --clear-groups nsfs --list
	assert_success
	assert_output --partial "permission denied"
	assert_line --regexp '^ *[0-9]+ +uts '
}
