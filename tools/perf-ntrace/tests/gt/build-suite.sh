#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the ground-truth test suite and record what QEMU retired for each
# program. Output (stable paths for other tests):
#   build/gt/bin/gt-tool, build/gt/bin/gt-plugin.so   (make test-tools)
#   build/gt/<name>        the program (ELF)
#   build/gt/<name>.pcs    ground truth (format: include/ntrace/ingress_build.h)
#   build/gt/manifest      one line per program: "<name> <priv> <kind>"
#                          (priv u|m: of every record; kind user|baremetal)
# User-mode programs (glibc, -static) are named <prog>-<O0|O2|Os>-<gc|g>;
# bare-metal ones traps-<gc|g> (timer interrupts) and traps-notimer-<gc|g>.
# Programs that need decoder options or carry two privilege levels live
# apart, so tools that take every build/gt/*.pcs do not meet them:
# build/gt/extra/zcmp-zcmt(.pcs) needs Zcmp/Zcmt decoding and the JVT base
# in build/gt/extra/zcmp-zcmt.jvt (only built when llvm-mc-19 is
# installed); build/gt/extra/smode-gc runs in M- and S-mode.
# Programs and ground truth are cached under $NTRACE_CACHE/gt by a hash of
# their inputs. User mode is recorded with QEMU's own per-instruction exec
# log (Debian's qemu-riscv64 is static and cannot load plugins); system
# mode with gt-plugin.so.
# Usage: build-suite.sh [-j N] [--tools]   (--tools: only gt-tool, gt-plugin.so)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)		# tools/perf-ntrace
. "$src/../../scripts/lib.sh"
jobs=2 tools_only=0
while [ $# -gt 0 ]; do
	case $1 in
	-j) jobs=$2; shift 2 ;;
	--tools) tools_only=1; shift ;;
	*) die "unknown argument '$1' (usage: build-suite.sh [-j N] [--tools])" ;;
	esac
done

out=$NTRACE_TOP/build/gt
cache=$NTRACE_CACHE/gt
bin=$out/bin
mkdir -p "$out" "$bin" "$cache"

# One build at a time (tests may run this concurrently); the others wait
# and then find everything cached.
if [ -z "${NTRACE_GT_LOCKED:-}" ]; then
	exec 9>"$cache/.lock"
	flock 9
	export NTRACE_GT_LOCKED=1
fi
CC=${CROSS_COMPILE}gcc
command -v "$CC" >/dev/null || die "$CC not found (run scripts/deps.sh)"
command -v qemu-riscv64 >/dev/null || die "qemu-riscv64 not found (run scripts/deps.sh)"
command -v qemu-system-riscv64 >/dev/null || die "qemu-system-riscv64 not found"

# The recorders, built by the library's Makefile and copied here (a build
# elsewhere may replace them while the suite records).
make -s -C "$src" test-tools >&2 || die "the test tools do not build (make -C $src test-tools)"
for f in gt-tool gt-plugin.so; do
	cp "$NTRACE_TOP/build/perf-ntrace/tools/$f" "$bin/$f.tmp"
	mv "$bin/$f.tmp" "$bin/$f"
done
# Their key: the binaries without symbols, debug information and build-id,
# which depend on the build path; so library sources they do not link
# re-record nothing.
for f in gt-tool gt-plugin.so; do
	objcopy --strip-all --remove-section=.note.gnu.build-id "$bin/$f" "$bin/.$f.stripped"
done
cache_key "$bin/.gt-tool.stripped" "$bin/.gt-plugin.so.stripped" >"$bin/.key"
rm -f "$bin"/.*.stripped
[ $tools_only = 0 ] || exit 0

gccver=$("$CC" --version | head -1)
qemuver=$(qemu-system-riscv64 --version | head -1)

