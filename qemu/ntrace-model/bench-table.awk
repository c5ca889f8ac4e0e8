# SPDX-License-Identifier: GPL-2.0-only
# The table of qemu/ntrace-model/bench.sh for one workload: n instructions
# in k blocks; CPU seconds plain (p), with the empty per-block callback
# plugin (c), model loaded but off (o), tracing BTM (b), HTM (h), and with
# timestamps (bt, ht); records and bytes of each traced run (br/bb, hr/hb,
# btr/btb, htr/htb).
BEGIN {
	printf "  %-34s %7s %8s %9s %10s %9s\n", "case", "cpu s", "MIPS", "slowdown",
		"bits/insn", "ns/block"
	printf "  %-34s %7.2f %8.1f %8.2fx %10s %9.1f\n", "plain QEMU (baseline)", p,
		n / p / 1e6, 1, "", p / k * 1e9
	printf "  %-34s %7.2f %8.1f %8.2fx %10s %9.1f\n", "empty per-block callback plugin",
		c, n / c / 1e6, c / p, "", (c - p) / k * 1e9
	printf "  %-34s %7.2f %8.1f %8.2fx %10s %9.1f\n", "model loaded, tracing off", o,
		n / o / 1e6, o / p, "", (o - p) / k * 1e9
	printf "  %-34s %7.2f %8.1f %8.2fx %10.3f %9.1f\n", "tracing on, BTM", b, n / b / 1e6,
		b / p, bb * 8 / br, (b - p) / k * 1e9
	printf "  %-34s %7.2f %8.1f %8.2fx %10.3f %9.1f\n", "tracing on, HTM", h, n / h / 1e6,
		h / p, hb * 8 / hr, (h - p) / k * 1e9
	printf "  %-34s %7.2f %8.1f %8.2fx %10.3f %9.1f\n", "tracing on, BTM + timestamps", bt,
		n / bt / 1e6, bt / p, btb * 8 / btr, (bt - p) / k * 1e9
	printf "  %-34s %7.2f %8.1f %8.2fx %10.3f %9.1f\n", "tracing on, HTM + timestamps", ht,
		n / ht / 1e6, ht / p, htb * 8 / htr, (ht - p) / k * 1e9
	print "  (ns/block: CPU time over plain QEMU per executed block)"
}
