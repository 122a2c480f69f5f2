#!/bin/bash
# bench-guest.sh: the guest side of `make bench`. tools/bench/bench.sh sends it as
# the command of a guest run (tools/pipeline/guest-run.sh cmd), with settings put
# before it:
#
#   KERNEL=lean|unpatched  lean: everything; unpatched: creation and memory
#   ROUND=N                which of tools/bench/bench.sh's rounds this is (1)
#   REPS=N                 runs to take the median of (5)
#   RATE_REPS=N            the same for the creation rates (3)
#   GRID_C="10 100 1000"   numbers of containers (ascending)
#   GRID_P="1 10"          processes per container (ascending)
#   CHAIN=30               depth of the nested pid and user chain
#   MEM_N=10000            namespaces held for the memory figures (a tenth
#                          of that for net)
#   SCALE="1000 10000 100000"  sizes of the uts directory to list
#   LEAF="1000 100000"     pid namespaces held while a pid directory with
#                          one child is listed
#   SECTIONS="rate mem list scale leaf"  what to measure
#
# Results go to standard output, one line each, "@@ WHAT FIELDS...":
#
#   @@ kernel RELEASE VERSION...
#   @@ rate TYPE N MEDIAN_SECONDS BEST     create and destroy N of TYPE;
#                                          BEST: namespaces per second in
#                                          the quickest block of all runs
#   @@ mem TYPE N IDLE BROWSED DROPPED     slab bytes per namespace held:
#                                          idle after drop_caches, after a
#                                          walk of namespacefs, and after
#                                          drop_caches again (- if none)
#   @@ list C P NAMESPACES PROCESSES WHAT RUNS MEDIAN_SECONDS LISTED
#                                          LISTED: namespaces in the output
#   @@ scale N ENTRIES MEDIAN_SECONDS      list a directory of N namespaces
#   @@ leaf N ENTRIES MEDIAN_SECONDS       list a pid directory with one
#                                          child, N pid namespaces held
#                                          (REPS times, sizes alternating)
#
# Progress and problems go to standard error.
set -u
KERNEL=${KERNEL:-lean} ROUND=${ROUND:-1} REPS=${REPS:-5} RATE_REPS=${RATE_REPS:-3}
CHAIN=${CHAIN:-30} MEM_N=${MEM_N:-10000} LEAF=${LEAF:-"1000 100000"}
GRID_C=${GRID_C:-"10 100 1000"} GRID_P=${GRID_P:-"1 10"}
SCALE=${SCALE:-"1000 10000 100000"}
SECTIONS=${SECTIONS:-"rate mem list scale leaf"}
NSFS=/sys/fs/namespaces

say() { echo "bench-guest $KERNEL $ROUND: $*" >&2; }

# section NAME: whether to measure NAME.
section() { [[ " $SECTIONS " == *" $1 "* ]]; }

# Room for 100,000 namespaces of a type, and files to hold them.
for f in /proc/sys/user/max_*_namespaces; do echo 1000000 >"$f"; done
echo 1100000 >/proc/sys/fs/nr_open
echo 1100000 >/proc/sys/fs/file-max
echo 4194304 >/proc/sys/kernel/pid_max
echo 1000000 >/proc/sys/kernel/threads-max
# Every tool may keep a file open per namespace (lsnamespaces --proc does).
ulimit -n 1048576

echo "@@ kernel $(uname -r) $(uname -v)"

# usecs CMD...: run CMD, output thrown away, and print its time in µs.
usecs() {
	local start=$EPOCHREALTIME end
	"$@" >/dev/null 2>&1 || say "failed ($?): $*"
	end=$EPOCHREALTIME
	echo $((${end/./} - ${start/./}))
}

# usecs_to FILE CMD...: the same, the output to FILE.
usecs_to() {
	local out=$1 start=$EPOCHREALTIME end
	shift
	"$@" >"$out" 2>/dev/null || say "failed ($?): $*"
	end=$EPOCHREALTIME
	echo $((${end/./} - ${start/./}))
}

