# SPDX-License-Identifier: GPL-2.0-only
# The deepest call nesting of a record stream ("gt-tool ingress --print":
# address, size, instruction type per line), for tests/ground-truth.sh.
$3 == "dir_call" || $3 == "ind_call" { d++; if (d > m) m = d }
$3 == "return" { d-- }
END { print m + 0 }