# build_one NAME KIND FLAGS... : compile (cached), record ground truth (cached)
build_one() {
	local name=$1 kind=$2; shift 2
	local srcs ekey key edir dir cname=${name//\//-}
	if [ "$kind" = user ]; then
		srcs=("$here/progs/${name%%-*}.c")
	elif [ "$kind" = zc ]; then
		srcs=("$here/baremetal/zc.S" "$here/baremetal/link.ld")
	elif [ "$kind" = smode ]; then
		srcs=("$here/baremetal/start.S" "$here/baremetal/smode.c" "$here/baremetal/link.ld")
	else
		srcs=("$here/baremetal/start.S" "$here/baremetal/traps.c" "$here/baremetal/link.ld")
	fi
	# the program, keyed by its inputs (static links are the slow part)
	ekey=$(cache_key "${srcs[@]}" "$kind" "$*" "$gccver")
	edir=$cache/elf-$cname-$ekey
	if [ ! -f "$edir/elf" ]; then
		mkdir -p "$edir"
		if [ "$kind" = user ]; then
			"$CC" -static -g "$@" -o "$edir/elf.tmp" "${srcs[0]}"
		elif [ "$kind" = zc ]; then
			llvm-mc-19 -triple=riscv64 -mattr=+zca,+zcmp,+zcmt,+zicsr -filetype=obj \
				-o "$edir/o" "${srcs[0]}"
			# binutils 2.40 does not know the extensions in the attributes
			"${CROSS_COMPILE}objcopy" --remove-section .riscv.attributes "$edir/o"
			"${CROSS_COMPILE}ld" --no-relax -T "${srcs[1]}" -o "$edir/elf.tmp" "$edir/o"
		else
			"$CC" -mabi=lp64 -mcmodel=medany -ffreestanding -nostdlib -nostartfiles \
				-static -fno-pic -no-pie -Wl,--no-relax -Wl,--build-id=none \
				-Wl,--no-warn-rwx-segments -T "${srcs[2]}" "$@" -o "$edir/elf.tmp" \
				"${srcs[0]}" "${srcs[1]}"
		fi
		mv "$edir/elf.tmp" "$edir/elf"
	fi
	# its ground truth, keyed by the program, QEMU and the recorders
	key=$(cache_key "$ekey" "$qemuver" "$bin/.key")
	dir=$cache/$cname-$key
	if [ ! -f "$dir/pcs" ]; then
		mkdir -p "$dir"
		if [ "$kind" = user ]; then
			qemu-riscv64 -one-insn-per-tb -d exec,nochain -D "$dir/exec.log" "$edir/elf" ||
				die "$name exited with status $?"
			"$bin/gt-tool" execlog "$dir/exec.log" "$dir/pcs.tmp" "$edir/elf"
			rm -f "$dir/exec.log"
		elif [ "$kind" = zc ]; then
			timeout 20 qemu-system-riscv64 -M virt -bios none -display none \
				-serial null -monitor none -cpu rv64,zcd=false,zcmp=true,zcmt=true \
				-kernel "$edir/elf" \
				-plugin "$bin/gt-plugin.so,out=$dir/pcs.tmp,start=0x80000000,isa=zc" \
				</dev/null || die "$name exited with status $?"
		else
			timeout 20 qemu-system-riscv64 -M virt -bios none -display none \
				-serial null -monitor none -kernel "$edir/elf" \
				-plugin "$bin/gt-plugin.so,out=$dir/pcs.tmp,start=0x80000000" \
				</dev/null || die "$name exited with status $?"
		fi
		mv "$dir/pcs.tmp" "$dir/pcs"
	fi
	mkdir -p "$(dirname "$out/$name")"
	ln -sfn "$edir/elf" "$out/$name"
	ln -sfn "$dir/pcs" "$out/$name.pcs"
	if [ "$kind" = zc ]; then
		"${CROSS_COMPILE}nm" "$edir/elf" | awk '$3 == "jvt_table" { print "0x" $1 }' \
			> "$out/$name.jvt"
	fi
}

list=()
for p in "$here"/progs/*.c; do
	p=$(basename "$p" .c)
	for o in O0 O2 Os; do
		list+=("$p-$o-gc user u -$o -march=rv64gc")
		list+=("$p-$o-g user u -$o -march=rv64g")
	done
done
list+=("traps-gc baremetal m -O2 -march=rv64imac_zicsr")
list+=("traps-g baremetal m -O2 -march=rv64ima_zicsr")
list+=("traps-notimer-gc baremetal m -O2 -march=rv64imac_zicsr -DNO_TIMER")
list+=("traps-notimer-g baremetal m -O2 -march=rv64ima_zicsr -DNO_TIMER")
list+=("extra/smode-gc smode m -O2 -march=rv64imac_zicsr")
command -v llvm-mc-19 >/dev/null && list+=("extra/zcmp-zcmt zc m")

export -f build_one die log cache_key
export here bin cache out CC gccver qemuver NTRACE_TOP
printf '%s\n' "${list[@]}" | awk '{ $3 = ""; print }' |
	xargs -P "$jobs" -L 1 bash -ec 'build_one "$@"' _
printf '%s\n' "${list[@]}" | awk '$1 !~ /^extra\// { print $1, $3, $2 }' > "$out/manifest"
log "$(wc -l < "$out/manifest") programs with ground truth in $out"
