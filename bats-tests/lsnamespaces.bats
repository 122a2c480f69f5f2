#!/usr/bin/env bats
# The lsnamespaces tool against namespacefs, against lsns, and against
# itself with --proc.

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
	[ -z "${watcher-}" ] || kill "$watcher" 2>/dev/null || :
	local i
	[ -z "${old_max-}" ] || echo "$old_max" >/proc/sys/fs/namespacefs/max_queued_events
	ns_cleanup
	umount "$held" 2>/dev/null || :
	rm -f "$held"
	# The cgroups a test made, deepest first, once their processes are gone.
	for ((i = ${#cg_made[@]} - 1; i >= 0; i--)); do
		wait_until 10 rmdir "${cg_made[i]}" 2>/dev/null || :
	done
}

# make_cgroup DIR: mkdir -p DIR in cgroup2, and remember the directories it
# made for teardown.
cg_made=()
make_cgroup() {
	local dir=$1 new=()
	while [[ ! -d $dir ]]; do
		new=("$dir" "${new[@]}")
		dir=${dir%/*}
	done
	mkdir -p "$1"
	cg_made+=("${new[@]}")
}

# Every namespace directory of namespacefs as "TYPE INUM", sorted.
namespacefs_dirs() {
	local type
	for type in cgroup ipc mnt net pid time user uts; do
		echo "$type $(cat "$NSFS/$type/inum")"
		find "$NSFS/$type" -mindepth 1 -type d | sed "s|.*/|$type |"
	done | sort
}

@test "lsnamespaces lists every namespace that namespacefs has" {
	run lsnamespaces --list --raw --noheadings --output TYPE,NS
	assert_success
	assert_equal "$(sort <<<"$output")" "$(namespacefs_dirs)"
	# tree is the explicit name of the default command.
	run lsnamespaces tree --list --raw --noheadings --output TYPE,NS
	assert_success
	assert_equal "$(sort <<<"$output")" "$(namespacefs_dirs)"
}

# agrees_with_lsns: every row of lsns is a row of lsnamespaces, run right
# after it; what differs goes to $BATS_TEST_TMPDIR/differ.
agrees_with_lsns() {
	local lsns_rows our_rows row
	lsns_rows=$(lsns --raw --noheadings --output NS,TYPE,NPROCS)
	our_rows=$(lsnamespaces --list --raw --noheadings --output NS,TYPE,NPROCS)
	: >"$BATS_TEST_TMPDIR/differ"
	while read -r row; do
		grep -qxF "$row" <<<"$our_rows" ||
			echo "lsns has \"$row\", lsnamespaces has \"$(grep "^${row%% *} " <<<"$our_rows")\"" >>"$BATS_TEST_TMPDIR/differ"
	done <<<"$lsns_rows"
	[ ! -s "$BATS_TEST_TMPDIR/differ" ]
}

@test "lsnamespaces agrees with lsns on every namespace lsns sees and its process count" {
	# The two tools look at different instants: a process that comes or
	# goes in between changes a count, so they must agree in one of a few
	# tries.
	wait_until 10 agrees_with_lsns || fail "$(cat "$BATS_TEST_TMPDIR/differ")"
	run lsnamespaces --list --raw --noheadings --output NS,TYPE,NPROCS
	# The bind-mounted network namespace has no process: lsns of util-linux
	# 2.38 may not see it, lsnamespaces does.
	assert_line --partial "$(stat -c %i "$held") net 0"
}

@test "--proc and namespacefs give the same namespaces, parents and owners" {
	local user0 pid0
	user0=$(cat "$NSFS/user/inum")
	pid0=$(cat "$NSFS/pid/inum")
	run lsnamespaces --list --raw --noheadings --output TYPE,NS,PNS,ONS
	assert_success
	# PNS and ONS are 0 where there is none, as with lsns.
	assert_line "user $user0 0 0"
	assert_line "pid $pid0 0 $user0"
	from_namespacefs=$(sort <<<"$output")
	run lsnamespaces --proc --list --raw --noheadings --output TYPE,NS,PNS,ONS
	assert_success
	assert_equal "$(sort <<<"$output")" "$from_namespacefs"
	# -P is --proc.
	run lsnamespaces -P --list --raw --noheadings --output TYPE,NS,PNS,ONS
	assert_success
	assert_equal "$(sort <<<"$output")" "$from_namespacefs"
}

@test "-p shows the namespaces of one process, from namespacefs and with -P" {
	local type want
	want=$(for type in cgroup ipc mnt net pid time user uts; do
		echo "$type $(ns_inum "$web" "$type")"
	done | sort)
	run lsnamespaces -p "$web" --list --raw --noheadings --output TYPE,NS
	assert_success
	assert_equal "$(sort <<<"$output")" "$want"
	run lsnamespaces -P -p "$web" --list --raw --noheadings --output TYPE,NS
	assert_success
	assert_equal "$(sort <<<"$output")" "$want"
}

@test "a namespace argument lists the processes of that namespace" {
	# The inner pid namespace holds the sleep alone.
	run lsnamespaces --list --raw --noheadings --output PID "$(ns_inum "$web" pid)"
	assert_success
	assert_output "$web"
}

@test "the tree nests pid and user namespaces, and -T puts the others under their owner" {
	local pid1 pid2 user1 user2 uts2
	pid2=$(ns_inum "$web" pid)
	pid1=$(basename "$(dirname "$(ns_dir pid "$pid2")")")
	user2=$(ns_inum "$web" user)
	user1=$(basename "$(dirname "$(ns_dir user "$user2")")")
	uts2=$(ns_inum "$web" uts)

	run lsnamespaces --type pid --list --raw --noheadings --output NS,PNS
	assert_success
	assert_line "$pid2 $pid1"
	# The default layout: pid and user namespaces under their parent.
	run lsnamespaces --type pid --type user --json --output TYPE,NS,PNS
	assert_success
	jq -e --argjson p "$pid1" --argjson c "$pid2" \
		'[.. | objects | select(.type == "pid" and .ns == $p)][0].children
		 | map(select(.type == "pid" and .ns == $c and .pns == $p)) | length == 1' <<<"$output"
	jq -e --argjson p "$user1" --argjson c "$user2" \
		'[.. | objects | select(.type == "user" and .ns == $p)][0].children
		 | map(select(.type == "user" and .ns == $c and .pns == $p)) | length == 1' <<<"$output"

	run lsnamespaces --list --raw --noheadings --output TYPE,NS,ONS
	assert_success
	assert_line "uts $uts2 $user2"
	# -T alone and --tree=owner: every namespace under its owner.
	for tree in -T --tree=owner; do
		run lsnamespaces "$tree" --json --output TYPE,NS,ONS
		assert_success
		jq -e --argjson u "$user2" --argjson n "$uts2" \
			'[.. | objects | select(.type == "user" and .ns == $u)][0].children
			 | map(select(.type == "uts" and .ns == $n and .ons == $u)) | length == 1' <<<"$output"
	done
}

@test "JSON output parses and uses lsns's field names" {
	local user0
	user0=$(cat "$NSFS/user/inum")
	run lsnamespaces --json
	assert_success
	jq -e '.namespaces | length > 10' <<<"$output"
	jq -e '[.. | objects | select(has("ns"))][0] | has("type") and has("nprocs") and has("pid") and has("user") and has("command")' <<<"$output"
	run lsnamespaces --list --json
	assert_success
	jq -e '.namespaces | map(select(.type == "uts" and .ns == '"$(ns_inum "$web" uts)"')) | length == 1' <<<"$output"
	# lsns's keys pns and ons, 0 where there is none.
	run lsnamespaces --list --json --output NS,TYPE,PNS,ONS
	assert_success
	jq -e --argjson u "$user0" \
		'.namespaces | map(select(.type == "user" and .ns == $u and .pns == 0 and .ons == 0)) | length == 1' <<<"$output"
}

@test "lsnamespaces containers names each container by the host name of its processes" {
	run lsnamespaces containers
	assert_success
	assert_line --index 0 --regexp '^HOSTNAME +ENGINE +CONTAINER +UNIT +NS +NPROCS +PIDS +USER +COMMAND *$'
	assert_output --regexp "nsfs-web"
	assert_line --regexp "nsfs-web.*\\b$web\\b"
	run lsnamespaces containers --json
	assert_success
	# The container of $web; its parent pid namespace shares its uts one.
	jq -e --argjson w "$web" '[.containers[] | select(.pids | index($w))] | length == 1 and .[0].hostname == "nsfs-web"' <<<"$output"
}

@test "lsnamespaces containers names each container's engine, id and unit from its cgroup" {
	local id=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
	local -A dirs=(
		[docker]="system.slice/docker-$id.scope"
		[docker-cgroupfs]="docker/$id"
		[containerd]="kubepods.slice/kubepods-pod1.slice/cri-containerd-$id.scope"
		[podman]="user.slice/user-1000.slice/user@1000.service/user.slice/libpod-$id.scope/container"
		[cri-o]="machine.slice/crio-$id.scope"
		[nspawn]='machine.slice/machine-web\x2d1.scope/payload'
		[unit]="system.slice/nginx.service"
	)
	local name pid dir want
	grep -q " /sys/fs/cgroup cgroup2 " /proc/self/mounts || skip "no cgroup2 at /sys/fs/cgroup"
	for name in "${!dirs[@]}"; do
		make_cgroup "/sys/fs/cgroup/${dirs[$name]}"
		spawn unshare --pid --uts --fork bash -c "hostname cg-$name; exec sleep 1000"
		pid=$(descendant "$SPAWNED" 1)
		wait_until 10 test "$(nsenter -t "$pid" -u hostname 2>/dev/null)" = "cg-$name"
		echo "$pid" >"/sys/fs/cgroup/${dirs[$name]}/cgroup.procs"
	done
	run lsnamespaces containers -J -o HOSTNAME,ENGINE,CONTAINER,UNIT
	assert_success
	want="[\"cg-containerd\",\"containerd\",\"$id\",\"cri-containerd-$id.scope\"]
[\"cg-cri-o\",\"cri-o\",\"$id\",\"crio-$id.scope\"]
[\"cg-docker\",\"docker\",\"$id\",\"docker-$id.scope\"]
[\"cg-docker-cgroupfs\",\"docker\",\"$id\",null]
[\"cg-nspawn\",\"systemd-nspawn\",\"web-1\",\"machine-web\\\\x2d1.scope\"]
[\"cg-podman\",\"podman\",\"$id\",\"libpod-$id.scope\"]
[\"cg-unit\",null,null,\"nginx.service\"]"
	assert_equal "$(jq -c '[.containers[] | select(.hostname | startswith("cg-"))] |
		sort_by(.hostname) | .[] | [.hostname, .engine, .container, .unit]' <<<"$output")" "$want"
	# They are among the default columns.
	run lsnamespaces containers
	assert_success
	assert_line --regexp '^cg-docker +docker +0123456789'
}

@test "lsnamespaces metrics counts what namespacefs has, by type, creator and processes" {
	run lsnamespaces metrics
	assert_success
	local type n held_net
	for type in cgroup ipc mnt net pid time user uts; do
		n=$(namespacefs_dirs | grep -c "^$type ")
		assert_line "lsnamespaces_namespaces{type=\"$type\"} $n"
		# Every namespace has a creator: the counts by creator add up.
		assert_equal "$(grep "^lsnamespaces_namespaces_by_creator{type=\"$type\"," <<<"$output" |
			awk '{ s += $2 } END { print s }')" "$n"
	done
	# The network namespace held only by the bind mount has no process.
	held_net=$(sed -n 's/^lsnamespaces_namespaces_without_processes{type="net"} //p' <<<"$output")
	assert [ "$held_net" -ge 1 ]
	# The container's processes are outside the host's uts namespace.
	assert_line --regexp '^lsnamespaces_processes_outside_own_namespace\{type="uts"\} [1-9]'
	assert_line "lsnamespaces_user_namespaces_limit{type=\"user\"} $(cat /proc/sys/user/max_user_namespaces)"
	# The same counts from /proc.
	run lsnamespaces metrics --proc -t uts
	assert_success
	assert_line --regexp '^lsnamespaces_namespaces\{type="uts"\} [2-9]'
}

@test "lsnamespaces watch prints namespaces as they come and go" {
	lsnamespaces watch >"$BATS_TEST_TMPDIR/watch" 2>"$BATS_TEST_TMPDIR/watch.err" 3>&- &
	watcher=$!
	wait_until 10 grep -q watching "$BATS_TEST_TMPDIR/watch.err"
	spawn_in_ns uts unshare --uts sleep 1000
	inum=$(ns_inum "$SPAWNED" uts)
	wait_until 5 grep -q "^+ uts $inum" "$BATS_TEST_TMPDIR/watch"
	kill "$SPAWNED"
	wait_until 5 grep -q "^- uts $inum" "$BATS_TEST_TMPDIR/watch"
	kill "$watcher"
}

# watch_state LOG START...: the uts namespaces a reader of the watch output
# LOG believes exist, having started from the numbers START; a "+" of one
# it holds or a "-" of one it does not is printed as "diverged".
watch_state() {
	local log=$1
	shift
	awk -v start="$*" '
		BEGIN { n = split(start, a, " "); for (i = 1; i <= n; i++) s[a[i]] = 1 }
		$1 == "+" && $2 == "uts" { if ($3 in s) print "diverged: + " $3; s[$3] = 1 }
		$1 == "-" && $2 == "uts" { if (!($3 in s)) print "diverged: - " $3; delete s[$3] }
		END { for (k in s) print k }' "$log" | sort
}

uts_dirs() {
	local d
	for d in "$NSFS"/uts/[0-9]*/; do
		d=${d%/}
		echo "${d##*/}"
	done | sort
}

@test "lsnamespaces watch lists again after a queue overflow, and what it prints adds up to what is there" {
	local start=()
	old_max=$(cat /proc/sys/fs/namespacefs/max_queued_events)
	echo 1 >/proc/sys/fs/namespacefs/max_queued_events
	mapfile -t start < <(uts_dirs)
	lsnamespaces watch -t uts >"$BATS_TEST_TMPDIR/watch" 2>"$BATS_TEST_TMPDIR/watch.err" 3>&- &
	watcher=$!
	wait_until 10 grep -q watching "$BATS_TEST_TMPDIR/watch.err"
	# Some stay, most come and go, faster than a queue of one holds.
	spawn_in_ns uts unshare --uts sleep 1000
	spawn_in_ns uts unshare --uts sleep 1000
	nstest churn 500 3>&-
	echo "$old_max" >/proc/sys/fs/namespacefs/max_queued_events
	old_max=
	wait_until 30 grep -q "events were lost" "$BATS_TEST_TMPDIR/watch"
	# Once it has listed again, its view is the directory's.
	wait_until 30 test "$(watch_state "$BATS_TEST_TMPDIR/watch" "${start[@]}")" = "$(uts_dirs)"
	run watch_state "$BATS_TEST_TMPDIR/watch" "${start[@]}"
	refute_output --partial diverged
	kill "$watcher"
	wait "$watcher" || :
	watcher=
}

@test "--root reads another mount, and a missing namespacefs gets a clear message" {
	dir=$(mktemp -d)
	mount -t namespacefs namespacefs "$dir"
	run lsnamespaces --root "$dir" --list --raw --noheadings --output TYPE,NS
	assert_success
	assert_equal "$(sort <<<"$output")" "$(namespacefs_dirs)"
	umount "$dir"
	rmdir "$dir"

	run unshare --mount bash -c 'umount /sys/fs/namespaces && lsnamespaces'
	assert_failure 1
	assert_output --partial "mount -t namespacefs"
	# Wrong usage is status 1, as with util-linux.
	run lsnamespaces --bogus-option
	assert_failure 1
	run lsnamespaces --list --tree
	assert_failure 1
	run lsnamespaces --raw --json
	assert_failure 1
}

@test "a user who cannot read everything sees what is visible and is told what is not" {
	run setpriv --reuid=1000 --regid=1000 --clear-groups lsnamespaces --list
	assert_success
	assert_output --partial "permission denied"
	assert_line --regexp '^ *[0-9]+ +uts '
}
