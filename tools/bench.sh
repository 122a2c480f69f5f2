#!/bin/bash
# bench.sh: `make bench`. Builds the lean kernel and the same configuration
# without the series (unpatched), the tools and the initramfs, then boots
# each kernel once and runs tools/bench-guest.sh in it:
#
#   lean       creation rates, slab per namespace, listing the containers
#              of a grid (namespacefs, nsfs --proc, lsns), listing one
#              directory of 1,000 to 100,000 namespaces
#   unpatched  creation rates and slab per namespace, for comparison
#
# The two guests run at the same time, so that the creation rates of both
# kernels are measured under the same load on the host.
#
# Writes to build/bench/: results.md (the tables, each figure against its
# target), list.dat, rate.dat, mem.dat, scale.dat, enumeration.png, and the
# guests' output (lean.log, unpatched.log; consoles in run-*/), and prints
# results.md.
#
# Settings from the environment, for trying it out quicker:
#   NSFS_BENCH_ARGS  put before the guest script, e.g. "REPS=3 GRID_C='10 100'"
#                    (see tools/bench-guest.sh)
#   NSFS_TIMEOUT     seconds before a guest is killed (2400)
#   NSFS_BENCH_REPORT_ONLY=1  remake results.md and the plot from the logs
#                    of the last run, without building or booting
. "$(dirname "$0")/lib.sh"

out=$BUILD/bench
started=$SECONDS

# start FLAVOR: boot a guest that runs the benchmarks, in the background;
# its output goes to $out/FLAVOR.log, its PID to pid[FLAVOR].
declare -A pid=()
start() {
	local flavor=$1 run
	run=$out/run-$flavor
	mkdir -p "$run"
	rm -f "$run/results.tap"
	NSFS_RUN_DIR=$run NSFS_EXAMPLES=0 NSFS_MEMORY=4G \
		NSFS_TIMEOUT=${NSFS_TIMEOUT:-2400} \
		NSFS_CMD="KERNEL=$flavor ${NSFS_BENCH_ARGS-}
$(cat tools/bench-guest.sh)" tools/guest-run.sh cmd "$flavor" >"$out/$flavor.log" &
	pid[$flavor]=$!
}

# finish FLAVOR: wait for its guest; fails if the guest did.
finish() {
	local status=0
	wait "${pid[$1]}" || status=$?
	grep -v -e '^@@ ' -e '^bench-guest ' "$out/$1.log" >&2 || true
	((status == 0)) || die "bench: the $1 guest failed (status $status); see $out/$1.log and $out/run-$1/console.log"
}

