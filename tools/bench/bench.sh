#!/bin/bash
# bench.sh: `make bench`. Builds the lean kernel and the same configuration
# without the series (unpatched), the tools and the initramfs, then boots
# the kernels one after the other, never two at once, and runs
# tools/bench/bench-guest.sh in each:
#
#   rounds     ROUNDS alternating pairs (lean, unpatched, lean, ...):
#              creation rates, and in the first pair slab per namespace;
#              each ratio is the median of the pairs', with its spread
#   scale      one lean guest: listing one directory of 1,000 to 100,000
#              namespaces, and a pid directory of one child among 1,000
#              and 100,000 pid namespaces
#   listings   one more lean guest: listing the containers of a grid
#              (namespacefs, lsnamespaces --proc, lsns)
#
# Writes to build/bench/: results.md (the tables, each figure against its
# target), list.dat, rate.dat, mem.dat, scale.dat, leaf.dat,
# enumeration.png, and the guests' output (NAME.log; consoles in
# run-NAME/), and prints results.md.
#
# Settings from the environment, for trying it out quicker:
#   NSFS_BENCH_ARGS  put before the guest script, e.g. "REPS=3 GRID_C='10 100'"
#                    (see tools/bench/bench-guest.sh)
#   NSFS_BENCH_ROUNDS  pairs of creation rounds (5, at least 1)
#   NSFS_TIMEOUT     seconds before a guest is killed (2400)
#   NSFS_BENCH_REPORT_ONLY=1  remake results.md and the plot from the logs
#                    of the last run, without building or booting
. "$(dirname "$0")/../pipeline/lib.sh"

out=$BUILD/bench
started=$SECONDS
rounds=${NSFS_BENCH_ROUNDS:-5}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "bench: NSFS_BENCH_ROUNDS must be a positive number"

# guest NAME FLAVOR SETTINGS: boot FLAVOR, run the benchmarks with SETTINGS
# (shell assignments) and wait for it; its output goes to $out/NAME.log.
guest() {
	local name=$1 flavor=$2 settings=$3 run=$out/run-$1 gpid status=0
	mkdir -p "$run"
	rm -f "$run/results.tap"
	msg "bench: $name: the $flavor kernel, $settings"
	NSFS_RUN_DIR=$run NSFS_EXAMPLES=0 NSFS_MEMORY=4G \
		NSFS_TIMEOUT=${NSFS_TIMEOUT:-2400} \
		NSFS_CMD="KERNEL=$flavor $settings ${NSFS_BENCH_ARGS-}
$(cat tools/bench/bench-guest.sh)" tools/pipeline/guest-run.sh cmd "$flavor" >"$out/$name.log" &
	gpid=$!
	cleanup_kill "$gpid"
	# The progress as it comes, from the guest's results file (what
	# guest-run.sh prints arrives in blocks). In the background, so that
	# a signal reaches the trap at once: bash runs a trap only after the
	# foreground command, but interrupts `wait`.
	{ tail -q -n +1 -F -s 0.5 --pid="$gpid" "$run/results.tap" 2>/dev/null |
		grep --line-buffered '^bench-guest ' >&2 || true; } &
	wait "$gpid" || status=$?
	wait $! || true
	grep -v -e '^@@ ' -e '^bench-guest ' "$out/$name.log" >&2 || true
	((status == 0)) || die "bench: the $name guest failed (status $status); see $out/$name.log and $run/console.log"
}