# median: the median of the numbers on standard input.
median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}

# seconds USECS: µs as seconds.
seconds() { awk -v u="$1" 'BEGIN { printf "%.6f", u / 1e6 }'; }

slab_kb() { awk '/^Slab:/ { print $2 }' /proc/meminfo; }

drop_caches() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# settle: wait (at most 120 s) until the slab stops changing, three
# readings in a row 0.5 s apart: namespaces are freed after a grace period
# or by a work item (net, which takes seconds under TCG).
settle() {
	local prev now i steady=0
	prev=$(slab_kb)
	for ((i = 0; i < 240; i++)); do
		sleep 0.5
		drop_caches
		now=$(slab_kb)
		if ((prev - now < 64 && now - prev < 64)); then
			((++steady >= 3)) && return 0
		else
			steady=0
		fi
		prev=$now
	done
	say "slab still changing after 120 s"
}

# count_ns: namespaces in namespacefs.
count_ns() { nsbench tree "$NSFS" | wc -l; }

# wait_ns N: wait (at most 120 s) until namespacefs shows N namespaces.
wait_ns() {
	local i n
	for ((i = 0; i < 1200; i++)); do
		n=$(count_ns)
		((n == $1)) && return 0
		sleep 0.1
	done
	say "namespacefs shows $n namespaces, not $1, after 120 s"
}

# A new mount namespace copies every mount of ours, namespacefs's too,
# which the unpatched guest does not have: mount namespaces are made and
# held with namespacefs unmounted, with the same mounts as there.
nsfs_umounted=
nsfs_umount() {
	if grep -q " $NSFS namespacefs " /proc/mounts; then
		umount "$NSFS" && nsfs_umounted=1
	fi
}
nsfs_remount() {
	[[ $nsfs_umounted ]] && mount -t namespacefs namespacefs "$NSFS"
	nsfs_umounted=
}

# ---- creation and destruction ----

# About a second of each under TCG, with enough in each of nsbench's 20
# blocks (75 forks, 300 mount namespaces) that work done late, such as
# freeing a batch, weighs little in any one block.
declare -A RATE_N=([fork]=1500 [uts]=200000 [ipc]=10000 [net]=400 [mnt]=6000
	[cgroup]=200000 [time]=200000 [pid]=100000 [user]=600 [all]=200)
