#!/bin/bash
# guest-run.sh MODE FLAVOR: boot build/kernel-FLAVOR with build/initramfs.cpio.gz
# under QEMU and do MODE in the guest (see guest-rootfs/init):
#
#   check  run the bats tests, print the TAP and "N passed, N failed"
#   cmd    run NSFS_CMD, print its output, exit with its status
#   run    interactive shell on this terminal
#
# Settings come from the environment (the Makefile sets them):
#   NSFS_TESTS      bats files or directories to run instead of the suite:
#                   copied in to /tests/custom/, except those of bats-tests/,
#                   which run from the suite's copy in /tests/suite/
#   NSFS_CMD        the command of cmd mode
#   NSFS_BATS_ARGS  extra bats options, split at white space
#   NSFS_TIMEOUT    seconds before check and cmd runs are killed (3600)
#   NSFS_KVM        1: -accel kvm instead of tcg
#   NSFS_RUN_DIR    where the console log and results go (build/run); a
#                   second directory lets two guests run at once
#   NSFS_MEMORY     guest memory, as QEMU's -m takes it (1G lean, 2G debug)
#   NSFS_EXAMPLES   0: cmd mode does not start the example containers
#   NSFS_KERNEL_IMAGE  boot this bzImage instead of FLAVOR's (FLAVOR then
#                   only sets the memory and the command line)
#   NSFS_QEMU_ARGS  more QEMU options, split at white space (e.g. "-s" for
#                   a gdb server on port 1234, to look at the guest kernel)
#   NSFS_OWN_REPORTS  console lines (an extended regex) that the caller
#                   judges itself rather than as a splat (check-series.sh
#                   takes "BUG: KCSAN:" reports and keeps those in the
#                   series' code)
#
# Exit status: 0 success; 1 a test failed, no test ran, or the guest ended
# early (in cmd mode: the command's own status); 2 the guest timed out;
# 3 the console shows a kernel splat.
. "$(dirname "$0")/lib.sh"

mode=${1:?usage: guest-run.sh check|cmd|run debug|lean|unpatched|kcsan}
flavor=${2:?usage: guest-run.sh check|cmd|run debug|lean|unpatched|kcsan}
case $mode in check | cmd | run) ;; *) die "guest-run.sh: unknown mode '$mode'" ;; esac
flavor_fragments "$flavor" >/dev/null
timeout=${NSFS_TIMEOUT:-3600}
[[ $timeout =~ ^[0-9]+$ ]] || die "TIMEOUT=$timeout: expected a number of seconds"

kernel=${NSFS_KERNEL_IMAGE:-$BUILD/kernel-$flavor/arch/x86/boot/bzImage}
initramfs=$BUILD/initramfs.cpio.gz
[[ -f $kernel ]] || die "no $kernel: run 'make kernel KERNEL=$flavor'"
[[ -f $initramfs ]] || die "no $initramfs: run 'make initramfs'"

