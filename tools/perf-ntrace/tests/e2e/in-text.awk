# SPDX-License-Identifier: GPL-2.0-only
# How many of the addresses ("0x..." per line) lie in [lo, hi), both given
# as 16 hex digits like nm prints them (-v lo=... -v hi=...): compared as
# zero-padded text, which holds 64-bit kernel addresses exactly
# (scripts/perf-e2e-itrace.sh).
{ a = substr($1, 3); while (length(a) < 16) a = "0" a }
a >= lo && a < hi { n++ }
END { print n + 0 }
