# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# TAP result lines for the test scripts (sourced by lib.sh). scripts/test.sh
# counts the lines "ok ", "not ok " and "ok ... # SKIP" (tap-count.awk), so
# every result goes through these and stays one line.
#   TAP_PREFIX   text after "ok - " on every line, e.g. "perf-e2e: "
#   TAP_FAILED   how many "not ok" lines were printed
#   TAP_TAIL=N   check shows only the last N lines of a command's output,
#                as comments after its result (default: all, as it comes)
TAP_PREFIX=
TAP_FAILED=0

# A line break in a name would end the TAP line early.
ok() { local _tap_m="$*"; echo "ok - $TAP_PREFIX${_tap_m//$'\n'/ }"; }
not_ok() {
	local _tap_m="$*"
	TAP_FAILED=$((TAP_FAILED + 1))
	echo "not ok - $TAP_PREFIX${_tap_m//$'\n'/ }"
}
skip() { ok "$1 # SKIP $2"; }	# NAME WHY
# todo NAME WHY: a known failure, shown but not counted as failed
todo() { local _tap_m="$1"; echo "not ok - $TAP_PREFIX${_tap_m//$'\n'/ } # TODO $2"; }

# check NAME CMD...: ok when CMD succeeds. CMD starts with the caller's $?,
# so "cmd; check NAME eval '[ \$? = 2 ]'" tests cmd's exit status.
# (Local names with a prefix: an eval'd CMD sees them.)
check() {
	local _tap_st=$? _tap_name=$1 _tap_out
	shift
	if [ -z "${TAP_TAIL:-}" ]; then
		if tap_return "$_tap_st"; "$@"; then ok "$_tap_name"; else not_ok "$_tap_name"; fi
		return 0
	fi
	if _tap_out=$(tap_return "$_tap_st"; "$@" 2>&1); then
		ok "$_tap_name"
	else
		not_ok "$_tap_name"
	fi
	[ -z "$_tap_out" ] || printf '%s\n' "$_tap_out" | tail -n "$TAP_TAIL" | sed 's/^/# /'
}
tap_return() { return "$1"; }

# Exit status of a test script: 1 if anything failed.
tap_status() { [ "$TAP_FAILED" -eq 0 ]; }