if [[ -z ${NSFS_BENCH_REPORT_ONLY-} ]]; then
	load_before=$(cut -d' ' -f1-3 /proc/loadavg)
	tools/build-kernel.sh lean
	tools/build-kernel.sh unpatched
	tools/build-tools.sh
	guest-rootfs/build.sh
	mkdir -p "$out"
	rm -f "$out"/*.dat "$out"/*.log "$out"/results.* "$out"/enumeration.png
	# Both at once: the creation rates, which come first in each, are
	# measured under the same load on the host (the fork row of the table
	# is the control). Then the lean one goes on alone with the listings.
	msg "bench: lean and unpatched kernels at once (logs: $out/lean.log, $out/unpatched.log)"
	start lean
	start unpatched
	# The progress as it comes, from the guests' results files (what
	# guest-run.sh prints arrives in blocks).
	tail -q -n +1 -F -s 0.5 --pid="${pid[lean]}" "$out"/run-{lean,unpatched}/results.tap 2>/dev/null |
		grep --line-buffered '^bench-guest ' >&2 || true
	finish unpatched
	finish lean
	load_after=$(cut -d' ' -f1-3 /proc/loadavg)
	{
		printf 'date=%q\n' "$(date -u '+%Y-%m-%d %H:%M UTC')"
		printf 'load_before=%q\nload_after=%q\n' "$load_before" "$load_after"
		printf 'elapsed=%q\n' "$((SECONDS - started))"
	} >"$out/run.info"
fi
[[ -f $out/run.info && -f $out/lean.log && -f $out/unpatched.log ]] ||
	die "bench: no complete run in $out"
. "$out/run.info"

# The result lines, "@@" taken off, unpatched ones marked with a U.
{
	sed -n 's/^@@ //p' "$out/lean.log" | tr -d '\r'
	sed -n 's/^@@ /U /p' "$out/unpatched.log" | tr -d '\r'
} >"$out/results.raw"

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)

# The data files for gnuplot and the tables.
awk -v out="$out" '
$1 == "list" { key = $2 " " $3; if (!(key in seen)) { seen[key] = 1; order[++n] = key; ns[key] = $4; pr[key] = $5 }
	t[key, $6] = $8; l[key, $6] = $9 }
$1 == "rate" { lr[$2] = $3 / $4; rn[$2] = $3 }
$1 == "U" && $2 == "rate" { ur[$3] = $4 / $5 }
$1 == "mem" { lm[$2] = $4; lb[$2] = $5; ld[$2] = $6; mn[$2] = $3 }
$1 == "U" && $2 == "mem" { um[$3] = $5 }
$1 == "scale" { sc[++ns_] = $2 " " $3 " " $4 }
END {
	f = out "/list.dat"
	print "# containers processes_per_container namespaces processes tree nsfs_J nsfs_proc_J lsns_J lsns_J_T (seconds), then namespaces listed by each" > f
	for (i = 1; i <= n; i++) {
		k = order[i]; split(k, cp, " ")
		print cp[1], cp[2], ns[k], pr[k], t[k, "tree"], t[k, "nsfs"], t[k, "proc"], t[k, "lsns"], t[k, "lsns-T"], \
			l[k, "tree"], l[k, "nsfs"], l[k, "proc"], l[k, "lsns"], l[k, "lsns-T"] > f
	}
	f = out "/rate.dat"
	print "# type n unpatched_per_s lean_per_s ratio" > f
	split("fork uts ipc net mnt cgroup time pid user all", ty, " ")
	for (i = 1; i <= 10; i++)
		if (ty[i] in lr)
			printf "%s %d %.1f %.1f %.4f\n", ty[i], rn[ty[i]], ur[ty[i]], lr[ty[i]], (ur[ty[i]] ? lr[ty[i]] / ur[ty[i]] : 0) > f
	f = out "/mem.dat"
	print "# type n unpatched_idle lean_idle overhead lean_browsed lean_dropped (slab bytes per namespace)" > f
	split("uts ipc net mnt cgroup time pid user", ty, " ")
	for (i = 1; i <= 8; i++)
		if (ty[i] in lm)
			printf "%s %d %s %s %.1f %s %s\n", ty[i], mn[ty[i]], um[ty[i]], lm[ty[i]], lm[ty[i]] - um[ty[i]], lb[ty[i]], ld[ty[i]] > f
	f = out "/scale.dat"
	print "# namespaces entries seconds" > f
	for (i = 1; i <= ns_; i++)
		print sc[i] > f
}' "$out/results.raw"

# ---- results.md ----

# verdict OK: PASS or MISS
verdict() { if (($1)); then echo PASS; else echo MISS; fi; }
# ratio A B: A / B to two places
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "-" && a >= b) }' && echo 1 || echo 0; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "-" && a <= b) }' && echo 1 || echo 0; }
# listing C P COLUMN: seconds from list.dat (column 5 tree ... 9 lsns -T)
listing() { awk -v c="$1" -v p="$2" -v k="$3" '$1 == c && $2 == p { print $k }' "$out/list.dat"; }

read -ra grid_c <<<"$(awk '!/^#/ { print $1 }' "$out/list.dat" | sort -nu | tr '\n' ' ')"
read -ra grid_p <<<"$(awk '!/^#/ { print $2 }' "$out/list.dat" | sort -nu | tr '\n' ' ')"
cmax=${grid_c[-1]-0} pmin=${grid_p[0]-0} pmax=${grid_p[-1]-0}

{
	echo "# namespacefs benchmarks"
	echo
	echo "| | |"
	echo "| --- | --- |"
	echo "| Command | \`make bench\` |"
	echo "| Date | $date |"
	echo "| Machine | $cpu, $(nproc) cores; guest: QEMU TCG (no KVM), 2 vCPUs, 4 GiB |"
	echo "| Kernels | patched: $(awk '$1 == "kernel" { $1 = ""; print substr($0, 2) }' "$out/results.raw") (lean configuration); unpatched: $(awk '$1 == "U" && $2 == "kernel" { $1 = $2 = ""; print substr($0, 3) }' "$out/results.raw") (the same configuration without the series) |"
	echo "| Host load average | $load_before before, $load_after after |"
	echo "| Duration | $((elapsed / 60)) min $((elapsed % 60)) s, both guests and the builds |"
	echo
	echo "## Targets"
	echo
	echo "| Figure | Measured | Target | |"
	echo "| --- | --- | --- | --- |"
	for p in "$pmin" "$pmax"; do
		r=$(ratio "$(listing "$cmax" "$p" 8)" "$(listing "$cmax" "$p" 5)")
		echo "| Tree (type, parent, owner) through namespacefs vs \`lsns -J\`, $cmax containers x $p | ${r}x faster | >= 20x | $(verdict "$(ge "$r" 20)") |"
		[[ $pmin == "$pmax" ]] && break
	done
	r=$(ratio "$(listing "$cmax" "$pmax" 8)" "$(listing "$cmax" "$pmax" 6)")
	echo "| Full listing \`nsfs -J\` vs \`lsns -J\`, $cmax containers x $pmax | ${r}x faster | >= 5x | $(verdict "$(ge "$r" 5)") |"
	r=$(ratio "$(listing "$cmax" "$pmax" 6)" "$(listing "$cmax" "$pmin" 6)")
	echo "| \`nsfs -J\` as processes grow: time at $cmax x $pmax / at $cmax x $pmin | ${r}x | flat (<= 1.5x; \`lsns -J\`: $(ratio "$(listing "$cmax" "$pmax" 8)" "$(listing "$cmax" "$pmin" 8)")x) | $(verdict "$(le "$r" 1.5)") |"
	fork=$(awk '$1 == "fork" { printf "%.1f", $5 * 100 }' "$out/rate.dat")
	r=$(awk '$1 == "all" { printf "%.1f", $5 * 100 }' "$out/rate.dat")
	echo "| Creation and destruction, all eight types together: patched / unpatched rate | ${r}% (the fork control: ${fork}%) | >= 97% | $(verdict "$(ge "$r" 97)") |"
	r=$(awk '!/^#/ && $1 != "fork" && $1 != "all" { v = $5 * 100; if (m == "" || v < m) { m = v; t = $1 } } END { printf "%.1f %s", m, t }' "$out/rate.dat")
	echo "| Creation and destruction, the worst single type: patched / unpatched rate | ${r% *}% (${r#* }; the fork control: ${fork}%) | >= 97% | $(verdict "$(ge "${r% *}" 97)") |"
	r=$(awk '!/^#/ { if (m == "" || $5 > m) { m = $5; t = $1 } } END { printf "%.1f %s", m, t }' "$out/mem.dat")
	echo "| Slab per namespace, patched - unpatched, nobody browsing, the worst type | ${r% *} B (${r#* }) | <= 64 B | $(verdict "$(le "${r% *}" 64)") |"
	r=$(awk '!/^#/ && $6 != "-" { v = $7 - $3; if (m == "" || v > m) { m = v; t = $1 } } END { if (m != "") printf "%.1f %s", m, t; else print "- -" }' "$out/mem.dat")
	echo "| The same after a walk of namespacefs and \`drop_caches\`, the worst type | ${r% *} B (${r#* }) | <= 64 B | $(verdict "$(le "${r% *}" 64)") |"
	# The largest size against each smaller one.
	while read -r n1 t1 n2 t2; do
		r=$(ratio "$t2" "$t1")
		bound=$(awk -v a="$n1" -v b="$n2" 'BEGIN { printf "%.2f", b * log(b) / (a * log(a)) }')
		echo "| Listing a type directory: time for $n2 / time for $n1 namespaces | ${r}x | <= ${bound}x (N log N) | $(verdict "$(le "$r" "$bound")") |"
	done < <(awk '!/^#/ { n[++k] = $1; t[k] = $3 } END { for (i = k - 1; i >= 1; i--) print n[i], t[i], n[k], t[k] }' "$out/scale.dat")
	echo
	echo "## Listing every namespace"
	echo
	echo "Median wall time in seconds of each command in the guest, output to /dev/null"
	echo "(median of 5 runs; 3 when a run takes over 2 s, 1 over 10 s). Each container"
	echo "has its own pid, user, uts, ipc, net, mnt, cgroup and time namespaces; a chain"
	echo "of nested user and pid namespaces is there throughout. tree: \`nsbench tree\`"
	echo "(type, parent and owner of every namespace: readdir and readlink of \`owner\`)."
	echo
	echo "| Containers | Procs each | Namespaces | Processes | tree | \`nsfs -J\` | \`nsfs --proc -J\` | \`lsns -J\` | \`lsns -J -T\` | lsns / tree | lsns / nsfs | proc / nsfs | Listed: tree, nsfs, proc, lsns |"
	echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	awk '!/^#/ { printf "| %d | %d | %d | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.1fx | %.1fx | %.1fx | %s, %s, %s, %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $8 / $5, $8 / $6, $7 / $6, $10, $11, $12, $13 }' "$out/list.dat"
	echo
	echo "Namespaces: those in namespacefs (\`nsbench tree | wc -l\`). Listed: the namespaces"
	echo "in each command's output (the first run's; every tool may open 1,048,576 files)."
	echo "\`lsns\` shows only namespaces that a"
	echo "process is in; where \`nsfs --proc -J\` lists fewer than \`nsfs -J\`, its time is"
	echo "not that of the same work."
	echo
	echo "![enumeration time against the number of namespaces](enumeration.png)"
	echo
	echo "## Creation and destruction"
	echo
	echo "Namespaces created and destroyed per second, median of 5 rounds. uts, ipc, net,"
	echo "mnt, cgroup, time: \`unshare\` in a loop (each drops the one before); pid: \`unshare\`"
	echo "and \`setns\` back; user and all: \`unshare\` in a child that exits (fork: the child alone)."
	echo
	echo "The fork row is the control: the two guests run at the same time, and a"
	echo "ratio other than 100% there is the host's doing; the last column divides by it."
	echo
	echo "| Type | N | Unpatched /s | Patched /s | Patched / unpatched | | Divided by fork's |"
	echo "| --- | ---: | ---: | ---: | ---: | --- | ---: |"
	awk '!/^#/ { r[NR] = $0; if ($1 == "fork") f = $5 }
	END {
		for (i = 1; i <= NR; i++) {
			if (!(i in r))
				continue
			split(r[i], x, " ")
			v = (x[1] == "fork") ? "" : (x[5] >= 0.97 ? "PASS" : "MISS")
			printf "| %s | %d | %.0f | %.0f | %.1f%% | %s | %.1f%% |\n", x[1], x[2], x[3], x[4], x[5] * 100, v, (f ? x[5] / f * 100 : 0)
		}
	}' "$out/rate.dat"
	echo
	echo "## Memory"
	echo
	echo "Slab (\`Slab:\` of /proc/meminfo) per namespace held by an open nsfs file and no"
	echo "process, in bytes, after \`echo 3 > /proc/sys/vm/drop_caches\`: idle (nobody has"
	echo "looked), browsed (after a walk of the type in namespacefs: \`nsbench tree\`, \`ls -lR\`)"
	echo "and browsed then dropped. Both kernels count the same nsfs file, dentry and inode"
	echo "per namespace; the overhead is the difference."
	echo
	echo "| Type | N | Unpatched | Patched | Overhead | Patched, browsed | Patched, browsed, dropped | |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
	awk '!/^#/ { printf "| %s | %d | %.1f | %.1f | %.1f | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, ($5 <= 64 ? "PASS" : "MISS") }' "$out/mem.dat"
	echo
	echo "## Listing one directory"
	echo
	echo "\`nsbench readdir\`: opendir and readdir to the end of /sys/fs/namespaces/uts with N"
	echo "uts namespaces held, median of 5."
	echo
	echo "| Namespaces | Entries | Seconds | µs per entry |"
	echo "| ---: | ---: | ---: | ---: |"
	awk '!/^#/ { printf "| %d | %d | %.4f | %.2f |\n", $1, $2, $3, $3 * 1e6 / $2 }' "$out/scale.dat"
} >"$out/results.md"

# ---- the plot ----

if command -v gnuplot >/dev/null && [[ -s $out/list.dat ]]; then
	awk -v p="$pmin" '!/^#/ && $2 == p' "$out/list.dat" >"$out/list-p$pmin.dat"
	awk -v p="$pmax" '!/^#/ && $2 == p' "$out/list.dat" >"$out/list-p$pmax.dat"
	gnuplot <<EOF
set terminal pngcairo size 900,600 noenhanced
set output '$out/enumeration.png'
set title 'Listing every namespace (QEMU TCG guest; $pmin and $pmax processes per container)'
set xlabel 'namespaces'
set ylabel 'seconds (median)'
set logscale xy
set key top left
set grid
a = '$out/list-p$pmin.dat'
b = '$out/list-p$pmax.dat'
plot a u 3:5 w lp lc 1 pt 7 dt 1 t 'namespacefs tree, P=$pmin', \
     b u 3:5 w lp lc 1 pt 6 dt 2 t 'namespacefs tree, P=$pmax', \
     a u 3:6 w lp lc 2 pt 7 dt 1 t 'nsfs -J, P=$pmin', \
     b u 3:6 w lp lc 2 pt 6 dt 2 t 'nsfs -J, P=$pmax', \
     a u 3:7 w lp lc 3 pt 7 dt 1 t 'nsfs --proc -J, P=$pmin', \
     b u 3:7 w lp lc 3 pt 6 dt 2 t 'nsfs --proc -J, P=$pmax', \
     a u 3:8 w lp lc 4 pt 7 dt 1 t 'lsns -J, P=$pmin', \
     b u 3:8 w lp lc 4 pt 6 dt 2 t 'lsns -J, P=$pmax'
EOF
else
	msg "bench: no gnuplot or no listing: no plot"
fi

msg "bench: done in $(since "$started"); $out/results.md:"
cat "$out/results.md"
