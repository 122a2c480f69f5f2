#!/usr/bin/env bats
# Stress: writers create and destroy nested namespaces of every type while
# readers walk the whole tree and read every file.

load helpers/common
load helpers/ns

# Seconds the writers run; STRESS_SECONDS in the environment overrides it.
DURATION=${STRESS_SECONDS:-60}

tree_dirs() {
	find "$NSFS" -type d 2>/dev/null | sort
}

same_tree() {
	[ "$(tree_dirs)" = "$1" ]
}

# The tree has stopped changing: namespaces of earlier tests whose teardown
# is asynchronous (network namespaces) are gone.
settled() {
	local a
	a=$(tree_dirs)
	read -rt 0.5 <> <(:) || :
	same_tree "$a"
}

# valid FILE CONTENT: CONTENT is a whole record of FILE's kind.
valid() {
	local num='^[0-9]+$'
	case ${1##*/} in
	id | inum | level | reaper | mounts | mntns_id | cookie | creator | \
		msg_queues | sem_arrays | shm_segments | mq_queues)
		[[ $2 =~ $num ]] ;;
	procs | tasks)
		[[ -z $2 || $2 =~ ^[0-9]+(\ [0-9]+)*$ ]] ;;
	uname)
		[[ $2 =~ ^[^\ ]+\ [^\ ]+\ [^\ ]+\ .+\ [^\ ]+\ [^\ ]+$ ]] ;;
	hostname | domainname)
		[[ -n $2 && $2 != *' '* ]] ;;
	setgroups)
		[[ $2 == allow || $2 == deny ]] ;;
	uid_map | gid_map | projid_map)
		[[ -z $2 || $2 =~ ^(\ *[0-9]+\ +[0-9]+\ +[0-9]+\ ?)+$ ]] ;;
	offsets)
		[[ $2 =~ ^monotonic\ +-?[0-9]+\ +[0-9]+\ boottime\ +-?[0-9]+\ +[0-9]+$ ]] ;;
	devices)
		[[ $2 =~ ^([0-9]+\ [^\ ]+\ (up|down)\ ?)+$ ]] ;;
	root)
		[[ $2 == /* ]] ;;
	members)
		# Lines of PID, TGID and eight inode numbers, read as one.
		local words=($2)
		[[ $2 =~ ^[0-9]+(\ [0-9]+)*$ ]] && ((${#words[@]} % 10 == 0)) ;;
	namespaces)
		# Lines of a type and five numbers, read as one.
		local line='(cgroup|ipc|mnt|net|pid|time|user|uts)( [0-9]+){5}'
		[[ $2 =~ ^$line( $line)*$ ]] ;;
	*)
		false ;;
	esac
}

writer() {
	local n=0 deadline=$((SECONDS + DURATION))
	while ((SECONDS < deadline)); do
		case $1 in
		all) unshare --user --map-root-user --fork --pid --uts --ipc --net --mount --cgroup --time \
			unshare --user --map-root-user --fork --pid --uts true && n=$((n + 11)) ;;
		pid) unshare -fp unshare -fp unshare -fp true && n=$((n + 3)) ;;
		flat) unshare --uts --ipc --net true && n=$((n + 3)) ;;
		esac
	done
	echo "$n" >"$BATS_TEST_TMPDIR/writer.$1"
}

reader() {
	local n=0 f content deadline=$((SECONDS + DURATION))
	while ((SECONDS < deadline)); do
		while read -r f; do
			# A namespace may go between the walk and the read.
			content=$(tr '\n' ' ' <"$f" 2>/dev/null) || continue
			[ -n "$content" ] || [ "${f##*/}" = procs ] || [ "${f##*/}" = tasks ] ||
				[ "${f##*/}" = uid_map ] || [ "${f##*/}" = gid_map ] ||
				[ "${f##*/}" = projid_map ] || { [ -e "$f" ] && echo "EMPTY $f"; continue; }
			valid "$f" "${content% }" || echo "BAD $f: $content"
			n=$((n + 1))
		done < <(find "$NSFS" -type f 2>/dev/null)
	done >"$BATS_TEST_TMPDIR/bad.$1"
	echo "$n" >"$BATS_TEST_TMPDIR/reader.$1"
}

@test "writers churn namespaces of every type while readers read every file: no torn record, nothing left" {
	wait_until 30 settled
	before=$(tree_dirs)
	start=$SECONDS
	for w in all pid flat; do writer "$w" 3>&- & done
	for r in 1 2 3; do reader "$r" 3>&- & done
	wait
	elapsed=$((SECONDS - start))

	created=$(cat "$BATS_TEST_TMPDIR"/writer.* | paste -sd+ | bc)
	read=$(cat "$BATS_TEST_TMPDIR"/reader.* | paste -sd+ | bc)
	echo "# stress: $created namespaces created and destroyed, $read files read, in $elapsed s" >&3
	[ "$created" -gt 0 ] && [ "$read" -gt 0 ]
	run cat "$BATS_TEST_TMPDIR"/bad.*
	assert_output ""

	wait_until 60 same_tree "$before"
	if [ -e /sys/kernel/debug/kmemleak ]; then
		echo scan >/sys/kernel/debug/kmemleak
		run cat /sys/kernel/debug/kmemleak
		assert_output ""
	fi
}
