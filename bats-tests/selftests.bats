#!/usr/bin/env bats
# The kernel's own selftests for namespaces and /proc, from the same tree
# (tools/testing/selftests/{nsfs,timens,pid_namespace,proc,pidfd,clone3}, built by
# tools/pipeline/build-selftests.sh, in the guest under /usr/lib/kselftest): the
# series must not change how namespaces behaved before it.
#
# A selftest passes when it exits 0. It is skipped when it exits 4
# (KSFT_SKIP), or exits 0 having skipped every check it reports, with the
# reasons it printed. Anything else fails, with its output.
#
# The debug kernel has what they need (kernel-config/test.config): POSIX
# timers and an RTC (timens/timer, proc/proc-tid0), CHECKPOINT_RESTORE
# (kcmp() for pidfd_getfd_test).
#
# Left out:
#   timens/gettime_perf  a benchmark, not a test; not built.
#   clone3/clone3_cap_checkpoint_restore  casts libcap's opaque cap_t to
#                        the kernel's capability structures; Debian 12's
#                        libcap 2.66 lays cap_t out otherwise, the bits land
#                        elsewhere and cap_set_proc() fails with EPERM
#                        before the kernel's check begins (run in the guest:
#                        "cap_set_proc: Operation not permitted"). clone3_set_tid checks set_tid in nested pid
#                        namespaces.

# No helper library is loaded: bats loads them again for each test, and
# with them this file took 81 s in the lean guest instead of 54 s.

KSELFTEST=/usr/lib/kselftest
# Seconds a selftest may take before it counts as failed (the slowest,
# proc/read, took 46 s on the debug kernel).
KSELFTEST_TIMEOUT=300

# flunk MESSAGE: fail the test, MESSAGE in its output.
flunk() {
	printf '%s\n' "$1" >&2
	return 1
}

# skip_reasons: the reasons of the SKIP lines of $output ("ok 3 # SKIP
# why", "#  SKIP  why"), each once, on one line with "; " between them.
skip_reasons() {
	local line words reasons=() seen=$'\n'
	while IFS= read -r line; do
		[[ $line =~ SKIP[[:space:]]+(.*)$ ]] || continue
		read -ra words <<<"${BASH_REMATCH[1]}"
		line=${words[*]}
		[[ $seen == *$'\n'"$line"$'\n'* ]] && continue
		seen+=$line$'\n'
		reasons+=("$line")
	done <<<"$output"
	local IFS=';'
	echo "${reasons[*]}" | sed 's/;/; /g'
}

# run_group PROG [ARG...]: run PROG under timeout, in a session of its own, with its
# output in a file rather than a pipe, and set $status and $output as
# bats's run does. When it is done or killed (status 124 or 143), what is
# left of its session is killed too: a child it leaves behind
# (pidfd_test's) would otherwise hold the pipe of `run` open, and the test
# would never end.
run_group() {
	local out=$BATS_TEST_TMPDIR/selftest.out sid=$BATS_TEST_TMPDIR/selftest.sid
	status=0
	# shellcheck disable=SC2016
	setsid sh -c 'echo $$ >"$1"; shift; exec timeout "$@"' sh "$sid" \
		"$KSELFTEST_TIMEOUT" "$@" >"$out" 2>&1 </dev/null || status=$?
	kill -KILL -- "-$(cat "$sid")" 2>/dev/null || :
	output=$(cat "$out")
}

