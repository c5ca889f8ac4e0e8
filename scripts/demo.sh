#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The main job on the default platform: boot the riscv64 guest on QEMU with
# the N-Trace hardware model (encoder + RAM sink) and CTR, load the modules
# and print what they discovered (SBI PMU, perf PMUs, the ntrace PMU's caps,
# and "perf ntrace info": the components and the E-Trace discovery names),
# then record a program twice in the guest --
#   perf record -e ntrace/htm=1,iret=1,ts=1/u   (instruction trace, AUX area)
#   perf record -b -e cycles:u                  (CTR branch stacks)
# -- carry both perf.data files out and read them on the host: perf itself
# decodes the trace (perf report with every retired instruction per
# function, perf script --itrace=b with branch flags and trace time, the
# call trace), perf-ntrace gives the trace's statistics, and the branch
# stacks' targets are counted per function.
# Usage: scripts/demo.sh [CONFIG]   (default ntrace-ctr; see scripts/guest.sh)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

config=${1:-ntrace-ctr}
iters=16384		# fdo_bench iterations traced by N-Trace
ctr_iters=262144	# and sampled with branch stacks

bash "$NTRACE_TOP/scripts/deps.sh" >&2 || die "dependency installation failed"
out=$NTRACE_TOP/build/demo
rm -rf "$out" && mkdir -p "$out/root/usr/bin"
make -s -C "$NTRACE_TOP/tools/perf-ntrace" all >&2 || die "perf-ntrace does not build"
pn=$NTRACE_TOP/build/perf-ntrace/perf-ntrace
make -s -C "$NTRACE_TOP" guest-progs >&2 || die "cannot build the demo program"
prog=$out/root/usr/bin/fdo_bench
cp "$NTRACE_TOP/build/guest-progs/fdo_bench" "$prog"

guest_rc=0
guest_run "$out" "$config" --mode demo --add "$prog=/usr/bin/fdo_bench" \
	--export "$out/export" --timeout 600 <<EOF || guest_rc=$?
# scripts/demo.sh
/usr/bin/perf ntrace info >/tmp/export/info.out
/usr/bin/perf record -e ntrace/htm=1,iret=1,ts=1/u -o /tmp/export/ntrace.data -- /usr/bin/fdo_bench $iters >/tmp/export/ntrace.out
/usr/bin/perf record -b -e cycles:u -c 20011 -o /tmp/export/ctr.data -- /usr/bin/fdo_bench $ctr_iters >/tmp/export/ctr.out
/usr/bin/perf script -F ip,brstack -i /tmp/export/ctr.data >/tmp/export/ctr.script
EOF
[ "$guest_rc" != 2 ] || die "cannot build the initramfs"

# function name of each address: a sorted symbol table and a binary search
symbolize() {	# FIELD: column of stdin holding a hex address -> counts per function
	awk -v f="$1" -f "$NTRACE_TOP/tools/autofdo/hex.awk" -f "$NTRACE_TOP/scripts/demo-symbolize.awk" \
		<("${CROSS_COMPILE}nm" -n --defined-only "$prog") - | sort -rn | head -6
}

x=$out/export
if [ -s "$x/info.out" ]; then
	echo "== N-Trace discovery: perf ntrace info, in the guest"
	cat "$x/info.out"
fi
if [ -s "$x/ntrace.data" ]; then
	echo "== N-Trace: perf record -e ntrace/htm=1,iret=1,ts=1/u -- fdo_bench $iters, decoded on the host"
	cat "$x/ntrace.out" 2>/dev/null || true
	"$pn" decode --root "$out/root" --format=stats "$x/ntrace.data" |
		grep -E '^(instructions|bytes|bits_per_instruction|errors|taken|indirect|implicit_returns|syncs):'
	if perf=$(bash "$NTRACE_TOP/scripts/perf.sh" --host); then
		ps() { "$perf" script -i "$x/ntrace.data" --symfs "$out/root" "$@"; }
		echo "-- perf report --itrace=i1i --sort sym (every retired instruction, exact):"
		"$perf" report -i "$x/ntrace.data" --symfs "$out/root" --itrace=i1i --stdio \
			--sort sym 2>/dev/null | grep '%' | head -6
		echo "-- perf script --itrace=b -F +flags --ns (branch samples at trace time), from main:"
		ps --itrace=b -F time,flags,ip,sym,addr --ns 2>/dev/null |
			awk '/=> .* main$/ { on = 1 } on && n++ < 8'
		echo "-- perf script --call-trace, from main:"
		ps --call-trace 2>/dev/null | awk '/\t *main / { on = 1 } on && n++ < 6'
		# perf prints nothing for -F flags alone: take the ip off again
		echo "-- branch samples by kind: $(ps --itrace=b -F ip,flags 2>/dev/null |
			awk '{ sub(/ *[0-9a-f]+$/, ""); $1 = $1; c[$0]++ } END { for (k in c) printf "%s %d, ", k, c[k] }')"
	else
		echo "-- retired instructions per function (perf-ntrace; host perf did not build):"
		"$pn" decode --root "$out/root" --format=pc "$x/ntrace.data" | symbolize 1
	fi
