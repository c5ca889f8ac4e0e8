#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Boot the riscv64 test guest in QEMU once and report what happened.
# Usage: scripts/guest.sh [options] [-- extra QEMU arguments]
#   --kernel guest|debug  kernel variant (debug = KASAN + lockdep)   [guest]
#   --config NAME         boot configuration: smp1, smp2, ctr,       [smp1]
#                         ntrace, ntrace-smp2 (1 or 2 harts with the
#                         N-Trace QEMU model: builds its plugin and DT,
#                         guest RAM in a file in /dev/shm; a sink per
#                         hart), ntrace-funnel, ntrace-funnel-smp2,
#                         ntrace-funnel-smp4 (1, 2, 4 harts, every hart
#                         through one funnel into one sink),
#                         ntrace-funnel-smp4-hartmap (the same 4 harts,
#                         Linux CPU N = hart 2, 0, 3, 1: gen-dt.sh -p),
#                         ntrace-funnel2-smp4 (two cluster funnels into
#                         a top funnel), ntrace-sram (1 hart, the sink
#                         with 64 KiB of SRAM), ntrace-ctr and
#                         ntrace-ctr-smp2 (N-Trace and CTR together,
#                         1 or 2 harts); the DT in other forms
#                         (gen-dt.sh -f): ntrace-upstream-dt (1 hart,
#                         upstream generic compatible, plus an ATB
#                         bridge the driver must report once and skip),
#                         ntrace-upstream-dt-funnel-smp2 (2 harts through
#                         a funnel, generic compatible, "cpu" phandle),
#                         ntrace-upstream-dt-pertype (1 hart, SpacemiT's
#                         per-type compatibles), ntrace-p550 (SiFive
#                         pre-ratified blocks as on the P550: 4 harts
#                         through the system funnel), ntrace-p550-hartmap
#                         (the same with Linux CPU N = hart 2, 0, 3, 1 as
#                         the board's CPU 0 is hart 2: gen-dt.sh -p),
#                         ntrace-p550-smp1,
#                         ntrace-sifive-hart-smp2 (v0 encoders with their
#                         own sinks); any ntrace one with -copy after it,
#                         e.g. ntrace-smp2-copy: with ntrace.direct=0
#   --mode test|demo|run  what the init does (guest/init.c); run executes
#                         the image's /etc/ntrace/run.list (guest/runlist.h) [test]
#   --timeout SECONDS     wall-clock limit; QEMU is killed after it  [900]
#   --test-timeout SECS   per-kselftest limit inside the guest       [300]
#   --filter A,B          run only the KUnit modules and kselftests whose
#                         name contains A or B
#   --append ARGS         extra kernel command line
#   --mem SIZE            guest RAM, e.g. 1G (/tmp, a tmpfs, gets half)
#                         [512M; 1G for the debug kernel]
#   --initrd FILE         use this initramfs (default: build one with
#                         scripts/initramfs.sh for the kernel variant)
#   --console FILE        where to keep the console log
#                         [build/guest/<variant>/<config>.console]
#   --ram-file PATH       back guest RAM with a shared file (guest physical
#                         0x80000000 = file offset 0), so a TCG plugin can
#                         write guest memory; e.g. /dev/shm/ntrace-ram.$$
#   --plugin SPEC         QEMU TCG plugin: file.so[,arg=value...]
#   --model-args A=V,...  more arguments for the ntrace configs' model
#                         plugin, e.g. gt=PREFIX (ground-truth log)
#   --dtb FILE            device tree to boot with (get QEMU's own with
#                         "-- -machine dumpdtb=virt.dtb", edit with dtc)
#   --export DIR          attach a raw virtio disk; after power-off, unpack
#                         what the guest wrote under /tmp/export into DIR
#                         (guest/export.h); fails if the guest packed nothing
#   --export-size MIB     size of that disk                          [512]
#   --verbose             print the whole console log afterwards
# Test mode prints flat TAP lines (guest/console-to-tap.awk) and a summary;
# demo mode prints the guest's report, run mode the commands' output. Exit
# status: 0 only if the guest ran to its end marker and nothing failed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

variant=guest config=smp1 mode=test timeout=900 test_timeout=300 filter=
append= initrd= console= verbose=0 qemu_extra=() ram_file= plugin= dtb= model_args=
export_dir= export_mib=512
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) variant=$2; shift 2 ;;
	--config) config=$2; shift 2 ;;
	--mode) mode=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--test-timeout) test_timeout=$2; shift 2 ;;
	--filter) filter=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	--initrd) initrd=$2; shift 2 ;;
	--console) console=$2; shift 2 ;;
	--ram-file) ram_file=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--plugin) plugin=$2; shift 2 ;;
	--model-args) model_args=$2; shift 2 ;;
	--dtb) dtb=$2; shift 2 ;;
	--export) export_dir=$2; shift 2 ;;
	--export-size) export_mib=$2; shift 2 ;;
	--verbose) verbose=1; shift ;;
	--) shift; qemu_extra=("$@"); break ;;
	*) die "unknown argument '$1' (see the header of $0)" ;;
	esac