run=${NSFS_RUN_DIR:-$BUILD/run}
console=$run/console.log
results=$run/results.tap
mkdir -p "$run"
exec 9>"$run/.lock"
flock -n 9 || die "$run is in use by another 'make check' or 'make run'"
rm -f "$console" "$results" "$run"/*.cpio.gz

# The overlay: /etc/guest-run.conf, the command, the tests of TESTS.
rm -rf "$run"/overlay.*
stage=$(mktemp -d "$run/overlay.XXXXXX")
cleanup_add "$stage"
mkdir -p "$stage/etc"

guest_tests=()
read -ra tests <<<"${NSFS_TESTS-}"
if ((${#tests[@]})); then
	mkdir -p "$stage/tests/custom"
	declare -A taken=()
	for t in "${tests[@]}"; do
		[[ -e $t ]] || die "TESTS: $t does not exist"
		real=$(realpath "$t")
		# Files of the suite are in the initramfs already, next to the
		# helpers they load.
		if [[ $real == "$ROOT/bats-tests" || $real == "$ROOT"/bats-tests/* ]]; then
			guest_tests+=("/tests/suite${real#"$ROOT/bats-tests"}")
			continue
		fi
		name=$(basename "$real")
		base=$name
		for ((i = 2; ${taken[$name]-0}; i++)); do name=$base-$i; done
		taken[$name]=1
		if [[ -d $t ]]; then
			cp -rL "$t" "$stage/tests/custom/$name"
		else
			cp -L "$t" "$stage/tests/custom/$name"
		fi
		guest_tests+=("/tests/custom/$name")
	done
	# Readable by the test users too.
	chmod -R u+rwX,go+rX,go-w "$stage/tests"
fi
[[ $mode == cmd ]] && printf '%s\n' "${NSFS_CMD-}" >"$stage/etc/guest-cmd"

guest_term=linux
[[ ${TERM-} && -f /usr/lib/terminfo/${TERM:0:1}/$TERM ]] && guest_term=$TERM
rows= cols=
if [[ $mode == run && -t 0 ]]; then
	read -r rows cols < <(stty size 2>/dev/null) || true
fi
{
	printf 'MODE=%q\n' "$mode"
	printf 'TESTS=%q\n' "${guest_tests[*]}"
	printf 'BATS_ARGS=%q\n' "${NSFS_BATS_ARGS-}"
	printf 'ROWS=%q COLS=%q GUEST_TERM=%q\n' "$rows" "$cols" "$guest_term"
	printf 'EXAMPLES=%q\n' "${NSFS_EXAMPLES:-1}"
} >"$stage/etc/guest-run.conf"
chmod -R u+rwX,go+rX,go-w "$stage"
(cd "$stage" && find . -mindepth 1 -printf '%P\n' | LC_ALL=C sort |
	cpio -o -H newc -R 0:0 --quiet) | gzip -n -1 >"$run/overlay.cpio.gz"
# The kernel unpacks concatenated archives one after the other.
cat "$initramfs" "$run/overlay.cpio.gz" >"$run/run.cpio.gz"

append="console=ttyS0 panic=-1"
memory=1G
if [[ $flavor == debug ]]; then
	append+=" panic_on_warn=1"
	memory=2G
fi
memory=${NSFS_MEMORY:-$memory}
[[ $mode == run ]] && append+=" quiet"
accel=tcg
[[ ${NSFS_KVM-} == 1 ]] && accel=kvm
qemu=(qemu-system-x86_64 -accel "$accel" -m "$memory" -smp 2 -nographic -no-reboot -nic none
	-kernel "$kernel" -initrd "$run/run.cpio.gz" -append "$append")
read -ra more <<<"${NSFS_QEMU_ARGS-}"
qemu+=("${more[@]}")

if [[ $mode == run ]]; then
	msg "guest: $flavor kernel, $accel; Ctrl-A x kills QEMU"
	"${qemu[@]}" -serial mon:stdio -serial "file:$results"
	exit 0
fi

# check and cmd: the kernel log to one file, the guest's results to the
# other, which is shown while it grows.
case $mode in
check) what="TESTS (${#guest_tests[@]} path$( ((${#guest_tests[@]} == 1)) || echo s))" ;;&
check) ((${#guest_tests[@]})) || what="the suite" ;;
cmd) what="the command" ;;
esac
msg "guest: $flavor kernel, $accel, running $what (timeout $timeout s, console: $console)"
: >"$results"
start=$SECONDS
timeout --foreground -k 10 "$timeout" "${qemu[@]}" -monitor none \
	-serial "file:$console" -serial "file:$results" </dev/null &
qemu_pid=$!
# QEMU runs in the background, where Ctrl-C does not reach it.
trap 'kill "$qemu_pid" 2>/dev/null; wait "$qemu_pid" 2>/dev/null; exit 130' INT TERM HUP
if [[ $mode == check ]]; then
	tail -n +1 -s 0.2 -f --pid="$qemu_pid" "$results" | grep --line-buffered -v '^# guest-done' &
else
	# Hold each line back until the next one arrives: the marker and the
	# newline the guest put before it are not the command's output.
	# A bash loop, not awk: mawk reads a pipe in blocks, so the output
	# would come in bursts.
	tail -n +1 -s 0.2 -f --pid="$qemu_pid" "$results" | {
		have=0 done=0 held=
		while IFS= read -r line || [[ $line ]]; do
			((done)) && continue
			if ((have)) && [[ $line =~ ^#\ guest-exit\ [0-9]+$ ]]; then
				printf '%s' "$held"
				have=0 done=1
				continue
			fi
			((have)) && printf '%s\n' "$held"
			held=$line have=1
		done
		((have)) && printf '%s\n' "$held"
	} &
fi
show_pid=$!
qemu_status=0
wait "$qemu_pid" || qemu_status=$?
wait "$show_pid" || true
elapsed=$((SECONDS - start))

status=0
problems=()
# fail STATUS MESSAGE: the worst status wins (splat 3, timeout 2, 1).
fail() {
	problems+=("$2")
	(($1 > status)) && status=$1
	return 0
}

if ((qemu_status == 124 || qemu_status == 137)); then
	fail 2 "guest timed out after $timeout s"
fi

splat_re='BUG:|WARNING:|KASAN:|UBSAN:|possible circular locking|possible recursive locking|inconsistent lock state|lock held when returning|suspicious RCU usage|sleeping function called from invalid context|unreferenced object|Kernel panic|Oops|general protection fault|INFO: task .* blocked'
splat=$(grep -aE "$splat_re" "$console" 2>/dev/null | tr -d '\r' |
	{ if [[ ${NSFS_OWN_REPORTS-} ]]; then grep -avE "$NSFS_OWN_REPORTS"; else cat; fi; } | head -n 20 || true)
if [[ $splat ]]; then
	printf '%s\n' "$splat" | sed 's/^/console: /' >&2
	kinds=$(grep -oE "$splat_re" <<<"$splat" | sed 's/INFO: task .* blocked/INFO: task blocked/' | awk '!seen[$0]++' | paste -sd, | sed 's/,/, /g')
	fail 3 "kernel splat on the console ($kinds)"
fi

if [[ $mode == cmd ]]; then
	marker=$(grep -aE '^# guest-exit [0-9]+$' "$results" | tail -n 1 || true)
	if [[ $marker ]]; then
		cmd_status=${marker##* }
	else
		((qemu_status == 124 || qemu_status == 137)) || fail 1 "guest ended before the command did"
		cmd_status=1
	fi
	if ((${#problems[@]})); then
		printf '==> make run CMD failed: %s; see %s\n' "$(IFS=';'; echo "${problems[*]}" | sed 's/;/; /g')" "$console" >&2
		exit $((status > cmd_status ? status : cmd_status))
	fi
	exit "$cmd_status"
fi

msg "guest: finished in $elapsed s"
passed=$(grep -acE '^ok ' "$results" || true)
skipped=$(grep -aciE '^ok .* # skip' "$results" || true)
failed=$(grep -acE '^not ok ' "$results" || true)
passed=$((passed - skipped))
done_line=$(grep -aE '^# guest-done' "$results" | tail -n 1 || true)

((failed)) && fail 1 "$failed test$( ((failed == 1)) || echo s) failed"
((passed + failed + skipped == 0)) && fail 1 "no test ran"
if [[ -z $done_line ]]; then
	((qemu_status == 124 || qemu_status == 137)) || fail 1 "guest ended early"
elif [[ ${done_line##* } != 0 && $failed == 0 ]] && ((passed + skipped)); then
	fail 1 "bats exited with status ${done_line##* }"
fi

if ((${#problems[@]})); then
	printf '==> check failed: %s; see %s\n' "$(IFS=';'; echo "${problems[*]}" | sed 's/;/; /g')" "$console" >&2
fi
summary="$passed passed, $failed failed"
((skipped)) && summary+=", $skipped skipped"
echo "$summary"
exit "$status"
