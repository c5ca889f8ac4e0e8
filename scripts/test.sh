#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run every ntrace test suite and print one summary line:
#   N passed, N failed, N skipped
# Each suite is a command printing flat TAP result lines ("ok - name",
# "not ok - name", "ok - name # SKIP why"); everything else it prints goes
# to its log under build/test-logs/. A suite that exits non-zero without
# reporting a failure counts as one failure.
# Usage: scripts/test.sh [SUITE...]   (default: all suites)
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$NTRACE_TOP"

# name | command
SUITES=(
	"host|make -s -C tools/perf-ntrace test"
	"kernel-checks|scripts/check-kernel.sh"
	"docs|scripts/check-docs.sh"
	"guest|scripts/guest-tests.sh"
	"autofdo|scripts/fdo-programs-test.sh; scripts/autofdo.sh --test; scripts/autofdo-compare.sh --test"
	"model|make -s -C qemu/ntrace-model test"
	"perf|scripts/check-perf.sh"
	"harden|scripts/harden.sh"
	"perf-e2e|scripts/perf-e2e.sh; scripts/perf-e2e-sram.sh; scripts/perf-e2e-cpuwide.sh; scripts/perf-e2e-cpuwide.sh --config ntrace-funnel2-smp4; scripts/perf-e2e-cpuwide.sh --config ntrace-upstream-dt-funnel-smp2; scripts/perf-e2e-p550.sh; NTRACE_CPUWIDE_ONLY=t scripts/perf-e2e-cpuwide.sh --config ntrace-p550-hartmap"
)

# a suite name that is not known is a mistake, not a run of nothing
for want_name in "$@"; do
	known=0
	for entry in "${SUITES[@]}"; do
		[ "${entry%%|*}" = "$want_name" ] && known=1
	done
	[ "$known" = 1 ] || die "unknown suite '$want_name' (suites: $(printf '%s ' "${SUITES[@]%%|*}"))"
done

bash scripts/deps.sh || die "dependency installation failed"

logs=$NTRACE_TOP/build/test-logs
mkdir -p "$logs"
want=" $* "
pass=0 fail=0 skip=0
failed_lines=() times=()
for entry in "${SUITES[@]}"; do
	name=${entry%%|*} cmd=${entry#*|}
	[ $# -eq 0 ] || [[ $want == *" $name "* ]] || continue
	echo "=== suite $name: $cmd"
	start=$SECONDS
	bash -c "$cmd" >"$logs/$name.log" 2>&1
	rc=$?
	read -r p f s < <(awk -f "$NTRACE_TOP/scripts/tap-count.awk" "$logs/$name.log")
	grep -E '^(not )?ok ' "$logs/$name.log" | sed "s/^/  [$name] /"
	while IFS= read -r line; do
		failed_lines+=("  [$name] $line")
	done < <(grep -E '^not ok ' "$logs/$name.log" | grep -Ev '# *TODO')	# as tap-count.awk
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "  [$name] not ok - suite exited with status $rc; log tail:"
		tail -20 "$logs/$name.log" | sed 's/^/    /'
		f=$((f + 1))
		failed_lines+=("  [$name] not ok - suite exited with status $rc")
	fi
	echo "=== suite $name: $p passed, $f failed, $s skipped ($((SECONDS - start)) s)"
	times+=("$name $p/$f $((SECONDS - start))s")
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
done
# A CI log is often read from its tail only: repeat there what failed and
# where the time went, so that the last lines say everything.
echo "=== recap: ${times[*]}"
if [ "${#failed_lines[@]}" -gt 0 ]; then
	echo "=== the ${#failed_lines[@]} failure(s), again:"
	printf '%s\n' "${failed_lines[@]}"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
