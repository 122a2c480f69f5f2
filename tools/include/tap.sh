# tap.sh: what the host test scripts share (tools/lsnamespaces/tests/run.sh,
# tools/pipeline/tests/run.sh). Sourced: TAP-like lines, "ok - NAME" or
# "not ok - NAME" with the detail indented under it, and a closing count.
passed=0
failed=0
skipped=0
pass() {
	passed=$((passed + 1))
	echo "ok - $1"
}
# fail NAME [DETAIL]
fail() {
	failed=$((failed + 1))
	echo "not ok - $1"
	if [[ ${2-} ]]; then
		printf '#   %s\n' "${2//$'\n'/$'\n'#   }"
	fi
}
# skip NAME REASON
skip() {
	skipped=$((skipped + 1))
	echo "ok - $1 # skip $2"
}
# summary: the closing line; exits 0 if nothing failed.
summary() {
	echo "$passed passed, $failed failed, $skipped skipped"
	((failed == 0))
	exit
}
