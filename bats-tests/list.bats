#!/usr/bin/env bats
# The namespaces file at the root of a mount: every namespace that the
# mount shows, with its id, parent and owner, in one read.

load helpers/common
load helpers/ns

teardown() {
	ns_cleanup
}

# as_tree FILE: a namespaces file's lines as nsbench tree prints what the
# directories show (TYPE INUM PARENT OWNER, a user namespace's owner being
# its parent), sorted.
as_tree() {
	awk '{ print $1, $2, $4, ($1 == "user" ? $4 : $5) }' "$1" | sort
}

# well_formed FILE: every line is TYPE INUM ID PARENT OWNER UID, each id
# once, each parent listed before its children.
well_formed() {
	awk '
		NF != 6 || $1 !~ /^(cgroup|ipc|mnt|net|pid|time|user|uts)$/ ||
		    $2 !~ /^[1-9][0-9]*$/ || $3 !~ /^[1-9][0-9]*$/ ||
		    $4 !~ /^(0|[1-9][0-9]*)$/ || $5 !~ /^(0|[1-9][0-9]*)$/ ||
		    $6 !~ /^(0|[1-9][0-9]*)$/ {
			print "bad line " NR ": " $0; bad = 1
		}
		ids[$3]++ { print "id twice: " $0; bad = 1 }
		$4 != 0 && !(($1, $4) in seen) {
			print "parent not listed before: " $0; bad = 1
		}
		{ seen[$1, $2] = 1 }
		END { exit bad }' "$1"
}

# nested: pid and user namespaces two levels deep, with namespaces of every
# flat type in the user namespaces.
nested() {
	spawn unshare --user --map-root-user --fork --pid --uts --ipc --net \
		--mount --cgroup --time bash -c '
		unshare --user --map-root-user --fork --pid --uts --net sleep 1000 &
		exec sleep 1000'
	wait_until 10 test -n "$(descendant "$SPAWNED" 3 2>/dev/null)"
	INNER=$(descendant "$SPAWNED" 3)
	wait_until 10 in_new_ns "$INNER" uts
}

@test "the root of a mount has a namespaces file that every user may read" {
	run ls "$NSFS"
	assert_line namespaces
	run stat -c '%a %u %g' "$NSFS/namespaces"
	assert_output "444 0 0"
	run as_user 1000 cat "$NSFS/namespaces"
	assert_success
	assert_line "uts $(ns_inum $$ uts) 2 0 $(ns_inum $$ user) 0"
	# Each type's directory belongs to the UID on its line.
	for t in $(ls "$NSFS" | grep -v -e members -e namespaces -e stats); do
		assert_line --regexp "^$t $(stat -c %i "$NSFS/$t") [0-9]+ 0 [0-9]+ $(stat -c %u "$NSFS/$t")$"
	done
}

@test "the namespaces file lists what the directories show, parents first" {
	nested
	cp "$NSFS/namespaces" "$BATS_TEST_TMPDIR/list"
	nsbench tree "$NSFS" | sort >"$BATS_TEST_TMPDIR/tree"
	run well_formed "$BATS_TEST_TMPDIR/list"
	assert_success
	run diff "$BATS_TEST_TMPDIR/tree" <(as_tree "$BATS_TEST_TMPDIR/list")
	assert_success
	# The innermost namespaces: ids as NS_GET_ID has them, the pid
	# namespace two below the host's, owned by the inner user namespace.
	for t in pid user uts net; do
		read -r _ id < <(nsid "/proc/$INNER/ns/$t")
		assert_equal "$(awk -v t="$t" -v i="$(ns_inum "$INNER" "$t")" \
			'$1 == t && $2 == i { print $3 }' "$BATS_TEST_TMPDIR/list")" "$id"
	done
	mid=$(ns_inum "$(child_of "$SPAWNED")" pid)
	run grep "^pid $(ns_inum "$INNER" pid) " "$BATS_TEST_TMPDIR/list"
	assert_output --regexp " $mid $(ns_inum "$INNER" user) 0$"
	run grep "^user $(ns_inum "$INNER" user) " "$BATS_TEST_TMPDIR/list"
	assert_output --regexp " $(ns_inum "$SPAWNED" user) 0 0$"
	echo "# $(wc -l <"$BATS_TEST_TMPDIR/list") namespaces listed" >&3
}