done
case $mode in test|demo|run) ;; *) die "unknown --mode '$mode' (test, demo or run)" ;; esac
[[ $export_mib =~ ^[0-9]+$ ]] && [ "$export_mib" -gt 0 ] || die "--export-size wants MiB, got '$export_mib'"
[[ $timeout =~ ^[0-9]+$ ]] || die "--timeout wants seconds, got '$timeout'"

# Boot configurations. Smstateen stays off for CTR: OpenSBI 1.5.1 does not
# set mstateen0.CTR, so with Smstateen on every S-mode CTR access traps
# (Documentation/admin-guide/perf/riscv-ctr.rst).
# ctr has one hart so that its sampling tests are reliable (see quirks);
# ctr-smp2 covers CTR across CPU hotplug.
# topo, sram: the model's topology (plugin topo=, gen-dt.sh -t) and SRAM;
# kargs: module parameters for the configuration (the guest's init and
# kmod_load() pass "ntrace.X=Y" on to the module, as modprobe does);
# dtform, foreign: gen-dt.sh -f and -x (the plugin's foreign=);
# harts: gen-dt.sh -p, the hart of each Linux CPU (else CPU N is hart N)
# NAME-copy: configuration NAME with the sinks copying through their buffer
# (ntrace.direct=0), as a sink that cannot write the AUX area does
topo=hart sram= kargs= dtform=ntrace foreign= harts= base=$config
[[ $config != ntrace*-copy ]] || base=${config%-copy}
case $base in
smp1) cpu=rv64,sscofpmf=true smp=1 ;;
smp2) cpu=rv64,sscofpmf=true smp=2 ;;
ctr) cpu=rv64,smctr=true,ssctr=true,smcsrind=true,sscsrind=true,sscofpmf=true smp=1 ;;
ctr-smp2) cpu=rv64,smctr=true,ssctr=true,smcsrind=true,sscsrind=true,sscofpmf=true smp=2 ;;
ntrace) cpu=rv64,sscofpmf=true smp=1 ;;
ntrace-smp2) cpu=rv64,sscofpmf=true smp=2 ;;
ntrace-funnel) cpu=rv64,sscofpmf=true smp=1 topo=funnel ;;
ntrace-funnel-smp2) cpu=rv64,sscofpmf=true smp=2 topo=funnel ;;
ntrace-funnel-smp4) cpu=rv64,sscofpmf=true smp=4 topo=funnel ;;
ntrace-funnel2-smp4) cpu=rv64,sscofpmf=true smp=4 topo=funnel2 ;;
# hartmap: hart IDs that differ from Linux CPU numbers, CPU N = hart 2, 0,
# 3, 1 (CPU 0 is hart 2 as on the P550; neither the map nor its inverse
# keeps a CPU's number), from the /cpus order and OpenSBI's cold-boot hart
ntrace-funnel-smp4-hartmap) cpu=rv64,sscofpmf=true smp=4 topo=funnel harts=2,0,3,1 ;;
ntrace-sram) cpu=rv64,sscofpmf=true smp=1 sram=65536 kargs=ntrace.sram=1 ;;
ntrace-ctr) cpu=rv64,smctr=true,ssctr=true,smcsrind=true,sscsrind=true,sscofpmf=true smp=1 ;;
ntrace-ctr-smp2) cpu=rv64,smctr=true,ssctr=true,smcsrind=true,sscsrind=true,sscofpmf=true smp=2 ;;
ntrace-upstream-dt) cpu=rv64,sscofpmf=true smp=1 dtform=upstream foreign=0xe01 ;;
ntrace-upstream-dt-funnel-smp2) cpu=rv64,sscofpmf=true smp=2 topo=funnel dtform=upstream-v1 ;;
ntrace-upstream-dt-pertype) cpu=rv64,sscofpmf=true smp=1 dtform=pertype ;;
# SiFive's pre-ratified blocks at the HiFive Premier P550's offsets: 4 harts
# (or 1) through the system funnel's own sink; sifive-hart: an encoder per
# hart writing a sink in its own block
ntrace-p550) cpu=rv64,sscofpmf=true smp=4 topo=p550 dtform= ;;
ntrace-p550-hartmap) cpu=rv64,sscofpmf=true smp=4 topo=p550 dtform= harts=2,0,3,1 ;;
ntrace-p550-smp1) cpu=rv64,sscofpmf=true smp=1 topo=p550 dtform= ;;
ntrace-sifive-hart-smp2) cpu=rv64,sscofpmf=true smp=2 topo=sifive-hart dtform= ;;
*) die "unknown --config '$config' (smp1, smp2, ctr, ctr-smp2, ntrace, ntrace-smp2, ntrace-funnel, ntrace-funnel-smp2, ntrace-funnel-smp4, ntrace-funnel-smp4-hartmap, ntrace-funnel2-smp4, ntrace-sram, ntrace-ctr, ntrace-ctr-smp2, ntrace-upstream-dt, ntrace-upstream-dt-funnel-smp2, ntrace-upstream-dt-pertype, ntrace-p550, ntrace-p550-hartmap, ntrace-p550-smp1 or ntrace-sifive-hart-smp2; any ntrace one with -copy after it)" ;;
esac
[ "$base" = "$config" ] || kargs="${kargs:+$kargs }ntrace.direct=0"
[ -n "${mem:-}" ] || mem=512M
[ "$variant" = debug ] && [ "$mem" = 512M ] && mem=1G
[[ $mem =~ ^[0-9]+[MG]$ ]] || die "--mem wants a size like 512M or 1G, got '$mem'"
[ -z "$model_args" ] || { [[ $config == ntrace* ]] && [ -z "$plugin" ]; } ||
	die "--model-args is for the ntrace configurations' own plugin (not with --plugin)"

