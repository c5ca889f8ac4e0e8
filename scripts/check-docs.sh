#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Every reStructuredText document of the project parses without a warning
# (malformed tables, short title lines, broken references), one TAP line
# per file. Uses Debian's python3-docutils through /usr/bin/python3, so a
# Python environment of the user's own does not change the result. Then
# the device-tree binding and the model's device trees through dt-schema
# (check-dt-binding.sh).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$NTRACE_TOP"

py=/usr/bin/python3
TAP_PREFIX="docs: "
if ! "$py" -c 'import docutils' 2>/dev/null; then
	not_ok "python3-docutils is missing (scripts/deps.sh installs it)"
	exit 0
fi
git ls-files '*.rst' | while read -r f; do
	out=$("$py" - "$f" <<'PY' 2>&1
import sys
import docutils.core
src = open(sys.argv[1], encoding="utf-8").read()
docutils.core.publish_string(src, source_path=sys.argv[1], writer_name="null",
                             settings_overrides={"report_level": 2, "halt_level": 5})
PY
)
	if [ -z "$out" ]; then
		ok "$f"
	else
		not_ok "$f"
		printf '%s\n' "$out" | head -4 | sed 's/^/# /'
	fi
done
bash "$NTRACE_TOP/scripts/check-dt-binding.sh"
