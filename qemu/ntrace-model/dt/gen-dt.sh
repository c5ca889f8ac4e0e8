#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the guest device tree for the ntrace model: QEMU's own virt DT
# (-machine dumpdtb) plus a node per trace component of the model's
# topology (a trace encoder per hart; RAM sinks; trace funnels) in the
# "riscv,trace-component" binding (Documentation/devicetree/bindings/
# riscv/riscv,trace-component.yaml), linked by graph ports (a funnel's
# input port@N is its input N, bit N of trFunnelDisInput), and a no-map
# reserved-memory node over the register region (its size is the
# topology's, from the layout file) so Linux keeps that RAM to itself and
# the driver can ioremap the components. The SiFive pre-ratified
# topologies (p550, sifive-hart) are written as SiFive's RFC "rvtrace: Add
# SiFive pre-ratified trace device support" writes them:
# "sifive,trace-encoder0" (cpus, timestamp rate, and for p550 an out-port
# to the funnel's in-ports port@N) and "sifive,trace-funnel0" (in-ports
# only: its sink is in its own block); -f does not apply. Each encoder node
# states its timestamp rate (riscv,timestamp-frequency): the model's
# timestamp unit is fed by the platform timer, so it is /cpus'
# timebase-frequency.
#
# Where the components are and how they are linked is the plugin's
# (plugin/topology.c): the dump runs with the plugin loaded and its
# layout= file is what the nodes are made from.
#
# usage: gen-dt.sh -o OUT.dtb [-m MiB] [-s SMP] [-t TOPO] [-r REGBASE] [-f FORM]
#                   [-x IMPL] [-- QEMU-ARGS...]
#   -m, -s must match the QEMU run (defaults 512, 1); -t is the plugin's
#   topo= (hart, funnel, funnel2, p550, sifive-hart; default hart); REGBASE
#   defaults to the plugin's default, the register region at the end of RAM
#   (64 KiB; 0x110000 bytes for p550 and sifive-hart). QEMU-ARGS (e.g. -cpu ...) are
#   passed to the dump so the DT describes the same CPUs.
#   -f: how the nodes are written (every form the binding accepts):
#     ntrace      "qemu,ntrace-encoder", "riscv,trace-component" etc. (default)
#     upstream    "qemu,trace-component", "riscv,trace-component" on every
#                 node, as the upstream rvtrace binding and QEMU's E-Trace
#                 work write them: the type is only in tr??Impl
#     upstream-v1 the same with the encoder's hart in "cpu" (early versions)
#     pertype     "riscv,trace-encoder" / "riscv,trace-ramsink" /
#                 "riscv,trace-funnel" alone, as SpacemiT's DTs
#   -x IMPL: the plugin's foreign=IMPL, a component of another type (e.g.
#     0xe01, an ATB bridge) in a free block, written in the upstream form
#     (only tr??Impl tells what it is); the same must go to the QEMU run.
#   -p H0,H1,...: hart IDs that differ from Linux CPU numbers: Linux CPU N
#     is hart HN. Linux makes the boot hart CPU 0 and numbers the others in
#     the order of the /cpus children (arch/riscv/kernel/smpboot.c), so
#     the /cpus children are written in this order and H0 is made the only
#     hart OpenSBI may cold-boot from (/chosen/opensbi-config
#     cold-boot-harts; OpenSBI starts the next stage on that hart). Every
#     hart 0..SMP-1 once, e.g. 2,0,3,1 (CPU 0 is hart 2, as on the P550).
# Environment: NTRACE_MODEL_SO (plugin path, as run-qemu.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
so=${NTRACE_MODEL_SO:-$here/../../build/ntrace-model/ntrace-model.so}
mem=512 smp=1 out= regbase= topo=hart form=ntrace foreign= form_given= harts=
while getopts "o:m:s:r:t:f:x:p:" o; do
	case $o in
	o) out=$OPTARG ;;
	m) mem=$OPTARG ;;
	s) smp=$OPTARG ;;
	r) regbase=$OPTARG ;;
	t) topo=$OPTARG ;;
	f) form=$OPTARG form_given=1 ;;
	x) foreign=$OPTARG ;;
	p) harts=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = -- ] && shift
