#!/bin/bash
# run.sh: host-side tests of lsnamespaces. Builds it with tools/build-tools.sh
# and tests build/tools/host/lsnamespaces: on a directory tree that looks
# like namespacefs (make-fixture.sh), comparing what it prints with
# tools/lsnamespaces/tests/expected/; on hostile copies of that tree; on this machine's
# /proc (--proc), where it must agree with lsns; with make install; and
# watch. Prints "N passed, N failed, N skipped" last and exits 1 if any test
# failed. Tests that need root (or a tool this machine lacks) are skipped
# with the reason.
#
#   tools/lsnamespaces/tests/run.sh            run the tests
#   tools/lsnamespaces/tests/run.sh --update   rewrite the expected files from the output
#
# shellcheck disable=SC2317 # functions run by trap, wait_for and hostile
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
expected=$here/expected
update=
[[ ${1-} == --update ]] && update=1

# The expected files are in the C locale (ASCII trees); the tests of UTF-8
# output set LANG themselves.
unset "${!LC_@}"
export LANG=C

is_root=
[[ $(id -u) == 0 ]] && is_root=1

work=$(mktemp -d) || exit 1
watch_pid=
bg_pids=()
mounts=()
old_watches=
veth=
cleanup() {
	local m i
	[[ $old_watches ]] &&
		sysctl -qw fs.inotify.max_user_watches="$old_watches" 2>/dev/null
	[[ $watch_pid ]] && kill "$watch_pid" 2>/dev/null
	for pid in "${bg_pids[@]}"; do
		kill -KILL "$pid" 2>/dev/null
	done
	wait 2>/dev/null
	[[ $veth ]] && ip link del "$veth" 2>/dev/null
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
		m=${mounts[i]}
		if mountpoint -q "$m" 2>/dev/null; then
			umount "$m" 2>/dev/null || umount -l "$m"
		fi
	done
	if grep -qF " $work/" /proc/self/mountinfo; then
		# A directory loop is still mounted: removing would follow it.
		echo "# run.sh: mounts are left under $work; not removed" >&2
		return
	fi
	chmod -R u+w "$work" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
# Others may read the fixture: some tests run as another user.
chmod 0755 "$work"

. "$top/tools/include/tap.sh"

echo "# build"
L=$top/build/tools/host/lsnamespaces
if ! "$top/tools/pipeline/build-tools.sh" >"$work/build.log" 2>&1 || [[ ! -x $L ]]; then
	fail "lsnamespaces builds with -Wall -Wextra -Werror (tools/pipeline/build-tools.sh)" \
		"$(tail -n 30 "$work/build.log")"
	summary
fi
pass "lsnamespaces builds with -Wall -Wextra -Werror (tools/pipeline/build-tools.sh)"

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
if [[ $is_root ]]; then
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

# check NAME FILE ARGS...: lsnamespaces ARGS prints expected/FILE and exits 0
# without a message.
check() {
	local name=$1 file=$2 out rc
	shift 2
	out=$(timeout 20 "$L" "$@" 2>"$work/stderr" | normalize)
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

# check_jq NAME FILTER ARGS...: lsnamespaces ARGS exits 0 and prints JSON
# for which jq's FILTER is true.
check_jq() {
	local name=$1 filter=$2 out
	shift 2
	if ! out=$(timeout 20 "$L" "$@" 2>"$work/stderr"); then
		fail "$name" "$out $(cat "$work/stderr")"
	elif ! jq -e "$filter" <<<"$out" >/dev/null 2>"$work/jq"; then
		fail "$name" "jq -e '$filter' fails: $(cat "$work/jq")
$(head -c 3000 <<<"$out")"
	else
		pass "$name"
	fi
}

# check_tree NAME DIR: lsnamespaces on the copy DIR prints expected/tree.out.
check_tree() {
	local name=$1 dir=$2 out
	out=$(timeout 20 "$L" --root "$dir" \
		-o NS,TYPE,ID,NPROCS,PID,PNS,ONS,LEVEL,DETAIL 2>&1 |
		sed -e "s|$dir|FIXTURE|g")
	if diff -u <(expand "$expected/tree.out") <(cat <<<"$out") >"$work/diff"; then
		pass "$name"
	else
		fail "$name" "$(cat "$work/diff")"
	fi
}

# check_exit NAME STATUS PATTERN ARGS...: lsnamespaces ARGS exits with STATUS
# within 10 seconds, and its standard error, where $work is written WORK,
# matches PATTERN (grep -E).
check_exit() {
	local name=$1 want=$2 pattern=$3 rc
	shift 3
	timeout 10 "$L" "$@" >"$work/stdout" 2>"$work/stderr"
	rc=$?
	sed -i "s|$work|WORK|g" "$work/stderr"
	if ((rc == 124)); then
		fail "$name" "still running after 10 s: $(cat "$work/stderr")"
	elif ((rc != want)); then
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

# copy_of DIR [SOURCE]: DIR becomes a writable copy of SOURCE (the fixture).
copy_of() {
	rm -rf "$1"
	cp -a "${2-$fx}" "$1" && chmod -R u+w "$1"
}

# in_pty COLUMNS COMMAND...: COMMAND on a terminal COLUMNS wide (as
# libsmartcols sizes tables only there), its output without carriage returns.
in_pty() {
	local cols=$1
	shift
	COLUMNS=$cols script -qec "stty cols $cols; $(printf '%q ' "$@")" \
		/dev/null </dev/null | tr -d '\r'
}

# start_watch ARGS...: lsnamespaces watch on $wfx, once its watches are in
# place.
start_watch() {
	: >"$work/watch.out"
	: >"$work/watch.err"
	"$L" watch --root "$wfx" "$@" >"$work/watch.out" 2>"$work/watch.err" &
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

echo "# the tree, the list and JSON"
check "the tree nests pid and user namespaces by parent; PNS and ONS are 0 where there is none" \
	tree.out --root "$fx" -o NS,TYPE,ID,NPROCS,PID,PNS,ONS,LEVEL,DETAIL
check "the default columns are lsns's, raw" tree-raw.out --root "$fx" -r
check "a list without headings shows directories, paths, parents and owners" \
	list.out --root "$fx" -l -n \
	-o NS,TYPE,ID,DIR,PATH,NPROCS,PID,PNS,ONS,LEVEL,DETAIL
check "-T puts namespaces under their owning user namespace" owner.out \
	--root "$fx" -T -o NS,TYPE,NPROCS,ONS,DETAIL
check "--tree=owner with -t keeps the user namespaces above what it shows" \
	owner-uts.out --root "$fx" --tree=owner -t uts -o NS,TYPE,DETAIL
check "--tree=parent nests as lsns: under the parent, else the owner" \
	tree-parent.out --root "$fx" --tree=parent -o NS,TYPE,PNS,ONS
check "-t pid restricts to pid namespaces, with lsns's PNS and ONS" pid.out \
	--root "$fx" -t pid -o NS,PNS,ONS,LEVEL,DETAIL
check "-J prints JSON with lsns's field names" tree.json \
	--root "$fx" -J -o NS,TYPE,ID,NPROCS,PID,USER,DETAIL,COMMAND
check_jq "the JSON is valid and its numbers are numbers" \
	'[.. | objects | select(has("ns"))] | length == 21 and
	 all(.[]; (.ns | type) == "number" and (.id | type) == "number" and
	 (.pns | type) == "number" and (.ons | type) == "number")' \
	--root "$fx" -J -o NS,ID,PNS,ONS
check_jq "-J -l is a flat array" \
	'(.namespaces | length == 21) and
	 ([.namespaces[] | select(has("children"))] | length == 0)' \
	--root "$fx" -J -l
check_jq "-J --output-all has every column" \
	'.namespaces[0] | keys == (["command", "creator", "creatoruid",
	 "detail", "dir", "hostname", "id", "level", "netnsid", "nprocs",
	 "ns", "nsfs", "ons", "path", "pid", "pids", "pns", "ppid", "type",
	 "uid", "user", "uts", "unit", "engine", "container", "holders"] | sort)' \
	--root "$fx" -J -l --output-all
check_jq "-o +LIST adds to lsns's default columns" \
	'.namespaces[0] | keys_unsorted == ["ns", "type", "nprocs", "pid",
	 "user", "command", "detail"]' --root "$fx" -J -l -o +DETAIL
check_jq "-t net adds NETNSID and NSFS to the default columns, as lsns" \
	'.namespaces[0] | keys_unsorted == ["ns", "type", "nprocs", "pid",
	 "user", "netnsid", "nsfs", "command"]' --root "$fx" -J -l -t net