# ntrace: the N-Trace hardware model (Documentation/trace/ntrace-qemu-model.rst)
# needs its plugin, a DT with the trace components and RAM in a shared file.
if [[ $config == ntrace* ]]; then
	with_lock "$NTRACE_CACHE/locks/ntrace-model" make -s -C "$NTRACE_TOP/qemu/ntrace-model" plugin >&2 ||
		die "cannot build the ntrace model plugin"
	if [ -z "$dtb" ]; then
		dtb=$NTRACE_TOP/build/guest/$variant/$config.dtb
		mkdir -p "$(dirname "$dtb")"
		case $mem in *G) mib=$((${mem%G} * 1024)) ;; *) mib=${mem%M} ;; esac
		bash "$NTRACE_TOP/qemu/ntrace-model/dt/gen-dt.sh" -o "$dtb" -m "$mib" -s "$smp" -t "$topo" \
			${dtform:+-f "$dtform"} ${foreign:+-x "$foreign"} ${harts:+-p "$harts"} -- -cpu "$cpu" ||
			die "cannot generate the ntrace device tree"
	fi
	if [ -z "$ram_file" ]; then
		ram_file=/dev/shm/ntrace-guest.$$
		trap 'rm -f "$ram_file"' EXIT
	fi
	[ -n "$plugin" ] || plugin=$NTRACE_TOP/build/ntrace-model/ntrace-model.so,ram=$ram_file,topo=$topo${sram:+,sram=$sram}${foreign:+,foreign=$foreign}${model_args:+,$model_args}
fi

kdir=$(bash "$NTRACE_TOP/scripts/kernel.sh" "$variant")
image=$kdir/arch/riscv/boot/Image
[ -f "$image" ] || die "no kernel image $image"
if [ -z "$initrd" ]; then
	initrd=$(bash "$NTRACE_TOP/scripts/initramfs.sh" --kernel "$variant") || die "initramfs build failed"
fi
[ -f "$initrd" ] || die "no initramfs '$initrd'"
console=${console:-$NTRACE_TOP/build/guest/$variant/$config.console}
mkdir -p "$(dirname "$console")"

# loglevel=2 keeps the kernel's own console to critical messages (an oops
# raises it); the init relays the whole kernel log itself, so the console
# has one writer. panic=-1 with -no-reboot ends QEMU on a panic.
cmdline="console=ttyS0 loglevel=2 panic=-1 rdinit=/init ntguest.mode=$mode ntguest.timeout=$test_timeout"
[ -n "$filter" ] && cmdline+=" ntguest.filter=$filter"
# Known platform defects the guest tests must know about, as
# ntguest.quirks=a,b (selftests/lib/guest.h). mttcg-lost-overflow: with
# multi-threaded TCG and more than one hart, QEMU 10.0.2 loses counter
# overflow interrupts (perf record -e cycles gets no or few samples in about
# a third of the runs); "-- -accel tcg,thread=single" avoids it, slowly.
if [ "$smp" -gt 1 ] && [[ " ${qemu_extra[*]} " != *thread=single* ]]; then
	cmdline+=" ntguest.quirks=mttcg-lost-overflow"
fi
[ -n "$kargs" ] && cmdline+=" $kargs"
[ -n "$append" ] && cmdline+=" $append"

machine=(-M virt -m "$mem")
if [ -n "$ram_file" ]; then
	machine=(-M virt,memory-backend=ram -m "$mem"
		-object "memory-backend-file,id=ram,size=$mem,mem-path=$ram_file,share=on")
