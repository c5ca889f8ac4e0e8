#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the guest device tree for the ntrace model: QEMU's own virt DT
# (-machine dumpdtb) plus, per hart, a trace encoder and a RAM sink node
# ("riscv,trace-component" binding, Documentation/devicetree/bindings/
# riscv/riscv,trace-component.yaml) linked by graph ports, and a no-map
# reserved-memory node over the register region so Linux keeps that RAM
# to itself and the driver can ioremap the components. Each encoder node
# states its timestamp rate (riscv,timestamp-frequency): the model's
# timestamp unit is fed by the platform timer, so it is /cpus'
# timebase-frequency.
#
# usage: gen-dt.sh -o OUT.dtb [-m MiB] [-s SMP] [-r REGBASE] [-- QEMU-ARGS...]
#   -m, -s must match the QEMU run (defaults 512, 1); REGBASE defaults to the
#   plugin's default, the last 64 KiB of RAM. QEMU-ARGS (e.g. -cpu ...) are
#   passed to the dump so the DT describes the same CPUs.
set -euo pipefail
mem=512 smp=1 out= regbase=
while getopts "o:m:s:r:" o; do
	case $o in
	o) out=$OPTARG ;;
	m) mem=$OPTARG ;;
	s) smp=$OPTARG ;;
	r) regbase=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = -- ] && shift
[ -n "$out" ] || { echo "gen-dt.sh: -o OUT.dtb is required" >&2; exit 2; }
command -v dtc >/dev/null || { echo "gen-dt.sh: dtc not found (device-tree-compiler)" >&2; exit 1; }
[ "$smp" -ge 1 ] && [ "$smp" -le 8 ] || { echo "gen-dt.sh: -s must be 1..8 (model limit)" >&2; exit 2; }
ram_base=$((0x80000000))
ram_size=$((mem * 1024 * 1024))
[ -n "$regbase" ] || regbase=$((ram_base + ram_size - 0x10000))
regbase=$((regbase))

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
truncate -s "${mem}M" "$tmp/ram"
qemu-system-riscv64 -machine "virt,memory-backend=ram,dumpdtb=$tmp/virt.dtb" \
	-object "memory-backend-file,id=ram,size=${mem}M,mem-path=$tmp/ram,share=on" \
	-m "${mem}M" -smp "$smp" -nographic "$@" >"$tmp/log" 2>&1 ||
	{ cat "$tmp/log" >&2; exit 1; }
dtc -q -I dtb -O dts -o "$tmp/virt.dts" "$tmp/virt.dtb"
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
	echo "&{/reserved-memory} {"
	echo "	ntrace-regs@$(printf %x $regbase) {"
	echo "		reg = <$(cells $regbase) 0x0 0x10000>;"
	echo "		no-map;"
	echo "	};"
	echo "};"
	echo "&{/soc} {"
	for ((h = 0; h < smp; h++)); do
		te=$((regbase + h * 0x2000))
		rs=$((te + 0x1000))
		cat <<EON
	trace-encoder@$(printf %x $te) {
		compatible = "qemu,ntrace-encoder", "riscv,trace-component";
		reg = <$(cells $te) 0x0 0x1000>;
		cpus = <&{/cpus/cpu@$h}>;
		riscv,timestamp-frequency = <$timebase>;
		out-ports {
			port {
				te${h}_out: endpoint {
					remote-endpoint = <&ram${h}_in>;
				};
			};
		};
	};
	trace-ramsink@$(printf %x $rs) {
		compatible = "qemu,ntrace-ramsink", "riscv,trace-component";
		reg = <$(cells $rs) 0x0 0x1000>;
		cpus = <&{/cpus/cpu@$h}>;
		in-ports {
			port {
				ram${h}_in: endpoint {
					remote-endpoint = <&te${h}_out>;
				};
			};
		};
	};
EON
	done
	echo "};"
} >"$tmp/ntrace.dts"
dtc -q -I dts -O dtb -o "$out" "$tmp/ntrace.dts"
echo "gen-dt.sh: wrote $out (regs at $(hex $regbase), $smp hart(s), ${mem} MiB)" >&2
