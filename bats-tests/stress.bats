#!/usr/bin/env bats
# Stress and fuzz: tools/guest/nsstress.c churns namespaces of every type
# (nested pid and user chains, all eight at once, namespaces held by bind
# mounts and open files, setns into dying namespaces, anonymous mount
# namespaces) while readers in three mounts (the host's, a privileged
# container's, an unprivileged container's) list with random buffer sizes
# and positions, read in random sizes and at random offsets, stat,
# readlink, watch, and read files of namespaces that died under them.
# Every record read is checked against its file's format.
#
# STRESS_SECONDS (default 120) sets the length of the run, STRESS_SEED
# replays a run (its seed is printed first).

load helpers/common
load helpers/ns

DURATION=${STRESS_SECONDS:-120}
# What a run of 120 s on the debug kernel must reach at least.
MIN_OPS=${STRESS_MIN_OPS:-200000}
MIN_CREATED=${STRESS_MIN_CREATED:-20000}

registry() {
	cat "$NSFS/namespaces"
}

same_registry() {
	[[ $(registry) == "$1" ]]
}

# The registry has stopped changing: namespaces of earlier tests whose
# teardown is asynchronous (network namespaces) are gone.
settled() {
	local a
	a=$(registry)
	read -rt 0.5 <> <(:) || :
	same_registry "$a"
}

@test "nsstress: writers churn every type, readers in three mounts check every record; the registry ends as it began" {
	wait_until 60 settled
	before=$(registry)
	seed=()
	[[ -n ${STRESS_SEED-} ]] && seed=(-s "$STRESS_SEED")

	run timeout $((DURATION + 300)) nsstress -t "$DURATION" "${seed[@]}" "$NSFS"
	sed 's/^/# /' <<<"$output" >&3
	refute_output --partial FAIL:
	assert_success

	# The figures: at least MIN_CREATED namespaces, MIN_OPS file operations
	# (scaled to the run's length).
	[[ ${lines[-1]} =~ ([0-9]+)\ namespaces\ created,\ ([0-9]+)\ file\ operations ]]
	created=${BASH_REMATCH[1]} ops=${BASH_REMATCH[2]}
	((created >= MIN_CREATED * DURATION / 120)) ||
		fail "$created namespaces created, fewer than $((MIN_CREATED * DURATION / 120))"
	((ops >= MIN_OPS * DURATION / 120)) ||
		fail "$ops file operations, fewer than $((MIN_OPS * DURATION / 120))"

	# Held namespaces are released when the writers end; teardown lags.
	wait_until 120 same_registry "$before"
	if [[ -w /sys/kernel/debug/kmemleak ]]; then
		echo scan >/sys/kernel/debug/kmemleak
		run cat /sys/kernel/debug/kmemleak
		assert_output ""
	fi
}