# kselftest DIR/PROG [REASON]: run a selftest in the test's temporary
# directory, with the arguments in KSELFTEST_ARGS, and pass, skip or fail
# by its exit status. REASON is the skip reason for a program that exits 4
# without printing one.
KSELFTEST_ARGS=()
kselftest() {
	local prog=$KSELFTEST/$1 reason
	if [ ! -x "$prog" ]; then
		flunk "$prog is not in the guest: run tools/pipeline/build-selftests.sh, then guest-rootfs/build.sh"
		return
	fi
	cd "$BATS_TEST_TMPDIR" || return
	run_group "$prog" "${KSELFTEST_ARGS[@]}"
	case $status in
	0)
		if grep -qE '^# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:[1-9][0-9]* error:0' <<<"$output"; then
			skip "every check skipped: $(skip_reasons)"
		fi
		;;
	4)
		reason=$(skip_reasons)
		skip "${reason:-${2:-exit status 4 (KSFT_SKIP), no reason printed}}"
		;;
	124 | 143)
		flunk "$(printf '%s was killed after %s s; its output:\n%s' "$1" "$KSELFTEST_TIMEOUT" "$output")"
		;;
	*)
		flunk "$(printf '%s exited with status %s; its output:\n%s' "$1" "$status" "$output")"
		;;
	esac
}

teardown() {
	cd /
	if [[ -f $BATS_TEST_TMPDIR/pid_max ]]; then
		cat "$BATS_TEST_TMPDIR/pid_max" >/proc/sys/kernel/pid_max
	fi
}

@test "selftest nsfs/owner: NS_GET_USERNS gives a namespace's owner" {
	kselftest nsfs/owner
}

@test "selftest nsfs/pidns: NS_GET_PARENT walks up pid namespaces" {
	kselftest nsfs/pidns
}

@test "selftest pid_namespace/regression_enomem: fork in a pid namespace whose init is gone fails with ENOMEM" {
	kselftest pid_namespace/regression_enomem
}

@test "selftest timens/timens: clocks are offset in a time namespace" {
	kselftest timens/timens
}

@test "selftest timens/timerfd: timerfd honours time namespace offsets" {
	kselftest timens/timerfd
}

@test "selftest timens/timer: posix timers honour time namespace offsets" {
	kselftest timens/timer
}

@test "selftest timens/clock_nanosleep: clock_nanosleep honours time namespace offsets" {
	kselftest timens/clock_nanosleep
}

@test "selftest timens/procfs: /proc/uptime and timens_offsets in a time namespace" {
	kselftest timens/procfs
}

@test "selftest timens/exec: a time namespace is entered at exec" {
	kselftest timens/exec
}

@test "selftest timens/futex: futex timeouts in a time namespace" {
	kselftest timens/futex
}

@test "selftest timens/vfork_exec: vfork and exec into a time namespace" {
	kselftest timens/vfork_exec
}

@test "selftest proc/setns-dcache: setns to another net namespace refreshes /proc/self/net" {
	kselftest proc/setns-dcache
}

@test "selftest proc/setns-sysvipc: setns to another ipc namespace refreshes /proc/sysvipc" {
	kselftest proc/setns-sysvipc
}

@test "selftest proc/proc-multiple-procfs: two procfs mounts are distinct" {
	kselftest proc/proc-multiple-procfs
}

@test "selftest proc/proc-subset-pid: a procfs mount with subset=pid" {
	kselftest proc/proc-subset-pid
}

@test "selftest proc/proc-fsconfig-hidepid: hidepid through the new mount API" {
	kselftest proc/proc-fsconfig-hidepid
}

@test "selftest proc/self: /proc/self gives the caller's tgid" {
	kselftest proc/self
}

@test "selftest proc/thread-self: /proc/thread-self gives the caller's tgid and tid" {
	kselftest proc/thread-self
}

@test "selftest proc/read: every file and link in /proc reads" {
	kselftest proc/read
}

@test "selftest proc/fd-001-lookup: /proc/*/fd lookups" {
	kselftest proc/fd-001-lookup
}

@test "selftest proc/fd-002-posix-eq: opening /proc/*/fd/* opens the same file" {
	kselftest proc/fd-002-posix-eq
}

@test "selftest proc/fd-003-kthread: a kernel thread's fd directory is empty" {
	kselftest proc/fd-003-kthread
}

@test "selftest proc/proc-2-is-kthread: a kernel thread is reported as one" {
	kselftest proc/proc-2-is-kthread
}

