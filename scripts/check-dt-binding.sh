#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The device-tree binding (Documentation/devicetree/bindings/riscv/
# riscv,trace-component.yaml) checked with the devicetree schema tools as
# the kernel's "make dt_binding_check" and "make dtbs_check" use them, and
# every device tree the QEMU model's gen-dt.sh writes checked against it.
# Part of the docs suite (check-docs.sh); TAP lines "dt-binding: ..." and
# "upstream-dt: ...".
#
# Kernel 6.12's Makefiles want dtschema >= 2023.9; Debian 12 has 2022.08,
# so this drives the tools directly:
#  1. dt-doc-validate: the YAML against dtschema's meta-schema;
#  2. dt-mk-schema: one processed schema of dtschema's core schemas and
#     every YAML under Documentation/devicetree/bindings;
#  3. each "examples:" entry compiled by dtc (the kernel's warning flags,
#     any warning fails) into a root with /cpus/cpu@0,1 labelled cpu0 and
#     cpu1, so that its phandles resolve, and checked by dt-validate -m
#     against every schema (no error, every trace node matched);
#  4. bad trees (dt-binding/reject/*.dtsi), each of which dt-validate must
#     reject with the message its "expect:" line gives;
#  5. the model's trees (gen-dt.sh, list below): QEMU's virt nodes fail
#     dtschema 2022.08's core schemas for reasons that are not ours (a
#     riscv,isa-extensions it has no type for, qemu,platform's
#     interrupt-parent), so only the nodes our binding selects by
#     compatible are checked (dt-validate -l riscv,trace-component), and
#     every node whose compatible names a "trace-" component must be one
#     of them.
# dt-validate exits 0 whatever it finds: its messages are the verdict.
# Without dt-schema (scripts/deps.sh installs it) everything is skipped.
# NTRACE_DT_KEEP=1 keeps the work directory.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$NTRACE_TOP"
TAP_PREFIX="docs: "

binding=Documentation/devicetree/bindings/riscv/riscv,trace-component.yaml
schema_id=http://devicetree.org/schemas/riscv/riscv,trace-component.yaml#
here=scripts/dt-binding
# the kernel's DTC_FLAGS for binding examples (Documentation/devicetree/
# bindings/Makefile)
dtc_flags=(-Wno-avoid_unnecessary_addr_size -Wno-graph_child_address -Wno-interrupt_provider
	-Wno-unique_unit_address -Wunique_unit_address_if_enabled)

# The model's trees: gen-dt.sh -t TOPOLOGY -f FORM -s HARTS [OPTIONS].
# Every form with every topology, and the foreign ATB bridge (-x 0xe01,
# written in the upstream form whatever -f says) as the boot
# configuration ntrace-upstream-dt uses it and beside ntrace-form nodes.
model_trees=(
	"hart ntrace 2"
	"hart upstream 2"
	"hart upstream-v1 2"
	"hart pertype 2"
	"funnel ntrace 2"
	"funnel upstream 2"
	"funnel upstream-v1 2"
	"funnel pertype 2"
	"funnel2 ntrace 4"
	"funnel2 upstream 4"
	"funnel2 upstream-v1 4"
	"funnel2 pertype 4"
	"hart upstream 1 -x 0xe01"
	"funnel ntrace 2 -x 0xe01"
	# SiFive's pre-ratified form (sifive,trace-encoder0 and -funnel0, as on
	# the P550), the only one of the v0 topologies: no -f ("-")
	"p550 - 4"
	"sifive-hart - 2"
)

tools_missing=
for t in dt-doc-validate dt-mk-schema dt-validate dtc; do
	command -v "$t" >/dev/null || tools_missing+=" $t"
done
if [ -n "$tools_missing" ]; then
	skip "dt-binding: dtschema checks of $binding" \
		"no$tools_missing (Debian packages dt-schema and device-tree-compiler; scripts/deps.sh installs them)"
	skip "upstream-dt: the model's device trees against the binding" "no$tools_missing"
	exit 0
fi
echo "# dtschema $(dt-doc-validate --version 2>&1)"

scratch work "" "${NTRACE_DT_KEEP:-}"

