# Helpers for tests that build namespaces with unshare and look for them in
# namespacefs. Load after helpers/common (which provides wait_until).

NSFS=/sys/fs/namespaces

# The processes a test started; ns_cleanup kills them.
NS_PIDS=()

# ns_inum PID TYPE: the inode number in `readlink /proc/PID/ns/TYPE`.
ns_inum() {
	local link
	link=$(readlink "/proc/$1/ns/$2") || return 1
	link=${link##*[}
	echo "${link%]}"
}

# ps_table: "PID PPID" for every process, from one pass over /proc (a
# bash loop over thousands of processes takes minutes under emulation). The
# command name is in parentheses and may hold spaces: fields are counted
# from the last ") ".
ps_table() {
	local f=(/proc/[0-9]*/stat)
	cat "${f[@]}" 2>/dev/null |
		awk '{ match($0, /.*\) /); split(substr($0, RLENGTH + 1), f, " "); print $1, f[2] }'
}

# children_of PID: the PIDs whose parent is PID.
children_of() {
	ps_table | awk -v p="$1" '$2 == p { print $1 }'
}

# descendants_of PID: every process below PID, at any depth.
descendants_of() {
	ps_table | awk -v p="$1" '
		{ kids[$2] = kids[$2] " " $1 }
		END {
			q[n = 1] = p
			for (i = 1; i <= n; i++) {
				m = split(kids[q[i]], k, " ")
				for (j = 1; j <= m; j++) { q[++n] = k[j]; print k[j] }
			}
		}'
}

has_children() {
	[ -n "$(children_of "$1")" ]
}

# child_of PID: the first child of PID, waiting up to 10 s for one.
child_of() {
	local kids
	wait_until 10 has_children "$1" >&2 || return 1
	kids=$(children_of "$1")
	echo "${kids%%$'\n'*}"
}

# descendant PID DEPTH: follow the first child DEPTH times.
descendant() {
	local pid=$1 i
	for ((i = 0; i < $2; i++)); do
		pid=$(child_of "$pid") || return 1
	done
	echo "$pid"
}

# spawn CMD...: run CMD in the background, set SPAWNED to its PID and
# remember it for ns_cleanup. File descriptor 3 is bats' own: a background
# job that kept it would hang the suite.
spawn() {
	"$@" >/dev/null 2>&1 </dev/null 3>&- &
	SPAWNED=$!
	NS_PIDS+=("$SPAWNED")
}

# spawn_ready CMD...: spawn CMD, which prints "ready" once it is set up
# (nsbench sleepers, nsbench hold), and wait up to 300 s for that.
spawn_ready() {
	local out=$BATS_TEST_TMPDIR/ready.$RANDOM
	"$@" >"$out" 2>&1 </dev/null 3>&- &
	SPAWNED=$!
	NS_PIDS+=("$SPAWNED")
	wait_until 300 grep -qx ready "$out" || {
		cat "$out" >&2
		return 1
	}
}

# has_threads PID N: PID has N threads.
has_threads() {
	[ "$(ls "/proc/$1/task" 2>/dev/null | wc -l)" -eq "$2" ]
}

# in_new_ns PID TYPE: PID has left the test shell's namespace of TYPE.
in_new_ns() {
	local theirs
	theirs=$(ns_inum "$1" "$2") || return 1
	[ "$theirs" != "$(ns_inum $$ "$2")" ]
}

# spawn_in_ns TYPE CMD...: spawn CMD, which must enter a new namespace of
# TYPE without forking (unshare without --fork), and wait until it has.
spawn_in_ns() {
	local type=$1
	shift
	spawn "$@"
	wait_until 10 in_new_ns "$SPAWNED" "$type"
}

# ns_cleanup: kill what spawn started and everything below it.
ns_cleanup() {
	local pid
	for pid in "${NS_PIDS[@]}"; do
		kill_tree "$pid"
	done
	NS_PIDS=()
}

# kill_tree PID: stop PID and everything below it (again while new
# processes turn up, so that none escapes by forking), then kill them all.
kill_tree() {
	local all=() before=-1 round
	kill -STOP "$1" 2>/dev/null || return 0
	for round in 1 2 3 4 5; do
		all=($(descendants_of "$1"))
		[ "${#all[@]}" -gt "$before" ] || break
		before=${#all[@]}
		[ "$before" -eq 0 ] || kill -STOP "${all[@]}" 2>/dev/null || :
	done
	kill -KILL "$1" "${all[@]}" 2>/dev/null || :
	wait "$1" 2>/dev/null || :
	# The others exit on their own time: wait for them too, so that the
	# next test does not see them go (up to 10 s; a zombie counts as gone).
	wait_until 10 all_exited "${all[@]}"
}

# all_exited PID...: none of the PIDs is a process that still runs (a
# zombie has exited). One cat for them all: a fork for each of hundreds
# of PIDs costs seconds under emulation.
all_exited() {
	(($#)) || return 0
	local f=("${@/#//proc/}")
	cat "${f[@]/%//stat}" 2>/dev/null |
		awk '{ match($0, /.*\) /); split(substr($0, RLENGTH + 1), f, " ") }
			f[1] != "Z" { running = 1 } END { exit running }'
}

# sits_in DIR PID: PID or one of its descendants has DIR as its working
# directory (bats' traps may put a subshell between spawn and the command).
sits_in() {
	local p
	for p in "$2" $(descendants_of "$2"); do
		[ "$(readlink "/proc/$p/cwd")" = "$1" ] && return 0
	done
	return 1
}

# ns_dir_count TYPE: how many namespace directories TYPE has, at any depth.
ns_dir_count() {
	find "$NSFS/$1" -mindepth 1 -type d | wc -l
}

# ns_dir TYPE INUM: the directory of a namespace at any depth, or nothing.
ns_dir() {
	find "$NSFS/$1" -type d -name "$2" | head -n 1
}

# has_ns_dir TYPE INUM: the namespace has a directory.
has_ns_dir() {
	[ -n "$(ns_dir "$1" "$2")" ]
}

# as_user UID CMD...: run CMD with UID and GID UID and no supplementary
# groups. It replaces the (sub)shell that calls it, so that spawn's PID is
# the program's: call it through run or spawn.
as_user() {
	local uid=$1
	shift
	exec setpriv --reuid="$uid" --regid="$uid" --clear-groups "$@"
}

# CONTAINER: the script a container runs (bash -c "$CONTAINER"): mount
# namespacefs, make a child pid namespace, then describe what the mount
# shows; for each path in $PROBES, say whether the mount has it.
CONTAINER='
	d=$(mktemp -d)
	mount -t namespacefs namespacefs "$d" || exit 1
	unshare --fork --pid sleep 1000 &
	for ((i = 0; i < 200; i++)); do
		ls "$d/pid" | grep -q "^[0-9]" && break
		read -rt 0.05 <> <(:) || :
	done
	echo "pid-inum $(cat "$d/pid/inum") $(readlink /proc/self/ns/pid)"
	echo "pid-level $(cat "$d/pid/level")"
	echo "user-inum $(cat "$d/user/inum") $(readlink /proc/self/ns/user)"
	echo "procs $(tr "\n" " " <"$d/pid/procs")"
	echo "reaper $(cat "$d/pid/reaper")"
	for c in $(ls "$d/pid" | grep "^[0-9]"); do echo "pid-child $c $(cat "$d/pid/$c/reaper")"; done
	for t in uts net ipc mnt cgroup time user; do
		for c in $(ls "$d/$t" | grep "^[0-9]"); do echo "listed $t $c"; done
	done
	for probe in $PROBES; do
		if stat "$d/$probe" >/dev/null 2>&1; then echo "found $probe"; else echo "absent $probe"; fi
	done
	grep -rqs -e nsfs-secret "$d" && echo "secret leaked"
	kill %1
	umount "$d" && rmdir "$d"
	exit 0'
