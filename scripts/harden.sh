#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The "harden" suite (selftests/harden/), in the guest: the privilege
# matrix; each hardware fault the QEMU model can inject, one boot each
# (ntrace_fault_test); then the kernel-interface fuzzer from fixed seeds
# on the boot configurations that give it most to break: N-Trace and CTR
# together on 2 harts (hotplug, branch stacks) and 4 harts sharing one
# sink through two funnel levels.
# Prints flat TAP lines like the guest suite.
# Usage: scripts/harden.sh [--long] [--planted] [--fuzz-only]
#   --long      the long version ("make harden"): the KASAN + lockdep
#               kernel, more seeds and operations, then --planted
#   --fuzz-only only the fuzzer runs (no privilege matrix, no faults)
#   --planted   only show that the fuzzer finds a planted bug: the driver
#               with selftests/harden/planted/*.patch applied, on the
#               KASAN + lockdep kernel, must fail with a kernel report
# Environment:
#   NTRACE_KVARIANT=guest|debug   kernel variant (debug: KASAN + lockdep)
#   NTRACE_FUZZ_RUNS="CONFIG:SEED:OPS ..."   the runs
#                       [ntrace-ctr-smp2:1:1500 ntrace-funnel2-smp4:2:1000]
#   NTRACE_FAULTS="NAME ..."      the injected faults [all of fault.c's]
#   NTRACE_GUEST_TIMEOUT=SECONDS  wall-clock limit per boot
set -uo pipefail
. "$(dirname "$0")/lib.sh"

long=0 planted=0 fuzz_only=0
for a in "$@"; do
	case $a in
	--long) long=1 planted=1 ;;
	--planted) planted=1 ;;
	--fuzz-only) fuzz_only=1 ;;
	*) die "unknown argument '$a' (--long, --planted, --fuzz-only)" ;;
	esac
done
TAP_PREFIX="harden: "
if [ $long = 1 ]; then
	variant=${NTRACE_KVARIANT:-debug}
	runs=${NTRACE_FUZZ_RUNS:-ntrace-ctr-smp2:11:3000 ntrace-ctr-smp2:12:3000 ntrace-funnel2-smp4:13:2000 ntrace-funnel-smp2:14:2000 ntrace-sram:15:2000}
elif [ $planted = 1 ]; then
	variant=debug runs=
else
	variant=${NTRACE_KVARIANT:-guest}
	runs=${NTRACE_FUZZ_RUNS:-ntrace-ctr-smp2:1:1500 ntrace-funnel2-smp4:2:1000}
fi
faults=${NTRACE_FAULTS:-te_no_active te_bad_impl te_never_empty ram_never_empty ram_wp_stuck ram_wp_wild funnel_input_stuck}
if [ "$variant" = debug ]; then limit=${NTRACE_GUEST_TIMEOUT:-3600}; else limit=${NTRACE_GUEST_TIMEOUT:-900}; fi

# fuzz VARIANT CONFIG SEED OPS: one boot of the fuzzer
fuzz() {
	bash "$NTRACE_TOP/scripts/guest.sh" --kernel "$1" --config "$2" \
		--initrd "$initrd" --timeout "$limit" --test-timeout "$limit" \
		--filter ntrace_fuzz --append "ntguest.fuzz=$3,$4" \
		--console "$NTRACE_TOP/build/harden/$1/$2-$3.console"
}

status=0
if [ -n "$runs" ]; then
	if ! initrd=$(bash "$NTRACE_TOP/scripts/initramfs.sh" --kernel "$variant"); then
		not_ok "build kernel, modules, selftests and initramfs ($variant)"
		exit 1
	fi
	# the privilege matrix, on N-Trace and CTR together
	[ $fuzz_only = 1 ] ||
		bash "$NTRACE_TOP/scripts/guest.sh" --kernel "$variant" --config ntrace-ctr-smp2 \
			--initrd "$initrd" --timeout "$limit" --filter ntrace_privilege \
			--console "$NTRACE_TOP/build/harden/$variant/privilege.console" || status=1
	# faults the model injects (plugin fault=NAME), one per boot
	[ $fuzz_only = 1 ] && faults=
	for f in $faults; do
		config=ntrace-smp2
		[ "$f" != funnel_input_stuck ] || config=ntrace-funnel-smp2
		bash "$NTRACE_TOP/scripts/guest.sh" --kernel "$variant" --config "$config" \
			--initrd "$initrd" --timeout "$limit" --filter ntrace_fault \
			--model-args "fault=$f" --append "ntguest.fault=$f" \
			--console "$NTRACE_TOP/build/harden/$variant/fault-$f.console" || status=1
	done
	for run in $runs; do
		IFS=: read -r config seed n <<<"$run"
		[[ $seed =~ ^[0-9]+$ && $n =~ ^[0-9]+$ ]] ||
			die "NTRACE_FUZZ_RUNS: '$run' is not CONFIG:SEED:OPS"
		fuzz "$variant" "$config" "$seed" "$n" || status=1
	done
fi

# The fuzzer can fail: each planted bug is found from its seed. The tree
# is copied as a clean clone has it, the patch applied, and the copy's
# own scripts build and boot it.
if [ $planted = 1 ]; then
	for p in "$NTRACE_TOP"/selftests/harden/planted/*.patch; do
		name=$(basename "$p" .patch)
		# the seed and boot that find it, from the patch's header
		read -r config seed n < <(sed -n 's/^Found by: \(.*\)$/\1/p' "$p")
		src=$NTRACE_TOP/build/harden/planted/$name
		rm -rf "$src" && mkdir -p "$src"
		if ! (cd "$NTRACE_TOP" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$src") ||
		   ! patch -s -d "$src" -p1 <"$p"; then
			not_ok "planted $name: the patch applies to a copy of the tree"
			status=1
			continue
		fi
		out=$(NTRACE_FUZZ_RUNS="$config:$seed:$n" NTRACE_KVARIANT=debug \
		      bash "$src/scripts/harden.sh" --fuzz-only 2>&1)
		echo "$out" | sed 's/^/# planted: /'
		check "planted $name: the fuzzer finds it ($config, seed $seed, $n operations: a kernel report)" \
			grep -q "not ok .*ntrace_fuzz_test: fuzz seed $seed: .*no kernel report" <<<"$out"
	done
fi
[ $status = 0 ] && tap_status