@test "selftest proc/proc-self-isnt-kthread: a user program is not reported as a kernel thread" {
	kselftest proc/proc-self-isnt-kthread
}

@test "selftest proc/proc-empty-vm: /proc/*/maps of a process without mappings" {
	kselftest proc/proc-empty-vm
}

@test "selftest proc/proc-pid-vm: /proc/PID/maps of a one-page program" {
	kselftest proc/proc-pid-vm
}

@test "selftest proc/proc-self-map-files-001: /proc/self/map_files" {
	kselftest proc/proc-self-map-files-001
}

@test "selftest proc/proc-self-map-files-002: /proc/self/map_files at low addresses" {
	kselftest proc/proc-self-map-files-002
}

@test "selftest proc/proc-self-syscall: /proc/self/syscall" {
	kselftest proc/proc-self-syscall
}

@test "selftest proc/proc-self-wchan: /proc/self/wchan" {
	kselftest proc/proc-self-wchan "no /proc/self/wchan in this kernel (the selftest exits 4 on ENOENT)"
}

@test "selftest proc/proc-loadavg-001: /proc/loadavg gives the last pid of the pid namespace" {
	kselftest proc/proc-loadavg-001
}

@test "selftest proc/proc-uptime-001: /proc/uptime and CLOCK_BOOTTIME increase together" {
	kselftest proc/proc-uptime-001
}

@test "selftest proc/proc-uptime-002: /proc/uptime increases across CPUs" {
	kselftest proc/proc-uptime-002
}

@test "selftest proc/proc-tid0: no thread of a pid namespace shows as tid 0" {
	kselftest proc/proc-tid0
}

# Its recycled-PID check forks in a new pid namespace until PID 1000 comes
# round again: pid_max forks (32,768), more than 300 s on the emulated
# debug kernel. With pid_max 1100 PID 1000 still comes round, after about
# 1,800 forks; teardown puts pid_max back.
@test "selftest pidfd/pidfd_test: pidfd_send_signal, also across pid namespaces and to a recycled PID" {
	cat /proc/sys/kernel/pid_max >"$BATS_TEST_TMPDIR/pid_max"
	echo 1100 >/proc/sys/kernel/pid_max
	kselftest pidfd/pidfd_test
}

@test "selftest pidfd/pidfd_fdinfo_test: a pidfd's Pid and NSpid in its fdinfo, from pid namespaces" {
	kselftest pidfd/pidfd_fdinfo_test
}

@test "selftest pidfd/pidfd_open_test: pidfd_open, and a pidfd's NSpid" {
	kselftest pidfd/pidfd_open_test
}

# Its rounds each fork a process whose leader exits before its thread:
# 1,000 of them rather than its default 10,000, which take 230 s on the
# emulated debug kernel. It does not touch pid namespaces.
@test "selftest pidfd/pidfd_poll_test: poll on a pidfd reports the exit, 1,000 rounds" {
	KSELFTEST_ARGS=(1000)
	kselftest pidfd/pidfd_poll_test
}

@test "selftest pidfd/pidfd_wait: waitid(P_PIDFD)" {
	kselftest pidfd/pidfd_wait
}

@test "selftest pidfd/pidfd_getfd_test: pidfd_getfd" {
	kselftest pidfd/pidfd_getfd_test
}

@test "selftest pidfd/pidfd_setns_test: setns through a pidfd into every namespace type" {
	kselftest pidfd/pidfd_setns_test
}

@test "selftest clone3/clone3: clone3 with namespace flags" {
	kselftest clone3/clone3
}

@test "selftest clone3/clone3_clear_sighand: CLONE_CLEAR_SIGHAND" {
	kselftest clone3/clone3_clear_sighand
}

@test "selftest clone3/clone3_set_tid: set_tid in nested pid namespaces" {
	kselftest clone3/clone3_set_tid
}
