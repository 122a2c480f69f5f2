#!/bin/bash
# profile.sh FLAVOR SAMPLES COMMAND...: where the guest kernel spends its
# time while COMMAND runs, without perf in the guest (the guest kernels
# have no PERF_EVENTS): boots FLAVOR with QEMU's gdb server, starts
# COMMAND in the guest, and stops the guest SAMPLES times through gdb to
# read every vCPU's program counter; then prints the functions of
# build/kernel-FLAVOR/vmlinux by share of the samples, idle left out.
#
#   tools/bench/profile.sh lean 300 nsbench rate uts 8000000
#
# The samples fall where QEMU's TCG stops a vCPU, at the start of a
# translated block, so a function's share is that of its blocks: enough to
# compare two kernels running the same loop, not to count instructions.
# COMMAND must run for the whole sampling (each sample takes about half a
# second); NSFS_PROFILE_WAIT is how long to wait for the guest to boot
# first (20 s). Output: build/profile-FLAVOR/{pcs,report,guest.log}.
. "$(dirname "$0")/../pipeline/lib.sh"

flavor=${1:?usage: profile.sh FLAVOR SAMPLES COMMAND...}
samples=${2:?usage: profile.sh FLAVOR SAMPLES COMMAND...}
shift 2
(($#)) || die "usage: profile.sh FLAVOR SAMPLES COMMAND..."
[[ $samples =~ ^[1-9][0-9]*$ ]] || die "profile: SAMPLES must be a positive number"
command -v gdb >/dev/null || die "profile: needs gdb (apt-get install gdb)"
vmlinux=$BUILD/kernel-$flavor/vmlinux
[[ -f $vmlinux ]] || die "profile: no $vmlinux: run 'make kernel KERNEL=$flavor'"

out=$BUILD/profile-$flavor
mkdir -p "$out"
rm -f "$out/pcs" "$out/report"
NSFS_RUN_DIR=$out/run NSFS_EXAMPLES=0 NSFS_QEMU_ARGS="-s" NSFS_CMD="$*" \
	tools/pipeline/guest-run.sh cmd "$flavor" >"$out/guest.log" 2>&1 &
guest=$!
cleanup_kill "$guest"
sleep "${NSFS_PROFILE_WAIT:-20}"
for ((i = 0; i < samples; i++)); do
	kill -0 "$guest" 2>/dev/null || break
	timeout 10 gdb -q -batch -ex 'target remote :1234' -ex 'thread apply all p/x $pc' \
		-ex detach 2>/dev/null | sed -n 's/^\$[0-9]* = \(0x[0-9a-f]*\)$/\1/p' >>"$out/pcs" || true
done
((i == samples)) || msg "profile: the guest ended after $i samples of $samples"
wait "$guest" || die "profile: the guest failed; see $out/guest.log"

# Each pc to the function that holds it: the text symbols in address
# order, a binary search for each sample. Addresses are compared as
# strings of 16 hex digits (mawk has no strtonum).
nm -n "$vmlinux" | awk -v pcs="$out/pcs" '
$2 ~ /^[tTwW]$/ { addr[n] = $1; name[n++] = $3 }
END {
	while ((getline pc < pcs) > 0) {
		a = substr(pc, 3)
		while (length(a) < 16) a = "0" a
		lo = 0; hi = n - 1
		while (lo < hi) {
			mid = int((lo + hi + 1) / 2)
			if (addr[mid] <= a) lo = mid; else hi = mid - 1
		}
		f = name[lo]
		if (f ~ /^(default_idle|default_idle_call|pv_native_safe_halt|native_safe_halt|arch_cpu_idle|do_idle|cpuidle_idle_call|acpi_safe_halt|acpi_idle_do_entry)$/) { idle++; continue }
		count[f]++; total++
	}
	printf "%d samples in the kernel outside idle, %d idle\n", total, idle
	for (f in count)
		printf "%6d %5.1f%% %s\n", count[f], 100 * count[f] / total, f | "sort -rn"
}' >"$out/report"
head -n 40 "$out/report"