# blocks NAME LOG: what dt-validate said about NAME.dtb, a line naming the
# file (as given, or its absolute path) and the indented lines after it
blocks() {
	awk -v f="$1.dtb:" 'substr($0, 1, 1) != "\t" {
		i = index($0, f); cur = i == 1 || (i > 1 && substr($0, i - 1, 1) == "/")
	} cur' "$2"
}
# errors NAME LOG: those blocks except the -M ones ("matched on schema(s)")
errors() {
	blocks "$@" | awk 'substr($0, 1, 1) != "\t" { keep = $0 !~ /: matched on schema\(s\)$/ } keep'
}
# matched NAME LOG: how many nodes -M says our schema matched
matched() {
	blocks "$@" | awk -v id="$schema_id" 'substr($0, 1, 1) != "\t" { m = $0 ~ /: matched on schema\(s\)$/; next }
		m && $1 == id { n++ } END { print n + 0 }'
}
# trace_nodes DTB: how many nodes have a compatible naming a trace component
trace_nodes() { dtc -q -I dtb -O dts "$1" | grep -c '^[[:space:]]*compatible = .*trace-'; }

# tree FRAGMENT OUT.dts: FRAGMENT (nodes in the root) in a root as
# dt-extract-example writes it ("foo" is the compatible dtschema allows
# examples), with two harts for cpus = <&cpu0> and <&cpu1>
tree() {
	printf '/dts-v1/;\n\n/ {\n\tcompatible = "foo";\n\tmodel = "foo";\n'
	printf '\t#address-cells = <1>;\n\t#size-cells = <1>;\n\n\tcpus {\n'
	printf '\t\t#address-cells = <1>;\n\t\t#size-cells = <0>;\n'
	printf '\n\t\tcpu%d: cpu@%d {\n\t\t\tdevice_type = "cpu";\n\t\t\treg = <%d>;\n\t\t};\n' 0 0 0 1 1 1
	printf '\t};\n\n'
	cat "$1"
	printf '};\n'
}

# 1. the meta-schema; -u as the kernel passes it, so that the $id is
# checked against the file's path under the bindings directory
if out=$(dt-doc-validate -u Documentation/devicetree/bindings "$binding" 2>&1) && [ -z "$out" ]; then
	ok "dt-binding: ${binding##*/} against dtschema's meta-schema (dt-doc-validate)"
else
	not_ok "dt-binding: ${binding##*/} against dtschema's meta-schema (dt-doc-validate)"
	printf '%s\n' "$out" | sed 's/^/# /'
fi

# 2. the processed schema (a YAML with errors would be left out of it)
ps=$work/processed-schema.json
if out=$(dt-mk-schema -j -o "$ps" Documentation/devicetree/bindings 2>&1) && [ -z "$out" ] &&
	grep -qF "\"$schema_id\"" "$ps"; then
	ok "dt-binding: processed schema of dtschema's core and our bindings (dt-mk-schema)"
else
	not_ok "dt-binding: processed schema of dtschema's core and our bindings (dt-mk-schema)"
	printf '%s\n' "$out" | sed 's/^/# /'
	exit 1
fi

# 3. and 4.: the examples and the bad trees, compiled, then one dt-validate
# run for all (it loads the schema once: about a second)
nex=$(/usr/bin/python3 "$here/examples.py" "$binding" "$work") || nex=0
[ "$nex" -gt 0 ] || not_ok "dt-binding: the binding has examples"
dtbs=() dtc_err=()
for f in "$work"/example-*.dtsi "$here"/reject/*.dtsi; do
	[ -f "$f" ] || continue
	n=${f##*/}
	n=${n%.dtsi}
	[[ $f == */reject/* ]] && n=reject-$n
	tree "$f" >"$work/$n.dts"
	if out=$(dtc "${dtc_flags[@]}" -I dts -O dtb -o "$work/$n.dtb" "$work/$n.dts" 2>&1) && [ -z "$out" ]; then
		dtbs+=("$n.dtb")
	else
		dtc_err+=("$n")
		printf '%s\n' "$out" >"$work/$n.dtc.log"
	fi
done
(cd "$work" && dt-validate -s "$ps" -m -M "${dtbs[@]}") >"$work/examples.log" 2>&1
ntree=0 nnode=0
for i in $(seq 0 $((nex - 1))); do
	n=example-$i name="dt-binding: example $i of ${binding##*/}"
	if [[ " ${dtc_err[*]} " == *" $n "* ]]; then
		not_ok "$name compiles without a dtc warning"
		sed 's/^/# /' "$work/$n.dtc.log"
		continue
	fi
	e=$(errors "$n" "$work/examples.log")
	m=$(matched "$n" "$work/examples.log")
	want=$(trace_nodes "$work/$n.dtb")
	if [ -z "$e" ] && [ "$m" -gt 0 ] && [ "$m" = "$want" ]; then
		ok "$name: $m trace nodes valid"
		ntree=$((ntree + 1)) nnode=$((nnode + m))
	else
		not_ok "$name: $m of $want trace nodes matched the binding, without an error"
		[ -z "$e" ] || printf '%s\n' "$e" | sed 's/^/# /'
	fi
done

nrej=0 nbad=0
for f in "$here"/reject/*.dtsi; do
	[ -f "$f" ] || continue
	c=${f##*/}
	c=${c%.dtsi}
	n=reject-$c name="dt-binding: rejects $c"
	nbad=$((nbad + 1))
	want=$(sed -n 's|^// expect: ||p' "$f")
	limit=$(sed -n 's|^// known-limit: ||p' "$f")
	if [[ " ${dtc_err[*]} " == *" $n "* ]]; then
		not_ok "$name (the tree does not compile cleanly: fix the test)"
		sed 's/^/# /' "$work/$n.dtc.log"
		continue
	fi
	e=$(errors "$n" "$work/examples.log")
	if [ -z "$want" ]; then
		not_ok "$name (no \"// expect:\" line in $f)"
	elif printf '%s\n' "$e" | grep -qE -- "$want"; then
		ok "$name"
		nrej=$((nrej + 1))
	elif [ -z "$e" ] && [ -n "$limit" ]; then
		todo "$name" "accepted: $limit"
	else
		not_ok "$name: not with '$want'"
		printf '%s\n' "${e:-(accepted)}" | sed 's/^/# /'
	fi
