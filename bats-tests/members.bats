#!/usr/bin/env bats
# Membership: the members file at the root of a mount (every task with its
# namespaces, in one read), and what reading procs and tasks costs.

load helpers/common
load helpers/ns

TYPES=(cgroup ipc mnt net pid time user uts)

teardown() {
	ns_cleanup
}

# spawn_sleepers N: start N idle processes, children of SPAWNED, and wait
# until all of them run.
spawn_sleepers() {
	spawn_ready nsbench sleepers "$1"
}

# check_members FILE: every line of FILE (a members file of the initial
# namespaces' mount) has PID, TGID and the eight types, and matches what
# /proc/PID/ns says of that task. Sets CHECKED to the tasks compared.
check_members() {
	local pid tgid inums want got i
	CHECKED=0
	while read -r pid tgid inums; do
		[[ $pid =~ ^[1-9][0-9]*$ && $tgid =~ ^[1-9][0-9]*$ ]] ||
			fail "bad line: $pid $tgid $inums"
		read -ra got <<<"$inums"
		[ "${#got[@]}" -eq 8 ] || fail "not 8 namespaces: $pid $tgid $inums"
		# A task that exited meanwhile has nothing left to compare.
		want=$(stat -L -c %i "${TYPES[@]/#//proc/$pid/ns/}" 2>/dev/null) ||
			continue
		want=(${want})
		for i in "${!TYPES[@]}"; do
			[ "${got[i]}" = "${want[i]}" ] ||
				fail "task $pid: ${TYPES[i]} ${got[i]}, /proc says ${want[i]}"
		done
		if [ "$pid" = "$tgid" ]; then
			[ -d "/proc/$pid" ] || fail "task $pid is not a process"
		else
			[ -d "/proc/$tgid/task/$pid" ] ||
				fail "task $pid is not a thread of $tgid"
		fi
		CHECKED=$((CHECKED + 1))
	done <"$1"
}

@test "the root of a mount has a members file, readable by root only" {
	run ls "$NSFS"
	assert_line members
	[ -f "$NSFS/members" ]
	run stat -c '%a %u %g' "$NSFS/members"
	assert_output "440 0 0"
	run as_user 1000 cat "$NSFS/members"
	assert_failure
}

@test "the members file agrees with /proc/PID/ns for every task" {
	spawn unshare --fork --pid --uts --ipc --net --mount --cgroup --time \
		bash -c 'sleep 1000 & exec nstest threads 3'
	init=$(child_of "$SPAWNED")
	wait_until 10 has_threads "$init" 3
	spawn unshare --user --map-root-user sleep 1000
	wait_until 10 in_new_ns "$SPAWNED" user

	cp "$NSFS/members" "$BATS_TEST_TMPDIR/members"
	check_members "$BATS_TEST_TMPDIR/members"
	echo "# $CHECKED tasks compared" >&3
	# Every process of the machine is there, and each of init's threads.
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		[ -d "/proc/$p" ] || continue
		grep -q "^$p " "$BATS_TEST_TMPDIR/members" || [ ! -d "/proc/$p" ] ||
			fail "process $p missing"
	done
	assert_equal "$(awk -v t="$init" '$2 == t' "$BATS_TEST_TMPDIR/members" | wc -l)" 3
	[ "$CHECKED" -gt 20 ]
}

@test "the members file reads the same whatever the read size" {
	spawn_sleepers 300
	# Only the sleepers' lines are stable while the suite runs.
	kids=$(children_of "$SPAWNED" | sort -n | tr '\n' '|')
	pattern="^(${kids%|}) "
	whole=$(grep -E "$pattern" "$NSFS/members")
	assert_equal "$(grep -c . <<<"$whole")" 300
	run bash -c "dd if=$NSFS/members bs=7 2>/dev/null | grep -E '$pattern'"
	assert_output "$whole"
	run bash -c "dd if=$NSFS/members bs=1 2>/dev/null | grep -E '$pattern'"
	assert_output "$whole"
}

@test "a container's members file shows its own tasks in its own numbering" {
	run unshare --user --map-root-user --pid --uts --fork --mount-proc bash -c '
		d=$(mktemp -d)
		mount -t namespacefs namespacefs "$d" || exit 1
		sleep 1000 &
		cat "$d/members"
		echo "own $(stat -L -c %i /proc/self/ns/user) $(stat -L -c %i /proc/self/ns/uts)"
		kill %1
		umount "$d"'
	assert_success
	own_user=$(awk '$1 == "own" { print $2 }' <<<"$output")
	own_uts=$(awk '$1 == "own" { print $3 }' <<<"$output")
	host_uts=$(ns_inum $$ uts)
	lines=$(grep -v '^own ' <<<"$output")
	# bash (1), sleep, cat: PIDs of the container, nothing of the host.
	assert_equal "$(awk '{ print $1 }' <<<"$lines" | sort -n | head -n 1)" 1
	assert_equal "$(wc -l <<<"$lines")" 3
	# Columns: PID TGID cgroup ipc mnt net pid time user uts.
	run awk -v u="$own_user" -v t="$own_uts" '$9 != u || $10 != t' <<<"$lines"
	assert_output ""
	refute_output --partial "$host_uts"
	# The host's cgroup namespace is not the container's to see.
	run awk '$3 != 0 && $3 != c' c="$(ns_inum $$ cgroup)" <<<"$lines"
	assert_output ""
}

@test "procs of a pid namespace costs the same however many processes the machine has" {
	spawn unshare --fork --pid sleep 1000
	init=$(child_of "$SPAWNED")
	procs="$NSFS/pid/$(ns_inum "$init" pid)/procs"
	run cat "$procs"
	assert_output "$init"

	read -r _ before < <(nsbench read "$procs" 201)
	spawn_sleepers 500
	read -r _ after < <(nsbench read "$procs" 201)
	echo "# procs of a 1-process pid namespace: $before s, $after s with 500 more processes" >&3
	# Walking every PID of the machine made it about 40 times slower with
	# 2,000 more processes, and grows with them: 500 are enough to tell,
	# and take a quarter of the time to start and to stop.
	awk -v a="$after" -v b="$before" 'BEGIN { exit !(a < 2 * b) }' ||
		fail "procs grew from $before s to $after s"
}

# unshare() frees a task's old uts, cgroup and time namespaces as soon as
# it has switched to the new ones, with no RCU grace period: a read of the
# members file must not look into a namespace after the task's lock that
# held it is dropped. KASAN, on the debug kernel, reports such a read.
@test "the members file is read safely while tasks switch namespaces under it" {
	run nstest switch-while-read 30 "$NSFS/members"
	assert_success
	echo "# $output" >&3
	[[ $output =~ ^([0-9]+)\ reads,\ ([0-9]+)\ switches$ ]]
	((BASH_REMATCH[1] >= 100 && BASH_REMATCH[2] >= 1000)) ||
		fail "too little of a race: $output"
}