echo "# containers"
check "containers are the pid namespaces with processes, with their host names" \
	containers.out --root "$fx" containers \
	-o HOSTNAME,NS,NPROCS,PIDS,PID,UTS,LEVEL,USER,CREATOR
check "containers -J lists the PIDs as an array" containers.json \
	--root "$fx" containers -J
check_jq "the containers JSON is valid" \
	".containers | map(.hostname) == [\"web1\", \"db1\"] and
	 .[0].pids == [50000010, 50000011] and .[0].creator == \"$u65534\"" \
	--root "$fx" containers -J -o +CREATOR

echo "# metrics"
check "metrics counts the fixture's namespaces in Prometheus's text format" \
	metrics.out --root "$fx" metrics
check_exit "metrics takes no output options" 1 "metrics takes no output options" \
	--root "$fx" metrics -J
if command -v promtool >/dev/null; then
	for args in "--root $fx" "--proc"; do
		# shellcheck disable=SC2086 # two words
		if ! timeout 20 "$L" metrics $args 2>"$work/stderr" >"$work/metrics" ||
			! promtool check metrics <"$work/metrics" >"$work/promtool" 2>&1; then
			fail "promtool check metrics accepts metrics ${args%% *}" \
				"$(cat "$work/stderr" "$work/promtool")"
		elif ! grep -q '^lsnamespaces_namespaces{type="uts"} [1-9]' "$work/metrics"; then
			fail "promtool check metrics accepts metrics ${args%% *}" "no uts count: $(head -c 2000 "$work/metrics")"
		else
			pass "promtool check metrics accepts metrics ${args%% *}"
		fi
	done
	if timeout 20 "$L" metrics --proc 2>/dev/null | grep -q '^lsnamespaces_user_namespaces_limit{type="user"} [0-9]'; then
		pass "metrics --proc gives this machine's max_user_namespaces"
	else
		fail "metrics --proc gives this machine's max_user_namespaces"
	fi
else
	skip "promtool check metrics accepts metrics" "no promtool (Debian: prometheus)"
fi

# A stats file with the machine's totals (a mount in the initial user
# namespace) gives two counters per type; a container's (two fields) none.
sfx=$work/stats
copy_of "$sfx"
printf '%s\n' "cgroup 1 1 0" "ipc 2 9 7" "mnt 2 30 28" "net 3 5 2" "pid 4 40 36" \
	"time 1 1 0" "user 3 6 3" "uts 4 12 8" >"$sfx/stats"
out=$(timeout 10 "$L" --root "$sfx" metrics 2>&1)
if grep -qx 'lsnamespaces_namespaces_created_total{type="pid"} 40' <<<"$out" &&
	grep -qx 'lsnamespaces_namespaces_destroyed_total{type="uts"} 8' <<<"$out" &&
	grep -qx '# TYPE lsnamespaces_namespaces_created_total counter' <<<"$out" &&
	{ ! command -v promtool >/dev/null || promtool check metrics <<<"$out" >/dev/null 2>&1; }; then
	pass "metrics gives created and destroyed totals from the stats file"
else
	fail "metrics gives created and destroyed totals from the stats file" "$out"
fi
printf '%s\n' "cgroup 1" "uts 4" >"$sfx/stats"
if ! timeout 10 "$L" --root "$sfx" metrics 2>&1 | grep -q created_total; then
	pass "a container's stats file (no totals) gives no totals"
else
	fail "a container's stats file (no totals) gives no totals"
fi
printf '%s\n' "uts 4 x 8" >"$sfx/stats"
check_exit "a malformed stats file is an error, not a guess" 1 "stats:1: invalid line" \
	--root "$sfx" metrics