fi
[ -z "$plugin" ] || machine+=(-plugin "$plugin")
if [ -n "$dtb" ]; then
	[ -f "$dtb" ] || die "no device tree '$dtb'"
	machine+=(-dtb "$dtb")
fi

# The export disk: a fresh sparse raw image (no stale header from an
# earlier run), next to the console log.
if [ -n "$export_dir" ]; then
	export_img=$console.export.img
	rm -f "$export_img"
	truncate -s "${export_mib}M" "$export_img" || die "cannot create $export_img"
	machine+=(-drive "file=$export_img,format=raw,if=none,id=export"
		-device virtio-blk-device,drive=export)
fi

log "$config: booting $variant kernel ($cpu, $smp harts), limit ${timeout}s"
start=$SECONDS
rc=0
timeout -k 10 "$timeout" qemu-system-riscv64 "${machine[@]}" -cpu "$cpu" -smp "$smp" \
	-display none -monitor none -serial stdio -no-reboot \
	-kernel "$image" -initrd "$initrd" -append "$cmdline" \
	"${qemu_extra[@]}" </dev/null >"$console" 2>"$console.stderr" || rc=$?
elapsed=$((SECONDS - start))
timed_out=0
[ "$rc" = 124 ] || [ "$rc" = 137 ] && timed_out=$timeout
[ $verbose = 1 ] && cat "$console"

status=0
if [ "$rc" != 0 ] && [ $timed_out = 0 ]; then
	log "$config: QEMU exited with status $rc:"
	sed 's/^/    /' "$console.stderr" >&2
	status=1
fi
if [ $timed_out != 0 ] || ! grep -q '^ntrace| end ' "$console"; then
	log "$config: guest did not finish; console tail ($console):"
	tail -40 "$console" | sed 's/^/    /' >&2
	status=1
fi

# Unpack the export disk: header block "NTRACE-EXPORT 1 ustar <bytes>",
# then <bytes> of ustar archive (guest/export.h).
if [ -n "$export_dir" ]; then
	read -r magic version format bytes < <(head -c 512 "$export_img" | tr -d '\0') || true
	if [ "${magic:-}" != NTRACE-EXPORT ] || [ "${version:-}" != 1 ] ||
		[ "${format:-}" != ustar ] || ! [[ ${bytes:-} =~ ^[0-9]+$ ]]; then
		log "$config: the guest wrote no export archive ($export_img)"
		status=1
	else
		mkdir -p "$export_dir"
		# head first: "tail | head" would fail on tail's SIGPIPE (pipefail).
		if head -c $((512 + bytes)) "$export_img" | tail -c "$bytes" |
			tar -x --no-same-owner -C "$export_dir"; then
			log "$config: exported $bytes bytes into $export_dir"
			rm -f "$export_img"
		else
			log "$config: cannot unpack the export archive ($export_img)"
			status=1
		fi
	fi
fi

if [ "$mode" = run ]; then
	sed -n 's/^ntrace| \(run .*\)/\1/p; s/^ntrace| \(error .*\)/\1/p; s/^out| /    /p' "$console"
	grep -q '^ntrace| end mode=run failures=0' "$console" || status=1
elif [ "$mode" = demo ]; then
	sed -n 's/^ntrace| modload \([^ ]*\) \(.*\)/module \1: \2/p; s/^demo| //p' "$console"
	grep -q '^ntrace| end mode=demo failures=0' "$console" || status=1
else
	tap=$(awk -v cfg="$config" -v timed_out="$timed_out" -f "$NTRACE_TOP/guest/console-to-tap.awk" "$console")
	# The foreign component: the driver names it once per module load
	# (before each "ntrace: N CPU(s)" line) and binds the rest.
	if [ -n "$foreign" ] && [ $timed_out = 0 ]; then
		tap+=$'\n'$(awk -v cfg="$config" '
			/^kmsg\| .*ntrace: .*trace-component@[0-9a-f]+: .*not used/  { n++; if (seen++) dup++ }
			/^kmsg\| .*ntrace: [0-9]+ CPU\(s\) with N-Trace/ { loads++; seen = 0 }
			END {
				ok = n > 0 && !dup && loads > 0
				printf "%s - %s: foreign component reported once per module load (%d reports, %d loads)\n",
					ok ? "ok" : "not ok", cfg, n, loads
			}' "$console")
	fi
	printf '%s\n' "$tap"
	# known failures (not ok # TODO) count as skipped, as in scripts/test.sh
	read -r npass nfail nskip < <(awk -f "$NTRACE_TOP/scripts/tap-count.awk" <<<"$tap")
	[ "$nfail" = 0 ] || status=1
	log "$config: $npass passed, $nfail failed, $nskip skipped (${elapsed}s, console: $console)"
fi
exit $status