if [[ -z ${NSFS_BENCH_REPORT_ONLY-} ]]; then
	load_before=$(cut -d' ' -f1-3 /proc/loadavg)
	tools/pipeline/build-kernel.sh lean
	tools/pipeline/build-kernel.sh unpatched
	tools/pipeline/build-tools.sh
	guest-rootfs/build.sh
	mkdir -p "$out"
	rm -rf "$out"/*.dat "$out"/*.log "$out"/results.* "$out"/enumeration.png "$out"/run-*
	# One kernel at a time, alternating, so that a change in the host's
	# load shows as spread between the pairs rather than as a ratio; the
	# fork row, which makes no namespace, is the control.
	for ((r = 1; r <= rounds; r++)); do
		sections=rate
		((r == 1)) && sections="rate mem"
		guest "lean-$r" lean "ROUND=$r SECTIONS='$sections'"
		guest "unpatched-$r" unpatched "ROUND=$r SECTIONS='$sections'"
	done
	# Each on a guest as it booted: a listing right after another's
	# 100,000 namespaces or 10,000 processes had come and gone took up to
	# 70% longer in some guests and not in others, with the same kernel.
	guest lean-scale lean "ROUND=scale SECTIONS='scale leaf'"
	guest lean-list lean "ROUND=list SECTIONS='list'"
	load_after=$(cut -d' ' -f1-3 /proc/loadavg)
	{
		printf 'date=%q\n' "$(date -u '+%Y-%m-%d %H:%M UTC')"
		printf 'load_before=%q\nload_after=%q\n' "$load_before" "$load_after"
		printf 'elapsed=%q\nrounds=%q\n' "$((SECONDS - started))" "$rounds"
	} >"$out/run.info"
fi
[[ -f $out/run.info && -f $out/lean-list.log && -f $out/lean-scale.log ]] ||
	die "bench: no complete run in $out"
. "$out/run.info"

# The result lines, "@@" taken off; those of the creation rounds marked
# with P or U and the round.
{
	for ((r = 1; r <= rounds; r++)); do
		sed -n "s/^@@ /P$r /p" "$out/lean-$r.log"
		sed -n "s/^@@ /U$r /p" "$out/unpatched-$r.log"
	done
	sed -n 's/^@@ //p' "$out/lean-scale.log" "$out/lean-list.log"
} | tr -d '\r' >"$out/results.raw"

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)

# The data files for gnuplot and the tables.
awk -v out="$out" -v rounds="$rounds" '
# median(v, n): the median of v[1..n] (sorts v).
function median(v, n,    i, j, x) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
			x = v[j]; v[j] = v[j - 1]; v[j - 1] = x
		}
	return n ? (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2) : 0
}
$1 == "list" { key = $2 " " $3; if (!(key in seen)) { seen[key] = 1; order[++n] = key; ns[key] = $4; pr[key] = $5 }
	t[key, $6] = $8; l[key, $6] = $9 }
$1 ~ /^[PU][0-9]+$/ && $2 == "rate" { k = substr($1, 1, 1); r = substr($1, 2); rate[k, $3, r] = $6; rn[$3] = $4 }
$1 == "P1" && $2 == "mem" { lm[$3] = $5; lb[$3] = $6; ld[$3] = $7; mn[$3] = $4 }
$1 == "U1" && $2 == "mem" { um[$3] = $5 }
$1 == "scale" { sc[++ns_] = $2 " " $3 " " $4 }
$1 == "leaf" { if (!($2 in leafn)) leafk[++nl] = $2; leafe[$2] = $3; leafv[$2, ++leafn[$2]] = $4 }
END {
	f = out "/list.dat"
	print "# containers processes_per_container namespaces processes tree nsfs_J nsfs_proc_J lsns_J lsns_J_T (seconds), then namespaces listed by each" > f
	for (i = 1; i <= n; i++) {
		k = order[i]; split(k, cp, " ")
		print cp[1], cp[2], ns[k], pr[k], t[k, "tree"], t[k, "nsfs"], t[k, "proc"], t[k, "lsns"], t[k, "lsns-T"], \
			l[k, "tree"], l[k, "nsfs"], l[k, "proc"], l[k, "lsns"], l[k, "lsns-T"] > f
	}
	# Each round pairs a patched guest with the unpatched one booted right
	# after it: the ratio of the pair, then the median of the pairs.
	f = out "/rate.dat"
	print "# type n unpatched_per_s lean_per_s ratio_median ratio_min ratio_max pairs (rates: the quickest block of each guest, medians of the rounds)" > f
	split("fork uts ipc net mnt cgroup time pid user all", ty, " ")
	for (i = 1; i <= 10; i++) {
		m = 0
		for (r = 1; r <= rounds; r++)
			if (("P", ty[i], r) in rate && ("U", ty[i], r) in rate && rate["U", ty[i], r] > 0) {
				m++
				q[m] = rate["P", ty[i], r] / rate["U", ty[i], r]
				a[m] = rate["P", ty[i], r]
				b[m] = rate["U", ty[i], r]
			}
		if (!m)
			continue
		lo = hi = q[1]
		for (j = 2; j <= m; j++) {
			if (q[j] < lo) lo = q[j]
			if (q[j] > hi) hi = q[j]
		}
		printf "%s %d %.1f %.1f %.4f %.4f %.4f %d\n", ty[i], rn[ty[i]], median(b, m), median(a, m), median(q, m), lo, hi, m > f
	}
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
	f = out "/leaf.dat"
	print "# pid_namespaces entries median_seconds min_seconds max_seconds runs" > f
	for (i = 1; i <= nl; i++) {
		k = leafk[i]
		for (j = 1; j <= leafn[k]; j++)
			v[j] = leafv[k, j]
		m = median(v, leafn[k])
		printf "%s %s %.6f %.6f %.6f %d\n", k, leafe[k], m, v[1], v[leafn[k]], leafn[k] > f
	}
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
	echo "| Kernels | patched: $(awk '$1 == "P1" && $2 == "kernel" { $1 = $2 = ""; print substr($0, 3) }' "$out/results.raw") (lean configuration); unpatched: $(awk '$1 == "U1" && $2 == "kernel" { $1 = $2 = ""; print substr($0, 3) }' "$out/results.raw") (the same configuration without the series) |"
	echo "| Host load average | $load_before before, $load_after after |"
	echo "| Duration | $((elapsed / 60)) min $((elapsed % 60)) s, the builds and $((2 * rounds + 2)) guests, one at a time |"
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
	for p in "$pmin" "$pmax"; do
		want=5
		[[ $p == "$pmax" && $pmin != "$pmax" ]] && want=20
		r=$(ratio "$(listing "$cmax" "$p" 8)" "$(listing "$cmax" "$p" 6)")
		echo "| Full listing \`lsnamespaces -J\` (lsns's default columns) vs \`lsns -J\`, $cmax containers x $p | ${r}x faster | >= ${want}x | $(verdict "$(ge "$r" "$want")") |"
		[[ $pmin == "$pmax" ]] && break
	done
	r=$(ratio "$(listing "$cmax" "$pmax" 6)" "$(listing "$cmax" "$pmin" 6)")
	echo "| \`lsnamespaces -J\` as processes grow: time at $cmax x $pmax / at $cmax x $pmin | ${r}x | flat (<= 1.5x; \`lsns -J\`: $(ratio "$(listing "$cmax" "$pmax" 8)" "$(listing "$cmax" "$pmin" 8)")x) | $(verdict "$(le "$r" 1.5)") |"
	# Creation: judged only if the control, which makes no namespace, came
	# out within 5% of 100%.
	fork=$(awk '$1 == "fork" { printf "%.1f", $5 * 100 }' "$out/rate.dat")
	spread() { awk -v t="$1" '$1 == t { printf "%.1f-%.1f%% over %d pairs", $6 * 100, $7 * 100, $8 }' "$out/rate.dat"; }
	noisy=$(awk -v f="${fork:-0}" 'BEGIN { print (f < 95 || f > 105) }')
	judge() { if ((noisy)); then echo "TOO NOISY (fork ${fork}%)"; else verdict "$1"; fi; }
	r=$(awk '$1 == "all" { printf "%.1f", $5 * 100 }' "$out/rate.dat")
	echo "| Creation and destruction, all eight types together: patched / unpatched rate | ${r}% ($(spread all); the fork control: ${fork}%, $(spread fork)) | >= 97% | $(judge "$(ge "$r" 97)") |"
	r=$(awk '!/^#/ && $1 != "fork" && $1 != "all" { v = $5 * 100; if (m == "" || v < m) { m = v; t = $1 } } END { printf "%.1f %s", m, t }' "$out/rate.dat")
	echo "| Creation and destruction, the worst single type: patched / unpatched rate | ${r% *}% (${r#* }, $(spread "${r#* }")) | >= 97% | $(judge "$(ge "${r% *}" 97)") |"
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
	# A pid directory with one child, among few and many pid namespaces.
	read -r n1 e1 t1 n2 e2 t2 < <(awk '!/^#/ { n[++k] = $1; e[k] = $2; t[k] = $3 } END { if (k > 1) print n[1], e[1], t[1], n[k], e[k], t[k] }' "$out/leaf.dat")
	if [[ -n ${n2-} ]]; then
		r=$(ratio "$t2" "$t1")
		echo "| getdents of a pid directory with one child: time with $n2 / with $n1 pid namespaces on the machine | ${r}x | <= 1.5x (flat, within noise) | $(verdict "$(le "$r" 1.5)") |"
	fi
	echo
	echo "## Listing every namespace"
	echo
	echo "Median wall time in seconds of each command in the guest, output to /dev/null"
	echo "(median of 5 runs; 3 when a run takes over 2 s, 1 over 10 s). Each container"
	echo "has its own pid, user, uts, ipc, net, mnt, cgroup and time namespaces; a chain"
	echo "of nested user and pid namespaces is there throughout. tree:"
	echo "\`lsnamespaces -J -o NS,TYPE,PNS,ONS\` (the root namespaces file); \`lsnamespaces -J\`:"
	echo "\`lsnamespaces -J -o NS,TYPE,NPROCS,PID,USER,COMMAND\`, lsns's default columns (the"
	echo "namespaces and members files, then the command line of each namespace's lowest PID)."
	echo
	echo "| Containers | Procs each | Namespaces | Processes | tree | \`lsnamespaces -J\` | \`lsnamespaces --proc -J\` | \`lsns -J\` | \`lsns -J -T\` | lsns / tree | lsns / listing | proc / listing | Listed: tree, listing, proc, lsns |"
	echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	awk '!/^#/ { printf "| %d | %d | %d | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.1fx | %.1fx | %.1fx | %s, %s, %s, %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $8 / $5, $8 / $6, $7 / $6, $10, $11, $12, $13 }' "$out/list.dat"
	echo
	echo "Namespaces: those in namespacefs (\`nsbench tree | wc -l\`). Listed: the namespaces"
	echo "in each command's output (the first run's; every tool may open 1,048,576 files)."
	echo "\`lsns\` shows only namespaces that a"
	echo "process is in; where \`lsnamespaces --proc -J\` lists fewer than \`lsnamespaces -J\`, its time is"
	echo "not that of the same work."
	echo
	echo "![enumeration time against the number of namespaces](enumeration.png)"
	echo
	echo "## Creation and destruction"
	echo
	echo "Namespaces created and destroyed per second: \`nsbench rate\`, a C loop; uts, ipc,"
	echo "net, mnt, cgroup, time: \`unshare\` in a loop (each drops the one before); pid:"
	echo "\`unshare\` and \`setns\` back; user and all: \`unshare\` in a child that exits (fork:"
	echo "the child alone). Each run times its loop in 20 equal blocks, and a guest's rate"
	echo "is that of its quickest block over its runs: under TCG the host's load only ever"
	echo "slows the guest down, so the quickest block is the figure it changes least. The"
	echo "kernels were booted one after the other, never at once, in $rounds alternating"
	echo "pairs (patched, then unpatched); a pair's ratio compares the two guests of one"
	echo "round, and the table gives the median of the pairs' ratios with their spread."
	echo
	echo "The fork row is the control: it makes no namespace, so a ratio other than 100%"
	echo "there is the host's doing. Creation is judged only if it lies within 5%."
	echo
	echo "| Type | N | Unpatched /s | Patched /s | Patched / unpatched | Spread of the pairs | |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | --- |"
	awk -v noisy="$noisy" '!/^#/ {
		v = ($1 == "fork") ? "control" : noisy ? "too noisy" : ($5 >= 0.97 ? "PASS" : "MISS")
		printf "| %s | %d | %.0f | %.0f | %.1f%% | %.1f-%.1f%% | %s |\n", $1, $2, $3, $4, $5 * 100, $6 * 100, $7 * 100, v
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
	echo
	echo "## A pid directory with one child"
	echo
	echo "\`nsbench readdir\`: opendir and readdir to the end of the directory of a pid"
	echo "namespace that has one child, with N pid namespaces held elsewhere: each run"
	echo "the median of 201 listings, the sizes alternating; the table gives the median"
	echo "of the runs."
	echo
	echo "| pid namespaces | Entries | Seconds (median) | Spread | Runs |"
	echo "| ---: | ---: | ---: | ---: | ---: |"
	awk '!/^#/ { printf "| %d | %d | %.6f | %.6f-%.6f | %d |\n", $1, $2, $3, $4, $5, $6 }' "$out/leaf.dat"
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
     a u 3:6 w lp lc 2 pt 7 dt 1 t 'lsnamespaces -J, P=$pmin', \
     b u 3:6 w lp lc 2 pt 6 dt 2 t 'lsnamespaces -J, P=$pmax', \
     a u 3:7 w lp lc 3 pt 7 dt 1 t 'lsnamespaces --proc -J, P=$pmin', \
     b u 3:7 w lp lc 3 pt 6 dt 2 t 'lsnamespaces --proc -J, P=$pmax', \
     a u 3:8 w lp lc 4 pt 7 dt 1 t 'lsns -J, P=$pmin', \
     b u 3:8 w lp lc 4 pt 6 dt 2 t 'lsns -J, P=$pmax'
EOF
else
	msg "bench: no gnuplot or no listing: no plot"
fi

msg "bench: done in $(since "$started"); $out/results.md:"
cat "$out/results.md"