RATE_TYPES=(fork uts ipc net mnt cgroup time pid user all)
section rate || RATE_TYPES=()
section rate && say "creation rates, $RATE_REPS rounds of ${RATE_TYPES[*]}"
declare -A rate_runs=() rate_best=()
for ((r = 0; r < RATE_REPS && ${#RATE_TYPES[@]}; r++)); do
	for t in "${RATE_TYPES[@]}"; do
		# "TYPE N SECONDS BEST"
		[[ $t == mnt ]] && nsfs_umount
		read -r _ _ secs best < <(nsbench rate "$t" "${RATE_N[$t]}") || say "rate $t failed"
		nsfs_remount
		rate_runs[$t]+="${secs:-} "
		rate_best[$t]+="${best:-} "
	done
	settle
done
for t in "${RATE_TYPES[@]}"; do
	echo "@@ rate $t ${RATE_N[$t]} $(tr ' ' '\n' <<<"${rate_runs[$t]}" | grep . | median)" \
		"$(tr ' ' '\n' <<<"${rate_best[$t]}" | grep . | sort -g | tail -n 1)"
done

# ---- memory ----

# hold_start TYPE N: nsbench hold in the background, once it is ready.
hold_start() {
	coproc HOLD { exec nsbench hold "$1" "$2"; }
	hold_pid=$HOLD_PID
	local line
	read -r -u "${HOLD[0]}" line
	[[ $line == ready ]] || say "hold $1 $2 failed"
}

hold_stop() {
	kill "$hold_pid" 2>/dev/null
	wait "$hold_pid" 2>/dev/null
}

# per KB N: bytes per namespace.
per() {
	[[ $1 == - ]] && echo - && return
	awk -v k="$1" -v n="$2" 'BEGIN { printf "%.1f", k * 1024 / n }'
}

# net last: freeing hundreds of MB of network namespaces takes a while.
for t in uts ipc mnt cgroup time pid user net; do
	section mem || break
	n=$MEM_N
	# A network namespace takes tens of ms to make and ~200 kB: fewer of
	# those. The others at 10,000: at 2,000, the slab of pid and user
	# namespaces (each held by an nsfs inode, a dentry and a file, 1.3
	# and 3.7 kB) moved by 40 to 90 bytes from run to run; at 10,000 the
	# rounds agree within 20 bytes.
	[[ $t == net ]] && n=$((MEM_N / 10))
	say "memory: $n $t namespaces"
	# About 400 bytes a mount namespace are namespacefs's mount.
	[[ $t == mnt ]] && nsfs_umount
	settle
	before=$(slab_kb)
	hold_start "$t" "$n"
	drop_caches
	idle=$(($(slab_kb) - before))
	nsfs_remount
	browsed=- dropped=-
	if [[ -d $NSFS/$t ]]; then
		# Browsing: every directory and owner link of the type.
		nsbench tree "$NSFS" >/dev/null
		ls -lR "$NSFS/$t" >/dev/null 2>&1
		browsed=$(($(slab_kb) - before))
		drop_caches
		dropped=$(($(slab_kb) - before))
	fi
	hold_stop
	echo "@@ mem $t $n $(per "$idle" "$n") $(per "$browsed" "$n") $(per "$dropped" "$n")"
done

[[ $KERNEL == lean && -d $NSFS/pid ]] || exit 0

# tools/bench/bench.sh runs these two and the grid in guests of their own
# (why: there).

# ---- listing one directory at scale ----

for n in $SCALE; do
	section scale || break
	say "scale: listing $NSFS/uts with $n namespaces"
	settle
	hold_start uts "$n"
	read -r entries secs < <(nsbench readdir "$NSFS/uts" "$REPS")
	echo "@@ scale $n $entries $secs"
	hold_stop
done

# ---- a pid directory with one child, among many pid namespaces ----

if section leaf; then
	# A pid namespace with one child pid namespace, each with a process:
	# the outer namespace's directory is listed. Its init says which it is.
	rm -f /tmp/leaf-ns
	# --kill-child: killing the outer unshare takes both namespaces away,
	# before the grid counts what is there. It ignores SIGTERM while it
	# waits for its child: SIGKILL.
	unshare --fork --pid --kill-child sh -c 'readlink /proc/self/ns/pid >/tmp/leaf-ns.new &&
		mv /tmp/leaf-ns.new /tmp/leaf-ns &&
		exec unshare --fork --pid --kill-child sleep 100000' &
	leaf_pid=$!
	dir=
	for ((i = 0; i < 200; i++)); do
		[[ -z $dir ]] || break
		sleep 0.1
		[[ -s /tmp/leaf-ns ]] || continue
		inum=$(tr -dc 0-9 </tmp/leaf-ns)
		# The child has a directory of its own once the inner unshare ran.
		dir=$(find "$NSFS/pid/$inum" -mindepth 1 -maxdepth 1 -type d 2>/dev/null | head -n 1)
		[[ -n $dir ]] && dir=$NSFS/pid/$inum
	done
	[[ -n $dir ]] || say "leaf: no directory for the pid namespace"
	# Sizes alternate, REPS times, so that a change of the host's speed
	# shows as spread rather than as a ratio; bench.sh takes medians.
	for ((r = 0; r < REPS; r++)); do
		for n in $LEAF; do
			[[ -n $dir ]] || break
			say "leaf: listing ${dir#$NSFS/} with $n pid namespaces held ($((r + 1))/$REPS)"
			hold_start pid "$n"
			read -r entries secs < <(nsbench readdir "$dir" 201)
			echo "@@ leaf $n $entries $secs"
			hold_stop
		done
	done
	kill -KILL "$leaf_pid" 2>/dev/null
	wait "$leaf_pid" 2>/dev/null
fi

# ---- listing the containers ----

# measure C P: time each way of listing, the median of up to REPS runs
# (fewer when a run is long: 3 past 2 s, 1 past 10 s).
measure() {
	local c=$1 p=$2 nns nprocs what cmd first runs times i listed
	nns=$(count_ns)
	nprocs=$(ls /proc | grep -c '^[0-9]')
	say "listing: $c containers x $p processes: $nns namespaces, $nprocs processes"
	for what in tree nsfs proc lsns lsns-T; do
		case $what in
		tree) cmd=(lsnamespaces -J -o NS,TYPE,PNS,ONS) ;;
		nsfs) cmd=(lsnamespaces -J -o NS,TYPE,NPROCS,PID,USER,COMMAND) ;;
		proc) cmd=(lsnamespaces --proc -J) ;;
		lsns) cmd=(lsns -J) ;;
		lsns-T) cmd=(lsns -J -T) ;;
		esac
		# The first run's output is kept, to count what it listed.
		first=$(usecs_to /tmp/bench-out "${cmd[@]}")
		# Trees nest: count every object with an "ns".
		listed=$(jq -M '[.. | .ns? // empty] | length' </tmp/bench-out 2>/dev/null)
		rm -f /tmp/bench-out
		runs=$REPS
		((first > 2000000)) && runs=$((REPS < 3 ? REPS : 3))
		((first > 10000000)) && runs=1
		times=$first
		for ((i = 1; i < runs; i++)); do
			times+=" $(usecs "${cmd[@]}")"
		done
		echo "@@ list $c $p $nns $nprocs $what $runs $(seconds "$(tr ' ' '\n' <<<"$times" | median)") ${listed:-0}"
	done
}