fi
# picture URL PNG WIDTH,HEIGHT: the page as headless Chromium draws it
picture() {
	[ -n "${chrome:-}" ] || return 1
	rm -rf "$out/chrome" && mkdir -p "$out/chrome"
	timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --hide-scrollbars \
		--user-data-dir="$out/chrome" --allow-file-access-from-files \
		--virtual-time-budget=15000 --window-size="$3" --screenshot="$2" "$1" \
		>"$out/chrome.log" 2>&1 && [ -s "$2" ]
}
if [ -s "$x/ntrace.data" ]; then
	echo "== Views of the N-Trace recording (files in $x)"
	"$pn" decode --root "$out/root" --format=timeline -q -o "$x/ntrace-timeline.json" \
		"$x/ntrace.data" || echo "-- the timeline could not be written"
	"$pn" decode --root "$out/root" --format=flame-html -q -o "$x/ntrace-flame.html" \
		"$x/ntrace.data" || echo "-- the flame graph could not be written"
	pyscripts=
	if [ -n "${perf:-}" ]; then
		pyscripts=$("$perf" --exec-path)/scripts/python
		rm -f "$x/ntrace.db"
		"$perf" script -i "$x/ntrace.data" --symfs "$out/root" --itrace=cr \
			-s "$pyscripts/export-to-sqlite.py" \
			"$x/ntrace.db" branches calls >"$out/sqlite.log" 2>&1 ||
			echo "-- perf's export-to-sqlite.py failed ($out/sqlite.log)"
	fi
	# pictures, where a browser can be had (deps.sh --browser) and, for the
	# timeline, speedscope (npm)
	chrome=
	if bash "$NTRACE_TOP/scripts/deps.sh" --browser >"$out/browser.log" 2>&1; then
		chrome=$(command -v chromium || :)
	fi
	[ -s "$x/ntrace-flame.html" ] &&
		picture "file://$x/ntrace-flame.html" "$x/ntrace-flame.png" 1400,1500 ||
		echo "-- no picture of the flame graph (chromium: ${chrome:-none}; $out/browser.log)"
	if [ -s "$x/ntrace-timeline.json" ] && ss=$(bash "$NTRACE_TOP/scripts/speedscope.sh"); then
		# speedscope's own way to open a local file: a script that hands
		# it the bytes, named in the page's address
		python3 -c 'import base64, json, sys
print("speedscope.loadFileFromBase64(%s, %s)" % (json.dumps("ntrace-timeline.json"),
      json.dumps(base64.b64encode(open(sys.argv[1], "rb").read()).decode())))' \
			"$x/ntrace-timeline.json" >"$x/ntrace-timeline.js"
		picture "file://$ss#localProfilePath=$x/ntrace-timeline.js" "$x/ntrace-timeline.png" \
			1600,900 || echo "-- no picture of the timeline (chromium: ${chrome:-none})"
	else
		ss=
		echo "-- no timeline viewer (speedscope through npm) for a picture"
	fi
	for f in ntrace-timeline.json ntrace-flame.html ntrace.db ntrace-flame.png ntrace-timeline.png; do
		[ -s "$x/$f" ] && printf '%-22s %9d bytes\n' "$f" "$(stat -c %s "$x/$f")"
	done
	echo "-- open them:"
	echo "   chromium $x/ntrace-flame.html"
	[ -z "$ss" ] ||
		echo "   chromium --allow-file-access-from-files '$ss#localProfilePath=$x/ntrace-timeline.js'"
	echo "   (or load $x/ntrace-timeline.json into https://ui.perfetto.dev or speedscope)"
	if [ -s "$x/ntrace.db" ]; then
		echo "   $perf script -s $pyscripts/exported-sql-viewer.py $x/ntrace.db"
		echo "   sqlite3 $x/ntrace.db 'select count(*) from calls'"
	fi
fi
if [ -s "$x/ctr.script" ]; then
	echo "== CTR: perf record -b -e cycles:u -- fdo_bench $ctr_iters"
	cat "$x/ctr.out" 2>/dev/null || true
	echo "samples: $(grep -c . "$x/ctr.script"), branch records: $(tr ' ' '\n' <"$x/ctr.script" | grep -c /)"
	echo "-- branch targets per function (sampled branch stacks):"
	tr ' ' '\n' <"$x/ctr.script" | awk -F/ 'NF >= 2 { print $2 }' | symbolize 1
fi
exit "$guest_rc"
