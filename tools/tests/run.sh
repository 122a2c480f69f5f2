#!/bin/bash
# run.sh: host-side tests of nsfs. Builds tools/nsfs.c for this machine,
# runs it on a directory tree that looks like namespacefs (make-fixture.sh)
# and compares what it prints with tools/tests/expected/, then tries it on
# this machine's /proc. Prints "N passed, N failed" and exits 1 if any test
# failed.
#
#   tools/tests/run.sh            run the tests
#   tools/tests/run.sh --update   rewrite the expected files from the output
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
expected=$here/expected
update=
[[ ${1-} == --update ]] && update=1

work=$(mktemp -d) || exit 1
watch_pid=
bg_pids=()
cleanup() {
	[[ $watch_pid ]] && kill "$watch_pid" 2>/dev/null
	for pid in "${bg_pids[@]}"; do
		kill -KILL "$pid" 2>/dev/null
	done
	wait 2>/dev/null
	if mountpoint -q "$work/held-uts" 2>/dev/null; then
		umount "$work/held-uts"
	fi
	chmod -R u+w "$work" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
# Others may read the fixture: the permission test runs as another user.
chmod 0755 "$work"

passed=0
failed=0
skipped=0
pass() {
	passed=$((passed + 1))
	echo "ok - $1"
}
fail() {
	failed=$((failed + 1))
	echo "not ok - $1"
	if [[ ${2-} ]]; then
		sed 's/^/#   /' <<<"$2"
	fi
}
skip() {
	skipped=$((skipped + 1))
	echo "ok - $1 # skip $2"
}
summary() {
	echo "$passed passed, $failed failed, $skipped skipped"
	((failed == 0))
	exit
}

nsfs=$work/nsfs
# shellcheck disable=SC2046 # pkg-config prints several words
if ! gcc -std=c11 -Wall -Wextra -Werror -O2 -o "$nsfs" "$top/tools/nsfs.c" \
	$(pkg-config --cflags --libs smartcols); then
	fail "nsfs builds with -Wall -Wextra -Werror"
	summary
fi
pass "nsfs builds with -Wall -Wextra -Werror"

fx=$work/fixture
if ! "$here/make-fixture.sh" "$fx"; then
	fail "the fixture is built"
	summary
fi

# The names of the fixture's owners: root and 65534 when run as root,
# otherwise the caller for both.
name_of() {
	getent passwd "$1" | cut -d: -f1 | grep . || echo "$1"
}
if [[ $(id -u) == 0 ]]; then
	u0=$(name_of 0)
	u65534=$(name_of 65534)
else
	u0=$(id -un)
	u65534=$u0
fi

# What is compared: the fixture's path as FIXTURE, and in expected files
# @U0@ and @U65534@ stand for the owners' names.
normalize() {
	sed -e "s|$fx|FIXTURE|g"
}
expand() {
	sed -e "s/@U0@/$u0/g" -e "s/@U65534@/$u65534/g" "$1"
}

# check NAME FILE ARGS...: nsfs ARGS prints expected/FILE and exits 0.
check() {
	local name=$1 file=$2 out rc
	shift 2
	out=$("$nsfs" "$@" 2>"$work/stderr" | normalize)
	rc=${PIPESTATUS[0]}
	if [[ $update ]]; then
		sed -e "s/\\b$u65534\\b/@U65534@/g" -e "s/\\b$u0\\b/@U0@/g" \
			<<<"$out" >"$expected/$file"
	fi
	if ((rc != 0)); then
		fail "$name" "exit status $rc: $(cat "$work/stderr")"
	elif [[ -s $work/stderr ]]; then
		fail "$name" "unexpected messages: $(cat "$work/stderr")"
	elif ! diff -u <(expand "$expected/$file") <(cat <<<"$out") \
		>"$work/diff"; then
		fail "$name" "$(cat "$work/diff")"
	else
		pass "$name"
	fi
}

# check_jq NAME FILTER ARGS...: nsfs ARGS prints JSON for which jq's
# FILTER is true.
check_jq() {
	local name=$1 filter=$2 out
	shift 2
	if ! out=$("$nsfs" "$@" 2>"$work/stderr"); then
		fail "$name" "$out $(cat "$work/stderr")"
	elif ! jq -e "$filter" <<<"$out" >/dev/null 2>"$work/jq"; then
		fail "$name" "jq -e '$filter' fails: $(cat "$work/jq")"
	else
		pass "$name"
	fi
}

# check_tree NAME DIR: nsfs on the copy DIR prints expected/tree.out.
check_tree() {
	local name=$1 dir=$2 out
	out=$("$nsfs" --root "$dir" -o NS,TYPE,ID,NPROCS,PID,PARENT,OWNER,LEVEL,DETAIL \
		2>&1 | sed -e "s|$dir|FIXTURE|g")
	if diff -u <(expand "$expected/tree.out") <(cat <<<"$out") >"$work/diff"; then
		pass "$name"
	else
		fail "$name" "$(cat "$work/diff")"
	fi
}

# check_exit NAME STATUS PATTERN ARGS...: nsfs ARGS exits with STATUS and
# its standard error matches PATTERN (grep -E).
check_exit() {
	local name=$1 want=$2 pattern=$3 rc
	shift 3
	"$nsfs" "$@" >"$work/stdout" 2>"$work/stderr"
	rc=$?
	if ((rc != want)); then
		fail "$name" "exit status $rc, not $want: $(cat "$work/stderr")"
	elif ! grep -Eq -- "$pattern" "$work/stderr"; then
		fail "$name" "no '$pattern' in: $(cat "$work/stderr")"
	else
		pass "$name"
	fi
}

# wait_for SECONDS COMMAND...: poll until COMMAND succeeds.
wait_for() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@"; do
		((SECONDS < deadline)) || return 1
		sleep 0.05
	done
}