# ask LINE: a command to the scenario; dies if it fails.
ask() {
	local reply
	echo "$1" >&"${SCEN[1]}"
	read -r -u "${SCEN[0]}" reply
	[[ $reply == ok* ]] || {
		say "scenario: $1: $reply"
		exit 1
	}
}

# grid: the containers of GRID_C x GRID_P and the chain, listed each way.
grid() {
	settle
	base=$(count_ns)
	coproc SCEN { exec nsbench scenario; }
	scen_pid=$SCEN_PID
	say "a chain of $CHAIN nested user and pid namespaces"
	ask "chain $CHAIN"
	base=$((base + 2 * CHAIN))
	read -ra cs <<<"$GRID_C"
	read -ra ps <<<"$GRID_P"
	# Up the containers with the fewest processes, then up the processes in
	# the most containers, then down the containers: each container is made
	# once.
	have=0
	for c in "${cs[@]}"; do
		say "starting $((c - have)) containers of ${ps[0]} processes"
		start=$EPOCHREALTIME
		ask "add $((c - have)) ${ps[0]}"
		say "  in $(seconds $((${EPOCHREALTIME/./} - ${start/./}))) s"
		have=$c
		wait_ns $((base + 8 * c))
		measure "$c" "${ps[0]}"
	done
	p=${ps[0]}
	for np in "${ps[@]:1}"; do
		say "growing $have containers to $np processes"
		ask "grow $((np - p))"
		p=$np
		measure "$have" "$p"
	done
	for ((i = ${#cs[@]} - 2; i >= 0 && ${#ps[@]} > 1; i--)); do
		c=${cs[i]}
		say "stopping $((have - c)) containers"
		ask "drop $((have - c))"
		have=$c
		wait_ns $((base + 8 * c))
		measure "$c" "$p"
	done
	exec {SCEN[1]}>&-
	wait "$scen_pid"
}
section list && grid

exit 0
