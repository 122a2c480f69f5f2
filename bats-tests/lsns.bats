#!/usr/bin/env bats
# Cross-check against util-linux: every namespace lsns reports is in
# namespacefs with the same inode number and process count.

load helpers/common
load helpers/ns

teardown() {
	ns_cleanup
}

@test "every namespace lsns reports has a directory with lsns's NPROCS in procs" {
	spawn_in_ns uts unshare --user --map-root-user --uts --ipc --net --mount --cgroup --time sleep 1000
	spawn unshare --fork --pid sleep 1000
	child_of "$SPAWNED" >/dev/null

	# lsns runs as a child of this shell: it counted itself in this shell's
	# namespaces, and has exited by the time procs is read.
	lsns --raw --noheadings --output NS,TYPE,NPROCS >"$BATS_TEST_TMPDIR/lsns"
	rows=$(<"$BATS_TEST_TMPDIR/lsns")
	[ "$(wc -l <<<"$rows")" -ge 10 ]
	while read -r inum type nprocs; do
		[ "$inum" != "$(ns_inum $$ "$type")" ] || nprocs=$((nprocs - 1))
		if [ "$(cat "$NSFS/$type/inum")" = "$inum" ]; then
			dir=$NSFS/$type
		else
			dir=$(ns_dir "$type" "$inum")
		fi
		[ -n "$dir" ] || fail "lsns's $type:[$inum] has no directory"
		# A builtin, so that no process of this test is counted in passing.
		mapfile -t procs <"$dir/procs"
		assert_equal "$type:[$inum] ${#procs[@]}" "$type:[$inum] $nprocs"
	done <<<"$rows"
}