echo "# holders"
# The holders of a namespace are those of the running machine: a copy of a
# tree (--root) or /proc alone cannot tell them. The guest tests the rest.
check_exit "holders refuses --root" 1 "no --proc or --root" --root "$fx" holders 4026531840
check_exit "holders refuses --proc" 1 "no --proc or --root" --proc holders 4026531840
check_exit "holders needs a namespace" 1 "needs a namespace" --root "$fx" holders
check_exit "holders takes no column options" 1 "no column, tree, filter or task options" \
	--root "$fx" holders -o NS 4026531840
check_exit "a namespace argument goes with holders, not metrics" 1 \
	"unexpected argument: 4026531840" --root "$fx" metrics 4026531840

echo "# the members file"
# members_of DIR: the members file that namespacefs would give for the tree
# in DIR, made from its procs files (threads are the processes themselves).
members_of() {
	local dir=$1 f type inum pid
	find "$dir" -name procs | while read -r f; do
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
# lsnamespaces reads the members file along with the namespaces file (both
# are in namespacefs since the series' patch 24).
mfx=$work/members-fixture
copy_of "$mfx"
namespaces_of "$mfx" >"$mfx/namespaces"
members_of "$mfx" >"$mfx/members"
# Process lists must come from the members file alone.
find "$mfx" -name procs -exec sh -c 'for f; do echo 99 >"$f"; done' sh {} +
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
# listed_copy DIR: a copy of the fixture with the root files namespaces and
# members, as namespacefs has them.
listed_copy() {
	copy_of "$1" && namespaces_of "$1" >"$1/namespaces" &&
		members_of "$1" >"$1/members"
}
lfx=$work/listed-fixture
listed_copy "$lfx"
# Ids must come from the namespaces file alone.
find "$lfx" -name id -exec sh -c 'for f; do echo 99 >"$f"; done' sh {} +
check_tree "the tree comes from the namespaces file when there is one" "$lfx"
echo "uts 4026532999 500 0 0" >>"$lfx/namespaces"
check_exit "a malformed namespaces file is an error, not a guess" 1 \
	"namespaces:[0-9]+: not a line of the namespaces file" --root "$lfx"

echo "# errors and options as lsns has them"
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
	skip "watch says so too" "namespacefs is mounted"
fi
check_exit "an unknown option is a usage error (exit 1)" 1 \
	"^Try 'lsnamespaces --help' for more information" --root "$fx" --bogus
check_exit "an unknown column is a usage error" 1 "unknown column: BOGUS" \
	--root "$fx" -o NS,BOGUS
check_exit "an unknown type is a usage error" 1 \
	"unknown namespace type: bogus" --root "$fx" -t bogus
check_exit "an unknown tree type (-Tbogus) is a usage error" 1 \
	"unknown tree type: bogus" --root "$fx" -Tbogus
check_exit "an unknown tree type (--tree=bogus) is a usage error" 1 \
	"unknown tree type: bogus" --root "$fx" --tree=bogus
check_exit "an unknown command is a usage error" 1 "unknown command: bogus" \
	--root "$fx" bogus
check_exit "--proc and --root together are a usage error" 1 \
	"mutually exclusive" --root "$fx" --proc
check_exit "-J and -r together are a usage error" 1 "mutually exclusive" \
	--root "$fx" -J -r
check_exit "-l and -T together are a usage error" 1 "mutually exclusive" \
	--root "$fx" -l -T
check_exit "watch with --proc is an error" 1 "watch needs namespacefs" \
	watch --proc
check_exit "a namespace that is not there is an error" 1 \
	"not found namespace: 12345" --root "$fx" 12345
man8=$top/tools/lsnamespaces/lsnamespaces.8
if grep -q '^\.SH EXIT STATUS' "$man8" &&
	grep -A8 '^\.SH EXIT STATUS' "$man8" | grep -q 'wrong usage' &&
	"$L" --help | grep -q 'lsnamespaces(8)'; then
	pass "the man page documents the exit status, and --help points to it"
else
	fail "the man page documents the exit status, and --help points to it"
fi

# -H: the columns of --help, as a table and as JSON.
help_cols=$("$L" --help | awk '/^Available output columns/ { f = 1; next }
	f && !NF { exit } f { print $1 }')
if "$L" -H -J >"$work/cols.json" 2>"$work/stderr" &&
	jq -r '.["lsnamespaces-columns"][].name' "$work/cols.json" \
		>"$work/cols" 2>>"$work/stderr" &&
	[[ $(cat "$work/cols") == "$help_cols" ]] && (($(wc -l <"$work/cols") == 26)) &&
	"$L" -H -n | awk '{ print $1 }' | diff -q - "$work/cols" >/dev/null; then
	pass "-H lists every column of --help, -H -J as valid JSON"
else
	fail "-H lists every column of --help, -H -J as valid JSON" \
		"--help: $help_cols
-H -J: $(cat "$work/cols" "$work/stderr")"
fi

if pkg-config --atleast-version=2.40 smartcols; then
	out=$(timeout 10 "$L" --root "$fx" -Q 'TYPE == "uts"' -r -n -o NS,TYPE 2>&1)
	if [[ $(awk '$2 == "uts"' <<<"$out" | wc -l) == 3 &&
		$(wc -l <<<"$out") == 3 ]]; then
		pass "-Q keeps only the lines that match"
	else
		fail "-Q keeps only the lines that match" "$out"
	fi
else
	check_exit "-Q needs libsmartcols 2.40, and says so" 1 \
		"--filter needs libsmartcols 2.40" --root "$fx" -Q 'TYPE == "uts"'
fi

echo "# output"
ufx=$work/utf8
copy_of "$ufx"
echo "büro" >"$ufx/uts/4026532301/hostname"
if locale -a 2>/dev/null | grep -qix 'c\.utf-\?8'; then
	out=$(LANG=C.UTF-8 timeout 10 "$L" --root "$ufx" -o NS,TYPE,DETAIL 2>&1)
	if grep -q "^4026532301 *uts *büro$" <<<"$out" &&
		grep -q "^└─4026532299 " <<<"$out"; then
		pass "under LANG=C.UTF-8 a UTF-8 host name and the tree are UTF-8"
	else
		fail "under LANG=C.UTF-8 a UTF-8 host name and the tree are UTF-8" "$out"
	fi
else
	skip "under LANG=C.UTF-8 a UTF-8 host name and the tree are UTF-8" \
		"no C.UTF-8 locale"
fi
out=$(LANG=C timeout 10 "$L" --root "$ufx" -o NS,TYPE,DETAIL 2>&1)
if grep -q '^`-4026532299 ' <<<"$out" && ! grep -q '└' <<<"$out"; then
	pass "under LANG=C the tree is ASCII"
else
	fail "under LANG=C the tree is ASCII" "$out"
fi

for args in "" "-J" "containers" "-H"; do
	# shellcheck disable=SC2086 # split into options
	timeout 10 "$L" --root "$fx" $args >/dev/full 2>"$work/stderr"
	rc=$?
	if ((rc == 1)) && grep -q "write error" "$work/stderr"; then
		pass "a full disk is a write error (lsnamespaces $args > /dev/full)"
	else
		fail "a full disk is a write error (lsnamespaces $args > /dev/full)" \
			"exit status $rc: $(cat "$work/stderr")"
	fi
done

# A cut cell would look like a shorter real value: DETAIL is never cut.
long='4294967290->4294967290+5,...'
copy_of "$work/long"
printf '%s\n' "4294967290 4294967290 5" "0 1 2" \
	>"$work/long/user/4026532300/4026532310/uid_map"
if command -v script >/dev/null; then
	out=$(in_pty 40 "$L" --root "$work/long" -t user \
		-o NS,TYPE,NPROCS,PID,USER,DETAIL,COMMAND)
	if grep -qF -- " $long" <<<"$out"; then
		pass "DETAIL is shown whole on a terminal 40 columns wide"
	else
		fail "DETAIL is shown whole on a terminal 40 columns wide" "$out"
	fi
else
	skip "DETAIL is shown whole on a terminal 40 columns wide" "no script(1)"
fi

echo "# hostile copies"
hx=$work/hostile
# hostile NAME PATTERN SETUP ARGS...: on a fresh copy $hx of the fixture
# changed by the function SETUP, lsnamespaces --root $hx ARGS exits 1 within
# 10 s with a message that matches PATTERN, where the copy is COPY.
hostile() {
	local name=$1 pattern=$2 setup=$3
	shift 3
	copy_of "$hx" && "$setup"
	check_exit "$name" 1 "${pattern//COPY/WORK/hostile}" --root "$hx" "$@"
}
fifo_procs() {
	rm "$hx/pid/4026532290/procs" && mkfifo "$hx/pid/4026532290/procs"
}
hostile "a FIFO in place of a procs file is an error" \
	"COPY/pid/4026532290/procs: not a regular file" fifo_procs
fifo_namespaces() {
	listed_copy "$hx" && rm "$hx/namespaces" && mkfifo "$hx/namespaces"
}
hostile "a FIFO in place of the namespaces file is an error" \
	"COPY/namespaces: not a regular file" fifo_namespaces
fifo_members() {
	listed_copy "$hx" && rm "$hx/members" && mkfifo "$hx/members"
}
hostile "a FIFO in place of the members file is an error" \
	"COPY/members: not a regular file" fifo_members
zero_hostname() {
	ln -sf /dev/zero "$hx/uts/4026532301/hostname"
}
hostile "a link to /dev/zero in place of hostname is an error" \
	"COPY/uts/4026532301/hostname: not a regular file" zero_hostname \
	-o NS,TYPE,DETAIL
zero_id() {
	ln -sf /dev/zero "$hx/uts/4026532301/id"
}
hostile "a link to /dev/zero in place of id is an error" \
	"COPY/uts/4026532301/id: not a regular file" zero_id -o NS,TYPE,ID
for bad in 1.5 -3 4294967297 12abc ""; do
	bad_pid() {
		printf '50000010\n%s\n50000011\n' "$bad" >"$hx/pid/4026532290/procs"
	}
	hostile "a procs line '$bad' is an error that names the file and line" \
		"COPY/pid/4026532290/procs:2: invalid PID: '$bad'" bad_pid
done
empty_line_offsets() {
	printf '%s\n' "monotonic 0 0" "" "boottime 0 0" \
		>"$hx/time/4026532308/offsets"
}
hostile "an empty line in offsets is an error at its line" \
	"COPY/time/4026532308/offsets:2: invalid clock offset" \
	empty_line_offsets -o NS,DETAIL
short_map() {
	printf '%s\n' "0 65534" "1 100000 65536" \
		>"$hx/user/4026532300/uid_map"
}
hostile "a uid_map line of two numbers is an error, not joined to the next" \
	"COPY/user/4026532300/uid_map:1: invalid id map: '0 65534'" short_map \
	-o NS,DETAIL
nul_hostname() {
	printf 'web\0x\n' >"$hx/uts/4026532301/hostname"
}
hostile "a NUL byte in hostname is an error that says so" \
	"COPY/uts/4026532301/hostname: holds a NUL byte" nul_hostname \
	-o NS,DETAIL
huge_id() {
	head -c 10000000 /dev/zero | tr '\0' 1 >"$hx/uts/4026532301/id"
}
hostile "a 10 MB id file is an error" \
	"COPY/uts/4026532301/id: larger than" huge_id -o NS,ID
huge_procs() {
	head -c 10000000 /dev/zero | tr '\0' 1 >"$hx/pid/4026532290/procs"
}
hostile "a 10 MB line in procs is an error" \
	"COPY/pid/4026532290/procs:1: not a line of text" huge_procs

# The procs file of a busy namespace is larger than the bound of a small
# file: it is read by lines.
copy_of "$hx"
seq 100000 110999 >"$hx/pid/procs"
check_jq "a procs file of 11,000 PIDs (over 64 KiB) is read whole" \
	'.namespaces[0].nprocs == 11000' --root "$hx" -J -l -t pid -o NS,NPROCS

# A numbered symbolic link to its parent is not a namespace: not followed.
copy_of "$hx"
ln -s .. "$hx/pid/4026532290/4026532401"
ln -s . "$hx/pid/4026532290/4026532402"
out=$(timeout 10 "$L" --root "$hx" -o NS,TYPE,PNS 2>&1)
rc=$?
if ((rc == 0)) && diff -u <(timeout 10 "$L" --root "$fx" -o NS,TYPE,PNS) \
	<(cat <<<"$out") >"$work/diff"; then
	pass "a symbolic link loop is ignored"
else
	fail "a symbolic link loop is ignored" "exit status $rc: $(cat "$work/diff")"
fi

if [[ $is_root ]]; then
	copy_of "$hx"
	loop=$hx/pid/4026532290/4026532400
	mkdir "$loop"
	mounts+=("$loop")
	if mount --bind "$hx/pid/4026532290" "$loop"; then
		check_exit "a directory loop (a bind mount) is an error" 1 \
			"WORK/hostile/pid/4026532290/4026532400(/4026532400)?: a directory loop" \
			--root "$hx" -o NS,TYPE
		# watch walks each directory once: it starts, and ends when told.
		: >"$work/loop.err"
		"$L" watch --root "$hx" >"$work/loop.out" 2>"$work/loop.err" &
		watch_pid=$!
		if wait_for 10 grep -q "watching" "$work/loop.err"; then
			pass "watch on a copy with a directory loop starts"
		else
			fail "watch on a copy with a directory loop starts" \
				"$(cat "$work/loop.err")"
		fi
		stop_watch
		umount "$loop"
	else
		skip "a directory loop (a bind mount) is an error" \
			"mount --bind is not allowed here"
		skip "watch on a copy with a directory loop starts" \
			"mount --bind is not allowed here"
	fi
else
	skip "a directory loop (a bind mount) is an error" "needs root"
	skip "watch on a copy with a directory loop starts" "needs root"
fi

echo "# permissions"
if [[ $is_root ]] && command -v setpriv >/dev/null; then
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$L" --root "$fx" -r -n -o NS,TYPE,DETAIL 2>"$work/stderr")
	rc=$?
	if ((rc == 0)) && grep -qx "4026532301 uts web1" <<<"$out" &&
		! grep -q '^0 ' <<<"$out" && grep -qx " uts " <<<"$out" &&
		grep -qx "lsnamespaces: 20 files could not be read (permission denied); run as root to see everything" \
			"$work/stderr" && (($(wc -l <"$work/stderr") == 1)); then
		pass "unreadable files leave the rest shown, empty (not 0), and one warning"
	else
		fail "unreadable files leave the rest shown, empty (not 0), and one warning" \
			"exit $rc; stdout: $out; stderr: $(cat "$work/stderr")"
	fi
else
	skip "unreadable files leave the rest shown, empty (not 0), and one warning" \
		"needs root and setpriv"
fi

echo "# make install"
stage=$work/stage
if env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C "$top" install \
	DESTDIR="$stage" PREFIX=/usr >"$work/install.log" 2>&1 &&
	[[ $(stat -c %a "$stage/usr/bin/lsnamespaces" 2>/dev/null) == 755 ]] &&
	[[ $("$stage/usr/bin/lsnamespaces" --version) == "lsnamespaces "* ]] &&
	cmp -s "$stage/usr/share/man/man8/lsnamespaces.8" "$man8"; then
	pass "make install DESTDIR PREFIX=/usr installs the program and its man page"
else
	fail "make install DESTDIR PREFIX=/usr installs the program and its man page" \
		"$(cat "$work/install.log"; find "$stage" 2>&1)"
fi

echo "# watch"
wfx=$work/watched
copy_of "$wfx"

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

# 20,000 nested namespaces go at once: each removal costs O(1).
many=20000
max_watches=$(cat /proc/sys/fs/inotify/max_user_watches 2>/dev/null || echo 0)
if ((max_watches < many + 1000)); then
	skip "20,000 pid namespaces removed at once are all reported, in under 2 s of CPU" \
		"fs.inotify.max_user_watches is $max_watches"
elif start_watch -t pid; then
	first=4200000000
	seq "$first" $((first + many - 1)) |
		(cd "$wfx/pid/4026532290" && xargs mkdir)
	count_is() {
		(($(grep -c "^$1 pid 42" "$work/watch.out") >= many))
	}
	wait_for 60 count_is +
	find "$wfx/pid/4026532290" -mindepth 1 -maxdepth 1 -name '42*' \
		-exec rmdir {} +
	wait_for 60 count_is -
	# utime and stime, fields 14 and 15 of /proc/PID/stat, in ticks.
	ticks=$(awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$watch_pid/stat")
	hz=$(getconf CLK_TCK)
	stop_watch
	removes=$(grep "^- pid 42" "$work/watch.out" | sort -u | wc -l)
	if ((removes == many && ticks < 2 * hz)); then
		pass "20,000 pid namespaces removed at once are all reported, in under 2 s of CPU"
	else
		fail "20,000 pid namespaces removed at once are all reported, in under 2 s of CPU" \
			"$removes of $many reported; CPU time $ticks ticks at $hz a second"
	fi
else
	fail "20,000 pid namespaces removed at once are all reported, in under 2 s of CPU" \
		"it did not start: $(cat "$work/watch.err")"
fi

# A watch that cannot be added: the watcher must stop with an error rather
# than miss namespaces. It runs as uid 65534, whose watches the limit
# counts, and the limit is low only while the directories are made.
if [[ $is_root ]] && command -v setpriv >/dev/null &&
	saved_watches=$(sysctl -n fs.inotify.max_user_watches 2>/dev/null); then
	copy_of "$wfx"
	: >"$work/watch.err"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$L" watch --root "$wfx" -t pid >"$work/watch.out" 2>"$work/watch.err" &
	watch_pid=$!
	gone() {
		! kill -0 "$watch_pid" 2>/dev/null
	}
	if wait_for 10 grep -q "watching" "$work/watch.err"; then
		old_watches=$saved_watches
		sysctl -qw fs.inotify.max_user_watches=64
		seq 4250000000 4250000199 | (cd "$wfx/pid/4026532290" && xargs mkdir)
		wait_for 10 gone
		sysctl -qw fs.inotify.max_user_watches="$saved_watches"
		old_watches=
		rc="still running"
		if gone; then
			wait "$watch_pid"
			rc=$?
			watch_pid=
		fi
		if [[ $rc == 1 ]] &&
			grep -q "max_user_watches" "$work/watch.err"; then
			pass "a watch that cannot be added (max_user_watches) ends watch with status 1"
		else
			fail "a watch that cannot be added (max_user_watches) ends watch with status 1" \
				"exit status $rc: $(cat "$work/watch.err")"
		fi
	else
		fail "a watch that cannot be added (max_user_watches) ends watch with status 1" \
			"it did not start: $(cat "$work/watch.err")"
	fi
	stop_watch
else
	skip "a watch that cannot be added (max_user_watches) ends watch with status 1" \
		"needs root, setpriv and sysctl"
fi

echo "# --proc on this machine"
if out=$(timeout 20 "$L" --proc 2>"$work/stderr") && [[ $out ]] &&
	grep -q " pid " <<<"$out"; then
	pass "--proc shows this machine's namespaces"
else
	fail "--proc shows this machine's namespaces" \
		"$out $(cat "$work/stderr")"
fi
check_jq "--proc -J is valid JSON with the same fields" \
	'[.. | objects | select(has("ns"))] | length > 0 and
	 all(.[]; (.ns | type) == "number")' --proc -J
for args in "--proc -T" "--proc -l --output-all" "--proc containers"; do
	# shellcheck disable=SC2086 # split into options
	if timeout 20 "$L" $args >"$work/stdout" 2>"$work/stderr"; then
		pass "lsnamespaces $args runs"
	else
		fail "lsnamespaces $args runs" "$(cat "$work/stderr")"
	fi
done

# Fewer descriptors than namespaces: an error, not a shorter list. The
# hard limit is lowered too, as lsnamespaces raises the soft one to it.
if (ulimit -n 8 && "$L" --proc -l >"$work/stdout" 2>"$work/stderr"); then
	fail "--proc without enough descriptors fails" "exit status 0: $(wc -l <"$work/stdout") lines"
elif grep -q "out of file descriptors" "$work/stderr"; then
	pass "--proc without enough descriptors fails"
else
	fail "--proc without enough descriptors fails" "$(cat "$work/stderr")"
fi

if [[ $is_root ]] && command -v unshare >/dev/null &&
	unshare --uts --pid --fork true 2>/dev/null; then
	# unshare --fork ignores SIGTERM: cleanup kills it, and so the child.
	unshare --uts --pid --fork --kill-child sh -c \
		'hostname lsns-test-c1 && exec sleep 600' </dev/null >/dev/null 2>&1 &
	bg_pids+=("$!")
	found_container() {
		"$L" --proc containers -r -n -o HOSTNAME,NPROCS 2>/dev/null |
			grep -qx "lsns-test-c1 1"
	}
	if wait_for 10 found_container; then
		pass "--proc containers finds a new pid namespace by host name"
	else
		fail "--proc containers finds a new pid namespace by host name" \
			"$("$L" --proc containers 2>&1)"
	fi
	touch "$work/held-uts"
	mounts+=("$work/held-uts")
	if unshare --uts="$work/held-uts" hostname lsns-test-held 2>/dev/null; then
		out=$("$L" --proc -t uts -r -n -o NPROCS,PATH,DETAIL 2>&1)
		if grep -qx "0 $work/held-uts lsns-test-held" <<<"$out"; then
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

echo "# --proc and lsns"
# The test's own process S: alone in new pid, uts, ipc, net (and time)
# namespaces, under its parent U, the outer unshare, in a new mount
# namespace that has the two of them. Its command line is long.
sleeper=lsnamespaces-test-sleeper-with-a-long-command-line
sleeper_host=lsns-test-s1
# child_of PID: the first process whose parent is PID.
child_of() {
	local f line rest
	for f in /proc/[0-9]*/stat; do
		read -r line 2>/dev/null <"$f" || continue
		rest=${line##*) }
		read -r _ rest _ <<<"$rest"
		if [[ $rest == "$1" ]]; then
			f=${f#/proc/}
			echo "${f%/stat}"
			return 0
		fi
	done
	return 1
}
sleeper_ready() {
	local argv0
	spid=$(child_of "$upid") || return 1
	read -r -d '' argv0 2>/dev/null <"/proc/$spid/cmdline"
	[[ $argv0 == "$sleeper" ]]
}
ns_of() {
	stat -L -c %i "/proc/$1/ns/$2"
}
spid=
if [[ $is_root ]] && command -v lsns >/dev/null &&
	unshare --mount --pid --fork --uts --ipc --net true 2>/dev/null; then
	time_opts=()
	if unshare --time true 2>/dev/null; then
		time_opts=(--time --monotonic 86400 --boottime -5)
	fi
	unshare --mount --pid --fork --kill-child \
		unshare --uts --ipc --net "${time_opts[@]}" \
		bash -c "hostname $sleeper_host && exec -a $sleeper sleep 1000" \
		</dev/null >"$work/sleeper.err" 2>&1 &
	upid=$!
	bg_pids+=("$upid")
	if ! wait_for 10 sleeper_ready; then
		spid=
		why="the test process did not start: $(cat "$work/sleeper.err")"
	fi
else
	why="needs root, lsns and unshare"
fi

if [[ $spid ]]; then
	host_pid=$(ns_of self pid)
	root_user=$(ns_of self user)
	s_types=(pid uts ipc net)
	((${#time_opts[@]})) && s_types+=(time)
	exact=()
	for t in "${s_types[@]}"; do
		exact+=("$(ns_of "$spid" "$t")")
	done
	u_mnt=$(ns_of "$upid" mnt)
	exact+=("$u_mnt")
	exact_json=$(printf '%s\n' "${exact[@]}" | jq -sc .)
	# NSFS: its network namespace bind-mounted twice; NETNSID: a veth pair
	# to it gives it an id here (both go with the namespace).
	nsfs='"'"$work/nsfs1\\n$work/nsfs2"'"'
	for m in "$work/nsfs1" "$work/nsfs2"; do
		touch "$m"
		mounts+=("$m")
		mount --bind "/proc/$spid/ns/net" "$m" 2>/dev/null || nsfs=null
	done
	netnsid='^unassigned$'
	net_detail='1 device'
	if ip link add "lsnst$$" type veth peer name "lsnsp$$" netns "$spid" \
		2>/dev/null; then
		veth=lsnst$$
		netnsid='^[0-9]+$'
		net_detail='2 devices'
	fi

	# lsns_diff ARGS...: how lsns -J ARGS and lsnamespaces --proc -J ARGS
	# differ for the namespaces lsns lists (nothing if they agree). NPROCS
	# of namespaces other than the test's may change between the two runs.
	# shellcheck disable=SC2016 # jq's variables
	compare='def flat: [.namespaces[] | recurse(.children[]?) | del(.children)];
		($m[0] | flat | map({key: (.ns | tostring), value: .}) |
		 from_entries) as $mine
		| $l[0] | flat | .[] | . as $x | $mine[.ns | tostring] as $y
		| if $y == null then "only lsns lists \(.ns): \(tojson)"
		  elif keys_unsorted != ($y | keys_unsorted) then
			"\(.ns): keys \(keys_unsorted) and \($y | keys_unsorted)"
		  elif (if (.ns | IN($exact[])) then $x != $y
			else del(.nprocs) != ($y | del(.nprocs)) end) then
			"\(.ns) differs:\n  lsns:         \(tojson)\n  lsnamespaces: \($y | tojson)"
		  else empty end'
	lsns_diff() {
		lsns -J "$@" >"$work/lsns.json" 2>"$work/lsns.err" ||
			{ echo "lsns -J $*: $(cat "$work/lsns.err")"; return; }
		timeout 20 "$L" --proc -J "$@" >"$work/mine.json" 2>"$work/mine.err" ||
			{ echo "lsnamespaces --proc -J $*: $(cat "$work/mine.err")"; return; }
		jq -rn --slurpfile l "$work/lsns.json" --slurpfile m "$work/mine.json" \
			--argjson exact "$exact_json" "$compare" 2>&1
	}
	# check_lsns NAME ARGS...: lsns_diff ARGS is empty; tried three times,
	# as processes come and go on a busy machine.
	check_lsns() {
		local name=$1 diffs
		shift
		for _ in 1 2 3; do
			diffs=$(lsns_diff "$@")
			[[ $diffs ]] || break
		done
		if [[ $diffs ]]; then
			fail "$name" "$diffs"
		else
			pass "$name"
		fi
	}
	all_cols=NS,TYPE,PATH,NPROCS,PID,PPID,COMMAND,UID,USER,NETNSID,NSFS,PNS,ONS
	check_lsns "lsns's columns (-o $all_cols) have lsns's keys and values" \
		-o "$all_cols"
	check_lsns "-W joins NSFS mount points with commas, as lsns" \
		-W -o "$all_cols"
	check_jq "the test's namespaces have their exact NPROCS, NSFS and NETNSID" \
		"[.namespaces[] | recurse(.children[]?)] as \$v |
		 all(${exact_json}[] as \$n | \$v[] | select(.ns == \$n);
		     .nprocs == (if .ns == $u_mnt then 2 else 1 end)) and
		 ([\$v[] | select(.ns | IN(${exact_json}[]))] | length ==
		  ($exact_json | length)) and
		 (\$v[] | select(.ns == $(ns_of "$spid" net)) |
		  .nsfs == $nsfs and
		  (.netnsid | test(\"$netnsid\")))" \
		--proc -J -o "$all_cols"
	if jq -e --argjson exact "$exact_json" \
		'[.namespaces[] | recurse(.children[]?) | select(.ns | IN($exact[]))] |
		 length == ($exact | length)' "$work/lsns.json" >/dev/null; then
		pass "lsns lists the test's namespaces too"
	else
		fail "lsns lists the test's namespaces too" "$(cat "$work/lsns.json")"
	fi
	keys_of() {
		jq -c '[.namespaces[] | recurse(.children[]?) | del(.children) |
			keys_unsorted] | unique' "$1"
	}
	for args in "" "-t net"; do
		# shellcheck disable=SC2086 # split into options
		lsns -J $args >"$work/lsns.json" 2>&1
		# shellcheck disable=SC2086
		timeout 20 "$L" --proc -J $args >"$work/mine.json" 2>/dev/null
		if [[ $(keys_of "$work/lsns.json") == "$(keys_of "$work/mine.json")" ]]; then
			pass "the default columns${args:+ of $args} have lsns's keys"
		else
			fail "the default columns${args:+ of $args} have lsns's keys" \
				"lsns $(keys_of "$work/lsns.json"); lsnamespaces $(keys_of "$work/mine.json")"
		fi
	done

	# -J is written without libsmartcols: its escapes must be byte for
	# byte lsns's. A process alone in a uts namespace, whose command has a
	# quote, backslashes, a tab, a newline, a control character and UTF-8.
	odd=$'q"b\\\\t\tn\nc\x01u\xc3\xbc'
	unshare --uts bash -c 'exec -a "$0" sleep 1000' "$odd" </dev/null &
	epid=$!
	bg_pids+=("$epid")
	odd_ready() { [[ $(head -c 1 "/proc/$epid/cmdline" 2>/dev/null) == q ]]; }
	# json_command: the "command" line of the odd namespace's object.
	json_command() { grep -A1 "^ *\"ns\": $(ns_of "$epid" uts),$" | tail -n 1; }
	if ! wait_for 10 odd_ready; then
		fail "-J escapes a command as lsns does" "the process did not start"
	else
		a=$(lsns -J -t uts -o NS,COMMAND | json_command)
		b=$(timeout 20 "$L" --proc -J -t uts -o NS,COMMAND | json_command)
		if [[ $a == *'\"b\\\\t\tn\nc\u0001u'* && $a == "$b" ]]; then
			pass "-J escapes a command as lsns does"
		else
			fail "-J escapes a command as lsns does" "lsns: $a
lsnamespaces: $b"
		fi
	fi
	kill "$epid"

	echo "# lsns's habits"
	want=$(for f in "/proc/$spid/ns/"*; do readlink "$f"; done |
		sed -E 's/^([a-z]+):\[([0-9]+)\]$/\2 \1/' | sort -u)
	out=$(timeout 20 "$L" -p "$spid" -o NS,TYPE -n -l -P 2>/dev/null |
		awk '{ print $1, $2 }' | sort)
	if [[ $out == "$want" ]] && (($(wc -l <<<"$out") == 8)); then
		pass "-p PID lists exactly the 8 namespaces of that process"
	else
		fail "-p PID lists exactly the 8 namespaces of that process" \
			"lsnamespaces: $out
readlink: $want"
	fi
	check_jq "a namespace argument lists its processes: PID PPID USER COMMAND" \
		".namespaces == [{\"pid\": $spid, \"ppid\": $upid, \"user\": \"root\",
		  \"command\": \"$sleeper 1000\"}]" -P -J "$(ns_of "$spid" uts)"
	out=$(timeout 20 "$L" -P "$(ns_of "$spid" uts)" 2>/dev/null | head -n 1)
	if [[ $out =~ ^\ *PID\ +PPID\ +USER\ +COMMAND$ ]]; then
		pass "a namespace argument has the headings PID PPID USER COMMAND"
	else
		fail "a namespace argument has the headings PID PPID USER COMMAND" "$out"
	fi
	check_jq "a namespace argument shows its processes as a process tree" \
		".namespaces | length == 1 and .[0].pid == $upid and
		 .[0].children == [{\"pid\": $spid, \"ppid\": $upid, \"user\": \"root\",
		  \"command\": \"$sleeper 1000\"}]" -P -J "$u_mnt"
	check_jq "-Towner nests namespaces under their owning user namespace" \
		"[.namespaces[] | select(.ns == $root_user) | .children[]?.ns] |
		 index($(ns_of "$spid" uts)) != null" -P -Towner -J -o NS,TYPE
	check_jq "--tree=parent nests a pid namespace under its parent" \
		"[.. | objects | select(.ns == $host_pid) | .children[]?.ns] |
		 index($(ns_of "$spid" pid)) != null" -P --tree=parent -J -o NS,TYPE
	check_jq "-Tprocess nests namespaces under their lowest process's parent's" \
		"[.. | objects | select(.ns == $u_mnt) | .children[]?.ns] |
		 contains([$(ns_of "$spid" uts), $(ns_of "$spid" pid)])" \
		-P -Tprocess -J -o NS,TYPE,PID
	if command -v script >/dev/null; then
		out=$(in_pty 40 "$L" -P -p "$spid" -t uts -o NS,TYPE,COMMAND)
		if grep -qF "$sleeper 1000" <<<"$out"; then
			fail "without -u, COMMAND is cut to the terminal's width, as lsns" "$out"
		elif grep -q "lsnamespaces-test" <<<"$out"; then
			pass "without -u, COMMAND is cut to the terminal's width, as lsns"
		else
			fail "without -u, COMMAND is cut to the terminal's width, as lsns" "$out"
		fi
		out=$(in_pty 40 "$L" -P -u -p "$spid" -t uts -o NS,TYPE,COMMAND)
		if grep -qF "$sleeper 1000" <<<"$out"; then
			pass "-u keeps COMMAND whole on a narrow terminal"
		else
			fail "-u keeps COMMAND whole on a narrow terminal" "$out"
		fi
	else
		skip "without -u, COMMAND is cut to the terminal's width, as lsns" \
			"no script(1)"
		skip "-u keeps COMMAND whole on a narrow terminal" "no script(1)"
	fi
	if ((${#time_opts[@]})); then
		time_detail='"monotonic 86400s boottime -5s"'
	else
		time_detail=.time
	fi
	check_jq "--proc DETAIL gives the host name and clock offsets of a process's namespaces" \
		"[.namespaces[] | {(.type): .detail}] | add |
		 .uts == \"$sleeper_host\" and .time == $time_detail and
		 .net == \"$net_detail\" and .pid == \"level 1\"" \
		-P -p "$spid" -J -l -o TYPE,DETAIL
else
	for name in "lsns's columns (-o ...) have lsns's keys and values" \
		"-W joins NSFS mount points with commas, as lsns" \
		"the test's namespaces have their exact NPROCS, NSFS and NETNSID" \
		"lsns lists the test's namespaces too" \
		"the default columns have lsns's keys" \
		"the default columns of -t net have lsns's keys" \
		"-p PID lists exactly the 8 namespaces of that process" \
		"a namespace argument lists its processes: PID PPID USER COMMAND" \
		"a namespace argument has the headings PID PPID USER COMMAND" \
		"a namespace argument shows its processes as a process tree" \
		"-Towner nests namespaces under their owning user namespace" \
		"--tree=parent nests a pid namespace under its parent" \
		"-Tprocess nests namespaces under their lowest process's parent's" \
		"without -u, COMMAND is cut to the terminal's width, as lsns" \
		"-u keeps COMMAND whole on a narrow terminal" \
		"--proc DETAIL gives the host name and clock offsets of a process's namespaces"; do
		skip "$name" "$why"
	done
fi

echo "# hostile namespaces"
# An unprivileged user's own user and mount namespaces, with a /proc of its
# own in which mountinfo is a FIFO and net/dev a link to /dev/zero.
hostile_ready() {
	[[ $(cat "/proc/$hpid/comm" 2>/dev/null) == sleep ]]
}
if [[ $is_root ]] && command -v setpriv >/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		unshare --user --map-root-user --mount --net --uts --ipc sh -c \
		'mount -t tmpfs tmpfs /proc && mkdir -p /proc/self/net &&
		 mkfifo /proc/self/mountinfo && ln -s /dev/zero /proc/self/net/dev &&
		 exec sleep 1000' </dev/null >"$work/hostile.err" 2>&1 &
	hpid=$!
	bg_pids+=("$hpid")
	if wait_for 10 hostile_ready; then
		hmnt=$(ns_of "$hpid" mnt)
		timeout 20 "$L" --proc -r -n -o NS,TYPE,DETAIL >"$work/stdout" \
			2>"$work/stderr"
		rc=$?
		if ((rc == 124)); then
			fail "a hostile /proc in a user's namespaces neither holds nor hides them" \
				"still running after 20 s"
		elif ((rc > 1)) || ! grep -q "^$hmnt mnt " "$work/stdout"; then
			fail "a hostile /proc in a user's namespaces neither holds nor hides them" \
				"exit status $rc: $(cat "$work/stdout" "$work/stderr")"
		else
			pass "a hostile /proc in a user's namespaces neither holds nor hides them"
		fi
		kill -KILL "$hpid"
		wait "$hpid" 2>/dev/null
	else
		skip "a hostile /proc in a user's namespaces neither holds nor hides them" \
			"an unprivileged user could not make them: $(cat "$work/hostile.err")"
	fi
else
	skip "a hostile /proc in a user's namespaces neither holds nor hides them" \
		"needs root and setpriv"
fi

summary