@test "a container's namespaces file lists what its own directories show" {
	run as_user 1000 unshare --user --map-root-user --pid --fork --mount \
		--uts bash -c '
		d=$(mktemp -d)
		mount -t namespacefs namespacefs "$d" || exit 1
		unshare --user --map-root-user --fork --pid --uts sleep 1000 &
		for ((i = 0; i < 200; i++)); do
			[ "$(grep -c "^uts " "$d/namespaces")" -ge 2 ] && break
			read -rt 0.05 <> <(:) || :
		done
		nsbench tree "$d" | sort
		echo ==
		cat "$d/namespaces"
		echo ==
		cat "$d/stats"
		kill %1'
	assert_success
	tree=$(sed '/^==$/,$d' <<<"$output")
	list=$(sed '1,/^==$/d; /^==$/,$d' <<<"$output")
	stats=$(sed '1,/^==$/d' <<<"$output" | sed '1,/^==$/d')
	# The container's stats count its lines, and tell nothing of the
	# machine's creations: two fields a line.
	run diff <(echo "$stats") <(awk '{ n[$1]++ } END { for (t in n) print t, n[t] }' <<<"$list" | sort)
	assert_success
	run well_formed <(echo "$list")
	assert_success
	run diff <(echo "$tree") <(as_tree <(echo "$list"))
	assert_success
	# Its two uts and pid namespaces, nested user namespace, nothing of the
	# host's but its cgroup namespace, whose directory the type stands for.
	assert_equal "$(grep -c '^uts ' <<<"$list")" 2
	assert_equal "$(grep -c '^pid ' <<<"$list")" 2
	assert_equal "$(grep -c '^user ' <<<"$list")" 2
	run echo "$list"
	for t in uts pid user; do
		refute_line --regexp "^$t $(ns_inum $$ "$t") "
	done
	# UIDs as the container sees them: its own uts namespace's creator,
	# uid 1000, is its root; the host's root is the overflow UID.
	run grep "^cgroup " <<<"$list"
	assert_output "cgroup $(ns_inum $$ cgroup) 5 0 0 65534"
	run grep "^uts " <<<"$list"
	assert_line --regexp "^uts [0-9]+ [0-9]+ 0 [0-9]+ 0$"
	refute_line --regexp " 1000$"
}

@test "the namespaces file reads the same whatever the read size and offset" {
	spawn_ready nsbench hold uts 300
	whole=$(cat "$NSFS/namespaces")
	[ "$(grep -c '^uts ' <<<"$whole")" -ge 301 ]
	run bash -c "dd if=$NSFS/namespaces bs=7 2>/dev/null"
	assert_output "$whole"
	run bash -c "dd if=$NSFS/namespaces bs=1 2>/dev/null"
	assert_output "$whole"
	# From an offset that lseek set, in the middle of a line.
	off=$(($(head -n 150 <<<"$whole" | wc -c) + 3))
	run bash -c "dd if=$NSFS/namespaces bs=1000 skip=$off iflag=skip_bytes 2>/dev/null"
	assert_output "$(tail -c +$((off + 1)) <<<"$whole")"
}

# stats_of FILE TYPE FIELD: field FIELD (2 shown, 3 created, 4 destroyed)
# of TYPE's line of a stats file.
stats_of() {
	awk -v t="$2" -v f="$3" '$1 == t { print $f }' "$1"
}

destroyed_at_least() {
	[ "$(stats_of "$NSFS/stats" uts 4)" -ge "$1" ]
}

@test "the stats file counts what the namespaces file lists, and what the machine made and destroyed" {
	nested
	cp "$NSFS/namespaces" "$BATS_TEST_TMPDIR/list"
	cp "$NSFS/stats" "$BATS_TEST_TMPDIR/stats"
	run stat -c '%a %u %g' "$NSFS/stats"
	assert_output "444 0 0"
	# Every type once, in the order of the root directory; in the
	# initial namespaces' mount, made less destroyed is what lives.
	run awk '{ print $1 }' "$BATS_TEST_TMPDIR/stats"
	assert_output "$(printf '%s\n' cgroup ipc mnt net pid time user uts)"
	local t shown made gone
	for t in cgroup ipc mnt net pid time user uts; do
		shown=$(stats_of "$BATS_TEST_TMPDIR/stats" $t 2)
		made=$(stats_of "$BATS_TEST_TMPDIR/stats" $t 3)
		gone=$(stats_of "$BATS_TEST_TMPDIR/stats" $t 4)
		assert_equal "$shown" "$(grep -c "^$t " "$BATS_TEST_TMPDIR/list")"
		assert [ "$made" -ge "$gone" ]
	done
	# Nothing changes between the two reads (no other test runs): the
	# registry holds what the mount shows.
	assert_equal "$((made - gone))" "$shown"
	# 300 uts namespaces made and destroyed one after the other count.
	made=$(stats_of "$NSFS/stats" uts 3)
	gone=$(stats_of "$NSFS/stats" uts 4)
	run nsbench rate uts 300
	assert_success
	assert [ "$(stats_of "$NSFS/stats" uts 3)" -ge $((made + 300)) ]
	wait_until 10 destroyed_at_least $((gone + 300))
	# Anyone may read it.
	run as_user 1000 cat "$NSFS/stats"
	assert_success
	assert_equal "${#lines[@]}" 8
}
