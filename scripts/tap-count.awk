# SPDX-License-Identifier: GPL-2.0-only
# "PASSED FAILED SKIPPED" of the flat TAP lines in the input (scripts/test.sh):
# "ok ... # SKIP" is a skip, "not ok ... # TODO" a known failure (not counted
# as failed), every other "ok "/"not ok " line a pass/failure.
/^ok /     { if ($0 ~ /# *SKIP/) s++; else p++ }
/^not ok / { if ($0 ~ /# *TODO/) s++; else f++ }
END { print p + 0, f + 0, s + 0 }