done

# 5. the model's trees
so=${NTRACE_MODEL_SO:-$NTRACE_TOP/build/ntrace-model/ntrace-model.so}
why=
if ! command -v qemu-system-riscv64 >/dev/null; then
	why="no qemu-system-riscv64 (scripts/deps.sh installs it)"
elif [ -z "${NTRACE_MODEL_SO:-}" ] &&
	! with_lock "$NTRACE_CACHE/locks/ntrace-model" make -s -C qemu/ntrace-model plugin >"$work/plugin.log" 2>&1; then
	not_ok "upstream-dt: the model's plugin builds (make -C qemu/ntrace-model plugin)"
	tail -5 "$work/plugin.log" | sed 's/^/# /'
	why="no model plugin"
fi
if [ -n "$why" ]; then
	skip "upstream-dt: the model's device trees against the binding" "$why"
else
	gen=() names=()
	for t in "${model_trees[@]}"; do
		read -r topo form smp opts <<<"$t"
		n=model-$topo-$form-smp$smp${opts:+-${opts//[ -]/}}
		# shellcheck disable=SC2086	# opts: gen-dt.sh options, split
		fopt=(-f "$form")
		[ "$form" != - ] || fopt=()
		if NTRACE_MODEL_SO=$so bash qemu/ntrace-model/dt/gen-dt.sh -o "$work/$n.dtb" \
			-t "$topo" "${fopt[@]}" -s "$smp" $opts >"$work/$n.gen.log" 2>&1; then
			gen+=("$n.dtb")
		fi
		names+=("$n|gen-dt.sh -t $topo ${fopt[*]:+${fopt[*]} }-s $smp${opts:+ $opts}")
	done
	(cd "$work" && dt-validate -s "$ps" -l riscv,trace-component -M "${gen[@]}") >"$work/model.log" 2>&1
	for nn in "${names[@]}"; do
		n=${nn%%|*} name="upstream-dt: ${nn#*|}"
		if [ ! -f "$work/$n.dtb" ]; then
			not_ok "$name: gen-dt.sh failed"
			tail -5 "$work/$n.gen.log" | sed 's/^/# /'
			continue
		fi
		e=$(errors "$n" "$work/model.log")
		m=$(matched "$n" "$work/model.log")
		want=$(trace_nodes "$work/$n.dtb")
		if [ -z "$e" ] && [ "$m" -gt 0 ] && [ "$m" = "$want" ]; then
			ok "$name: $m trace nodes valid"
			ntree=$((ntree + 1)) nnode=$((nnode + m))
		else
			not_ok "$name: $m of $want trace nodes matched the binding, without an error"
			[ -z "$e" ] || printf '%s\n' "$e" | sed 's/^/# /'
		fi
	done
fi
echo "# dt-binding: $ntree trees and $nnode trace nodes valid; $nrej of $nbad bad trees rejected"
tap_status
