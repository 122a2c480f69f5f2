# Shared by the bats tests: `load helpers/common` from a file of the suite,
# `load /tests/suite/helpers/common` from a test of your own (make check
# TESTS=...), which runs from /tests/custom/.

bats_load_library bats-support
bats_load_library bats-assert
bats_load_library bats-file

# wait_until TIMEOUT_SECONDS CMD...
#
# Run CMD every 0.1 s until it succeeds; fail the test if it still fails
# after TIMEOUT_SECONDS (a whole or decimal number). For effects that
# arrive asynchronously: never sleep for a fixed time instead.
wait_until() {
	local timeout=${1-}
	if [[ ! $timeout =~ ^([0-9]+)(\.([0-9]{1,6}))?$ || $# -lt 2 ]]; then
		fail "usage: wait_until TIMEOUT_SECONDS CMD... (got: $*)"
		return
	fi
	shift
	local frac=${BASH_REMATCH[3]}000000
	local now deadline
	now=${EPOCHREALTIME//[!0-9]/}
	deadline=$((now + 10#${BASH_REMATCH[1]} * 1000000 + 10#${frac:0:6}))
	until "$@"; do
		now=${EPOCHREALTIME//[!0-9]/}
		if ((now >= deadline)); then
			fail "wait_until: still failing after $timeout s: $*"
			return
		fi
		sleep 0.1
	done
}