case $form in ntrace|upstream|upstream-v1|pertype) ;;
*) echo "gen-dt.sh: -f must be ntrace, upstream, upstream-v1 or pertype" >&2; exit 2 ;;
esac
[ -n "$out" ] || { echo "gen-dt.sh: -o OUT.dtb is required" >&2; exit 2; }
command -v dtc >/dev/null || { echo "gen-dt.sh: dtc not found (device-tree-compiler)" >&2; exit 1; }
[ -f "$so" ] || { echo "gen-dt.sh: no plugin at $so (make -C qemu/ntrace-model)" >&2; exit 1; }
[ "$smp" -ge 1 ] && [ "$smp" -le 8 ] || { echo "gen-dt.sh: -s must be 1..8 (model limit)" >&2; exit 2; }
if [ -n "$harts" ]; then
	# a permutation of 0..smp-1
	[ "$(tr , '\n' <<<"$harts" | sort -n | tr '\n' ' ')" = "$(seq -s ' ' 0 $((smp - 1))) " ] ||
		{ echo "gen-dt.sh: -p wants each hart 0..$((smp - 1)) once, comma-separated, got '$harts'" >&2; exit 2; }
fi
case $topo in
p550 | sifive-hart)
	[ -z "$form_given" ] || { echo "gen-dt.sh: -f does not apply to topology $topo (one form: SiFive's)" >&2; exit 2; }
	form=sifive ;;
esac
ram_base=$((0x80000000))
ram_size=$((mem * 1024 * 1024))

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
truncate -s "${mem}M" "$tmp/ram"
qemu-system-riscv64 -machine "virt,memory-backend=ram,dumpdtb=$tmp/virt.dtb" \
	-object "memory-backend-file,id=ram,size=${mem}M,mem-path=$tmp/ram,share=on" \
	-plugin "$so,ram=$tmp/ram${regbase:+,regs=$regbase},topo=$topo,layout=$tmp/layout${foreign:+,foreign=$foreign}" \
	-m "${mem}M" -smp "$smp" -nographic "$@" >"$tmp/log" 2>&1 ||
	{ cat "$tmp/log" >&2; exit 1; }
[ -s "$tmp/layout" ] || { echo "gen-dt.sh: the plugin wrote no layout" >&2; exit 1; }
# the register region's size is the topology's: the layout states it
region=$(sed -nE '1s/.*region=(0x[0-9a-f]+).*/\1/p' "$tmp/layout")
[ -n "$region" ] || { echo "gen-dt.sh: the layout states no region size" >&2; exit 1; }
region=$((region))
[ -n "$regbase" ] || regbase=$((ram_base + ram_size - region))
regbase=$((regbase))
dtc -q -I dtb -O dts -o "$tmp/virt.dts" "$tmp/virt.dtb"
if [ -n "$harts" ]; then
	# the /cpus children (tab-indented blocks "cpu@N {" ... "};" two
	# levels deep, as dtc writes them) again in the order of -p; their
	# phandles go with them, so cpu-map and the interrupt controllers'
	# users are unchanged
	awk -v order="$harts" '
	BEGIN { n = split(order, h, ",") }
	/^\tcpus \{/ { incpus = 1; print; next }
	incpus && /^\t\tcpu@[0-9a-f]+ \{/ {
		id = $1; sub(/^cpu@/, "", id); cur = id; blk[cur] = $0 "\n"; next
	}
	incpus && cur != "" {
		blk[cur] = blk[cur] $0 "\n"
		if ($0 ~ /^\t\t\};/) { cur = ""; nblk++ }
		next
	}
	incpus && /^$/ { next }
	incpus && nblk == n && /^\t\t[a-z]/ && !done {
		for (i = 1; i <= n; i++) printf "%s\n", blk[sprintf("%x", h[i])]
		done = 1
	}
	incpus && /^\t\};/ {
		if (!done) for (i = 1; i <= n; i++) printf "%s\n", blk[sprintf("%x", h[i])]
		done = 1; incpus = 0
	}
	{ print }
	END { if (nblk != n) { print "gen-dt.sh: found " nblk " cpu nodes, -p names " n > "/dev/stderr"; exit 1 } }
	' "$tmp/virt.dts" >"$tmp/virt-p.dts"
	mv "$tmp/virt-p.dts" "$tmp/virt.dts"