echo "# the tree, the list and JSON"
check "the tree nests pid and user namespaces by parent" tree.out \
	--root "$fx" -o NS,TYPE,ID,NPROCS,PID,PARENT,OWNER,LEVEL,DETAIL
check "the default columns, raw" tree-raw.out --root "$fx" -r
check "a list without headings shows paths, parents and owners" list.out \
	--root "$fx" -l -n -o NS,TYPE,ID,PATH,NPROCS,PID,PARENT,OWNER,LEVEL,DETAIL
check "--owner puts namespaces under their owning user namespace" owner.out \
	--root "$fx" --owner -o NS,TYPE,NPROCS,OWNER,DETAIL
check "--owner with -t keeps the user namespaces above what it shows" \
	owner-uts.out --root "$fx" --owner -t uts -o NS,TYPE,DETAIL
check "-t pid restricts to pid namespaces, with lsns's PNS" pid.out \
	--root "$fx" -t pid -o NS,PNS,ONS,LEVEL,DETAIL
check "-J prints JSON with lsns's field names" tree.json --root "$fx" -J
check_jq "the JSON is valid and its numbers are numbers" \
	'[.. | objects | select(has("ns"))] | length == 21 and
	 all(.[]; (.ns | type) == "number" and (.id | type) == "number")' \
	--root "$fx" -J
check_jq "-J -l is a flat array" \
	'(.namespaces | length == 21) and
	 ([.namespaces[] | select(has("children"))] | length == 0)' \
	--root "$fx" -J -l
check_jq "-J --output-all has every column" \
	'.namespaces[0] | keys == (["command", "detail", "id", "level",
	 "nprocs", "ns", "owner", "parent", "path", "pid", "type", "uid",
	 "user"] | sort)' --root "$fx" -J -l --output-all

echo "# containers"
check "containers are the pid namespaces with processes, named by host" \
	containers.out --root "$fx" containers -o NAME,NS,NPROCS,PIDS,PID,UTS,LEVEL
check "containers -J lists the PIDs as an array" containers.json \
	--root "$fx" containers -J
check_jq "the containers JSON is valid" \
	'.containers | map(.name) == ["web1", "db1"] and
	 .[0].pids == [50000010, 50000011]' --root "$fx" containers -J