fi
grep -q 'reserved-memory' "$tmp/virt.dts" && rsv_exists=1 || rsv_exists=0
timebase=$(sed -nE 's/^[[:space:]]*timebase-frequency = <(0x[0-9a-f]+)>;/\1/p' "$tmp/virt.dts" | head -1)
[ -n "$timebase" ] || { echo "gen-dt.sh: QEMU's DT has no timebase-frequency" >&2; exit 1; }

hex() { printf '0x%x' "$1"; }
cells() { printf '0x%x 0x%x' $(($1 >> 32)) $(($1 & 0xffffffff)); }
{
	cat "$tmp/virt.dts"
	echo
	echo "/ {"
	if [ $rsv_exists -eq 0 ]; then
		echo "	reserved-memory {"
		echo "		#address-cells = <2>;"
		echo "		#size-cells = <2>;"
		echo "		ranges;"
		echo "	};"
	fi
	echo "};"
	if [ -n "$harts" ]; then
		echo "&{/chosen} {"
		echo "	opensbi-config {"
		echo "		compatible = \"opensbi,config\";"
		echo "		cold-boot-harts = <&{/cpus/cpu@$(printf %x "${harts%%,*}")}>;"
		echo "	};"
		echo "};"
	fi
	echo "&{/reserved-memory} {"
	echo "	ntrace-regs@$(printf %x $regbase) {"
	echo "		reg = <$(cells $regbase) $(cells $region)>;"
	echo "		no-map;"
	echo "	};"
	echo "};"
	echo "&{/soc} {"
	# the components, from the plugin's layout (plugin/topology.c)
	# (mawk: no strtonum, %x only below 2^32: the address in two halves)
	awk -v hi=$((regbase >> 32)) -v lo=$((regbase & 0xffffffff)) -v tb="$timebase" -v form="$form" '
	function hexval(s, i, v) {
		s = tolower(s); sub(/^0x/, "", s)
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	function addr(off) { return hi ? sprintf("%x%08x", hi, lo + hexval(off)) : sprintf("%x", lo + hexval(off)) }
	function cells(off) { return sprintf("0x%x 0x%x", hi, lo + hexval(off)) }
	function label(k, i, p) { return k == "sink" ? "ram" i "_in" : k == "funnel" ? "fun" i "_in" p : "" }
	function srclabel(k, i) { return k == "encoder" ? "te" i "_out" : "fun" i "_out" }
	# the node name and compatible of a component of kind k in this form
	function head(k, o,   t) {
		if (form == "sifive") {
			print "\ttrace-" k "@" addr(o) " {"
			print "\t\tcompatible = \"sifive,trace-" k "0\";"
			return
		}
		if (form ~ /^upstream/ || k == "foreign") {
			print "\ttrace-component@" addr(o) " {"
			print "\t\tcompatible = \"qemu,trace-component\", \"riscv,trace-component\";"
			return
		}
		t = k == "sink" ? "ramsink" : k
		print "\ttrace-" t "@" addr(o) " {"
		if (form == "pertype")
			print "\t\tcompatible = \"riscv,trace-" t "\";"
		else
			print "\t\tcompatible = \"qemu,ntrace-" t "\", \"riscv,trace-component\";"
	}
	/^#/ { next }
	{
		n++; kind[n] = $1; idx[n] = $2; off[n] = $3; hart[n] = ""; out[n] = ""; nin[n] = 0
		for (f = 4; f <= NF; f++) {
			split($f, kv, "=")
			if (kv[1] == "hart") hart[n] = kv[2]
			if (kv[1] == "inputs") nin[n] = kv[2]
			if (kv[1] == "out") out[n] = kv[2]
		}
		if (out[n] != "") {
			split(out[n], o, ":")
			dst = o[1] ":" o[2]
			nsrc[dst]++; srck[dst, nsrc[dst]] = $1; srci[dst, nsrc[dst]] = $2; srcp[dst, nsrc[dst]] = o[3]
			if ($1 == "encoder") srch[dst, nsrc[dst]] = hart[n]
		}
	}
	function outport(k, i, o) {
		split(o, d, ":")
		print "\t\tout-ports {"
		print "\t\t\tport {"
		print "\t\t\t\t" srclabel(k, i) ": endpoint {"
		print "\t\t\t\t\tremote-endpoint = <&" label(d[1], d[2], d[3]) ">;"
		print "\t\t\t\t};"
		print "\t\t\t};"
		print "\t\t};"
	}
	END {
		for (j = 1; j <= n; j++) {
			k = kind[j]; i = idx[j]; me = k ":" i
			if (k == "encoder") {
				head(k, off[j])
				print "\t\treg = <" cells(off[j]) " 0x0 0x1000>;"
				print "\t\t" (form == "upstream-v1" ? "cpu" : "cpus") " = <&{/cpus/cpu@" hart[j] "}>;"
				print "\t\triscv,timestamp-frequency = <" tb ">;"
				# sifive-hart: the sink is in the encoder block
				if (out[j] != "")
					outport(k, i, out[j])
				print "\t};"
			} else if (k == "sink") {
				head(k, off[j])
				print "\t\treg = <" cells(off[j]) " 0x0 0x1000>;"
				# a sink fed by one encoder belongs to that hart
				# (not in the upstream forms, where only encoders have cpus)
				if (nsrc[me] == 1 && srck[me, 1] == "encoder" && form !~ /^upstream/)
					print "\t\tcpus = <&{/cpus/cpu@" srch[me, 1] "}>;"
				print "\t\tin-ports {"
				print "\t\t\tport {"
				print "\t\t\t\tram" i "_in: endpoint {"
				print "\t\t\t\t\tremote-endpoint = <&" srclabel(srck[me, 1], srci[me, 1]) ">;"
				print "\t\t\t\t};"
				print "\t\t\t};"
				print "\t\t};"
				print "\t};"
			} else if (k == "funnel") {
				head(k, off[j])
				print "\t\treg = <" cells(off[j]) " 0x0 0x1000>;"
				print "\t\tin-ports {"
				print "\t\t\t#address-cells = <1>;"
				print "\t\t\t#size-cells = <0>;"
				for (s = 1; s <= nsrc[me]; s++) {
					p = srcp[me, s]
					print "\t\t\tport@" p " {"
					print "\t\t\t\treg = <" p ">;"
					print "\t\t\t\tfun" i "_in" p ": endpoint {"
					print "\t\t\t\t\tremote-endpoint = <&" srclabel(srck[me, s], srci[me, s]) ">;"
					print "\t\t\t\t};"
					print "\t\t\t};"
				}
				print "\t\t};"
				# a SiFive v0 funnel has its sink in its own block
				if (form != "sifive")
					outport(k, i, out[j])
				print "\t};"
			} else if (k == "foreign") {
				head(k, off[j])
				print "\t\treg = <" cells(off[j]) " 0x0 0x1000>;"
				print "\t};"
			}
		}
	}' "$tmp/layout"
	echo "};"
} >"$tmp/ntrace.dts"
dtc -q -I dts -O dtb -o "$out" "$tmp/ntrace.dts"
echo "gen-dt.sh: wrote $out (regs at $(hex $regbase), $(hex $region) bytes, $smp hart(s), topology $topo, form $form${foreign:+, foreign $foreign}${harts:+, CPUs are harts $harts}, ${mem} MiB)" >&2