echo "# the members file"
# members_of DIR: the members file that namespacefs would give for the tree
# in DIR, made from its procs files (threads are the processes themselves).
members_of() {
	local dir=$1 f type inum pid
	for f in $(find "$dir" -name procs); do
		type=${f#"$dir"/}
		type=${type%%/*}
		inum=$(<"${f%/procs}/inum")
		while read -r pid; do
			echo "$pid $type $inum"
		done <"$f"
	done | awk '
		BEGIN { split("cgroup ipc mnt net pid time user uts", t, " ")
			for (i = 1; i <= 8; i++) col[t[i]] = i }
		{ ns[$1, col[$2]] = $3; pids[$1] = 1 }
		END { for (p in pids) {
			line = p " " p
			for (i = 1; i <= 8; i++)
				line = line " " ((p, i) in ns ? ns[p, i] : 0)
			print line } }' | sort -n
}
mfx=$work/members-fixture
cp -a "$fx" "$mfx"
members_of "$mfx" >"$mfx/members"
for f in $(find "$mfx" -name procs); do
	# Process lists must come from the members file alone.
	echo 99 >"$f"
done
check_tree "process counts come from the members file when there is one" "$mfx"
# A thread of web1's init: a task of the namespaces, not a process.
awk '{ print } $1 == 50000010 { $1 = 50000012; print }' "$mfx/members" |
	sort -n >"$work/members" && cp "$work/members" "$mfx/members"
check_jq "a thread in the members file is not counted as a process" \
	'[.. | objects | select(.ns == 4026532290)][0].nprocs == 2' \
	--root "$mfx" -J
echo "50000001 50000001 1.5 0 0 0 0 0 0 0" >>"$mfx/members"
check_exit "a malformed members file is an error, not a guess" 1 \
	"members:[0-9]+: not a line of the members file" --root "$mfx"

echo "# the namespaces file"
# namespaces_of DIR: the namespaces file that namespacefs would give for
# the tree in DIR, made from its directories, id files and owner links.
namespaces_of() {
	local dir=$1 type d inum parent owner link user_root
	user_root=$(<"$dir/user/inum")
	for type in cgroup ipc mnt net pid time user uts; do
		[ -d "$dir/$type" ] || continue
		find "$dir/$type" -type d | while read -r d; do
			if [ "$d" = "$dir/$type" ]; then
				inum=$(<"$d/inum") parent=0
			else
				inum=${d##*/} parent=0
				if [ "$type" = pid ] || [ "$type" = user ]; then
					parent=${d%/*}
					parent=${parent##*/}
					[ "$parent" = "$type" ] && parent=$(<"$dir/$type/inum")
				fi
			fi
			owner=0
			if [ "$type" != user ] && link=$(readlink "$d/owner"); then
				owner=${link##*/}
				[ "$owner" = user ] && owner=$user_root
			fi
			echo "$type $inum $(<"$d/id") $parent $owner $(stat -c %u "$d/id")"
		done
	done
}
lfx=$work/listed-fixture
cp -a "$fx" "$lfx"
namespaces_of "$lfx" >"$lfx/namespaces"
members_of "$lfx" >"$lfx/members"
for f in $(find "$lfx" -name id); do
	# Ids must come from the namespaces file alone.
	echo 99 >"$f"
done
check_tree "the tree comes from the namespaces file when there is one" "$lfx"
echo "uts 4026532999 500 0 0" >>"$lfx/namespaces"
check_exit "a malformed namespaces file is an error, not a guess" 1 \
	"namespaces:[0-9]+: not a line of the namespaces file" --root "$lfx"

echo "# errors"
mkdir "$work/empty"
check_exit "a directory that is not namespacefs is refused" 1 \
	"is not a namespacefs mount; mount it with: mount -t namespacefs" \
	--root "$work/empty"
if [[ $(stat -f -c %t /sys/fs/namespaces 2>/dev/null) != 4e534653 ]]; then
	check_exit "no namespacefs at the default place is an error" 1 \
		"/sys/fs/namespaces (is not a namespacefs mount|does not exist)"
	check_exit "watch says so too" 1 "/sys/fs/namespaces" watch
else
	skip "no namespacefs at the default place is an error" "it is mounted"
fi
check_exit "an unknown option is a usage error" 2 "Try 'nsfs --help'" \
	--root "$fx" --bogus
check_exit "an unknown column is a usage error" 2 "unknown column: BOGUS" \
	--root "$fx" -o NS,BOGUS
check_exit "an unknown type is a usage error" 2 "unknown namespace type" \
	--root "$fx" -t bogus
check_exit "an unknown command is a usage error" 2 "unknown command: bogus" \
	--root "$fx" bogus
check_exit "--proc and --root together are a usage error" 2 "exclude" \
	--root "$fx" --proc
if "$nsfs" --help | grep -q "^Exit status:" &&
	"$nsfs" --help | grep -q "^ 2  wrong usage"; then
	pass "--help documents the exit status"
else
	fail "--help documents the exit status"
fi

echo "# permissions"
if [[ $(id -u) == 0 ]] && command -v setpriv >/dev/null; then
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$nsfs" --root "$fx" -r -n -o NS,TYPE,DETAIL 2>"$work/stderr")
	rc=$?
	if ((rc == 0)) && grep -qx "4026532301 uts web1" <<<"$out" &&
		grep -qx "nsfs: 30 files could not be read (permission denied); run as root to see everything" \
			"$work/stderr" && (($(wc -l <"$work/stderr") == 1)); then
		pass "unreadable files leave the rest shown and one warning"
	else
		fail "unreadable files leave the rest shown and one warning" \
			"exit $rc; stdout: $out; stderr: $(cat "$work/stderr")"
	fi
else
	skip "unreadable files leave the rest shown and one warning" \
		"needs root and setpriv"
fi

echo "# watch"
wfx=$work/watched
cp -a "$fx" "$wfx"
chmod -R u+w "$wfx"

# start_watch ARGS...: nsfs watch on $wfx, once its watches are in place.
start_watch() {
	: >"$work/watch.out"
	: >"$work/watch.err"
	"$nsfs" watch --root "$wfx" "$@" >"$work/watch.out" 2>"$work/watch.err" &
	watch_pid=$!
	wait_for 10 grep -q "watching" "$work/watch.err"
}
stop_watch() {
	kill "$watch_pid" 2>/dev/null
	wait "$watch_pid" 2>/dev/null
	watch_pid=
}
lines_are() {
	(($(wc -l <"$work/watch.out") >= $1))
}

if start_watch; then
	mkdir "$wfx/pid/4026532290/4026532400"
	mkdir "$wfx/uts/4026532401"
	mkdir -p "$wfx/user/4026532300/4026532402/4026532403"
	wait_for 10 lines_are 4
	rmdir "$wfx/user/4026532300/4026532402/4026532403" \
		"$wfx/user/4026532300/4026532402" "$wfx/uts/4026532401" \
		"$wfx/pid/4026532290/4026532400"
	wait_for 10 lines_are 8
	# A directory removed with what is under it, unseen by the watcher.
	mkdir -p "$wfx/pid/4026532500/4026532501"
	wait_for 10 lines_are 10
	rm -rf "$wfx/pid/4026532500"
	wait_for 10 lines_are 12
	stop_watch
	if [[ $update ]]; then
		cp "$work/watch.out" "$expected/watch.out"
	fi
	if diff -u "$expected/watch.out" "$work/watch.out" >"$work/diff"; then
		pass "watch prints namespaces as they come and go"
	else
		fail "watch prints namespaces as they come and go" \
			"$(cat "$work/diff")"
	fi
else
	fail "watch prints namespaces as they come and go" \
		"it did not start: $(cat "$work/watch.err")"
fi

if start_watch -J -t uts -t pid; then
	mkdir "$wfx/pid/4026532290/4026532410"
	mkdir "$wfx/uts/4026532411"
	mkdir "$wfx/net/4026532412"
	wait_for 10 lines_are 2
	rmdir "$wfx/pid/4026532290/4026532410" "$wfx/uts/4026532411" \
		"$wfx/net/4026532412"
	wait_for 10 lines_are 4
	stop_watch
	if [[ $update ]]; then
		cp "$work/watch.out" "$expected/watch.json"
	fi
	if ! jq -e . "$work/watch.out" >/dev/null; then
		fail "watch -J prints a JSON object a line, for the types asked" \
			"$(cat "$work/watch.out")"
	elif diff -u "$expected/watch.json" "$work/watch.out" >"$work/diff"; then
		pass "watch -J prints a JSON object a line, for the types asked"
	else
		fail "watch -J prints a JSON object a line, for the types asked" \
			"$(cat "$work/diff")"
	fi
else
	fail "watch -J prints a JSON object a line, for the types asked" \
		"it did not start: $(cat "$work/watch.err")"
fi

# More events than the inotify queue holds, while the watcher is stopped.
queue=$(cat /proc/sys/fs/inotify/max_queued_events 2>/dev/null || echo 0)
if ((queue > 0 && queue <= 100000)) && start_watch -t uts; then
	count=$((queue + 100))
	kill -STOP "$watch_pid"
	seq 4100000000 $((4100000000 + count - 1)) |
		(cd "$wfx/uts" && xargs mkdir)
	kill -CONT "$watch_pid"
	added() {
		(($(grep -c "^+ uts 41" "$work/watch.out") >= count))
	}
	removed() {
		(($(grep -c "^- uts 41" "$work/watch.out") >= count))
	}
	if wait_for 60 added; then
		seq 4100000000 $((4100000000 + count - 1)) |
			(cd "$wfx/uts" && xargs rmdir)
		wait_for 60 removed
	fi
	stop_watch
	adds=$(grep "^+ uts 41" "$work/watch.out" | sort -u | wc -l)
	removes=$(grep "^- uts 41" "$work/watch.out" | sort -u | wc -l)
	dups=$(grep "^[-+] " "$work/watch.out" | sort | uniq -d | wc -l)
	if grep -qx "! events were lost; rescanning" "$work/watch.out" &&
		((adds == count && removes == count && dups == 0)); then
		pass "an overflowed queue is reported and rescanned"
	else
		fail "an overflowed queue is reported and rescanned" \
			"$adds added, $removes removed of $count, $dups twice; $(grep -v '^[-+] uts 41' "$work/watch.out")"
	fi
else
	skip "an overflowed queue is reported and rescanned" \
		"max_queued_events is $queue"
fi

echo "# --proc on this machine"
if out=$("$nsfs" --proc 2>"$work/stderr") && [[ $out ]] &&
	grep -q " pid " <<<"$out"; then
	pass "--proc shows this machine's namespaces"
else
	fail "--proc shows this machine's namespaces" \
		"$out $(cat "$work/stderr")"
fi
check_jq "--proc -J is valid JSON with the same fields" \
	'[.. | objects | select(has("ns"))] | length > 0 and
	 all(.[]; (.ns | type) == "number")' --proc -J
for args in "--proc --owner" "--proc -l --output-all" "--proc containers"; do
	# shellcheck disable=SC2086 # split into options
	if "$nsfs" $args >"$work/stdout" 2>"$work/stderr"; then
		pass "nsfs $args runs"
	else
		fail "nsfs $args runs" "$(cat "$work/stderr")"
	fi
done

# Fewer descriptors than namespaces: an error, not a shorter list. The
# hard limit is lowered too, as nsfs raises the soft one to it.
if (ulimit -n 8 && "$nsfs" --proc -l >"$work/stdout" 2>"$work/stderr"); then
	fail "--proc without enough descriptors fails" "exit status 0: $(wc -l <"$work/stdout") lines"
elif grep -q "out of file descriptors" "$work/stderr"; then
	pass "--proc without enough descriptors fails"
else
	fail "--proc without enough descriptors fails" "$(cat "$work/stderr")"
fi

if [[ $(id -u) == 0 ]] && command -v unshare >/dev/null &&
	unshare --uts --pid --fork true 2>/dev/null; then
	# unshare --fork ignores SIGTERM: cleanup kills it, and so the child.
	unshare --uts --pid --fork --kill-child sh -c \
		'hostname nsfs-test-c1 && exec sleep 600' </dev/null >/dev/null 2>&1 &
	bg_pids+=($!)
	disown "$!"
	found_container() {
		"$nsfs" --proc containers -r -n -o NAME,NPROCS 2>/dev/null |
			grep -qx "nsfs-test-c1 1"
	}
	if wait_for 10 found_container; then
		pass "--proc containers finds a new pid namespace by host name"
	else
		fail "--proc containers finds a new pid namespace by host name" \
			"$("$nsfs" --proc containers 2>&1)"
	fi
	touch "$work/held-uts"
	if unshare --uts="$work/held-uts" hostname nsfs-test-held 2>/dev/null; then
		out=$("$nsfs" --proc -t uts -r -n -o NPROCS,PATH,DETAIL 2>&1)
		if grep -qx "0 $work/held-uts nsfs-test-held" <<<"$out"; then
			pass "--proc finds a namespace held only by a bind mount"
		else
			fail "--proc finds a namespace held only by a bind mount" "$out"
		fi
		umount "$work/held-uts"
	else
		skip "--proc finds a namespace held only by a bind mount" \
			"unshare --uts=FILE failed"
	fi
else
	skip "--proc containers finds a new pid namespace by host name" \
		"needs root and unshare"
	skip "--proc finds a namespace held only by a bind mount" \
		"needs root and unshare"
fi

summary
