#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the guest initramfs for one kernel variant:
#   /init                      guest/ (static C init, see guest/init.c)
#   /lib/modules/ntrace/*.ko   every module built under drivers/, against
#                              this variant's kernel
#   /selftests/<area>/...      the kselftests and settings files (make -C selftests)
#   /usr/bin/perf              scripts/perf.sh (static riscv64 perf)
#   /usr/bin/perf-ntrace       tools/perf-ntrace (static riscv64 build)
# Usage: scripts/initramfs.sh [--kernel guest|debug] [--add HOST=GUEST]...
#        [-o FILE]
# --add copies an extra host file or directory into the image (repeatable).
# Prints the path of the gzip'd cpio (default build/guest/<variant>/initramfs.cpio.gz).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

variant=guest out= adds=()
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) variant=$2; shift 2 ;;
	--add) [[ $2 == *=/* ]] || die "--add wants HOST=/GUEST/PATH, got '$2'"
		adds+=("$2"); shift 2 ;;
	-o) out=$2; shift 2 ;;
	*) die "unknown argument '$1' (see the header of $0)" ;;
	esac
done
work=$NTRACE_TOP/build/guest/$variant
out=${out:-$work/initramfs.cpio.gz}
jobs=${NTRACE_JOBS:-2}
mkdir -p "$work"
# One build at a time per tree: parallel runs would share build/modules,
# build/selftests and build/guest.
exec 9>"$NTRACE_TOP/build/guest/.lock"
flock 9

kdir=$(bash "$NTRACE_TOP/scripts/kernel.sh" "$variant")

# Modules: build a private copy of the sources, so parallel builds in the
# work tree (make modules) and other variants never share object files.
msrc=$NTRACE_TOP/build/modules/$variant
mkdir -p "$msrc"
rsync -a --delete --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
	--exclude='*.mod*' --exclude=modules.order --exclude=Module.symvers \
	$(ls -d "$NTRACE_TOP"/{Kbuild,Kconfig,drivers,include} 2>/dev/null) "$msrc/" ||
	die "cannot copy the module sources"
# rsync --delete with excludes keeps stale objects of deleted sources; that is
# harmless because only modules listed in modules.order are packed.
log "building modules against $kdir"
make -s -C "$kdir" M="$msrc" ARCH=riscv CROSS_COMPILE="$CROSS_COMPILE" -j"$jobs" modules >&2 ||
	die "module build failed"

log "building selftests and init"
make -s -C "$NTRACE_TOP/selftests" O="$NTRACE_TOP/build/selftests" -j"$jobs" >&2 || die "selftests build failed"
make -s -C "$NTRACE_TOP/guest" O="$NTRACE_TOP/build/guest" >&2 || die "guest init build failed"
perf=$(bash "$NTRACE_TOP/scripts/perf.sh") || die "perf build failed"
# perf-ntrace for the guest (info reads sysfs there; perf ntrace finds it
# next to perf): static, no libraries needed.
pnt=$NTRACE_TOP/build/perf-ntrace-riscv64
make -s -C "$NTRACE_TOP/tools/perf-ntrace" CC="${CROSS_COMPILE}gcc" AR="${CROSS_COMPILE}ar" \
	B="$pnt" LDFLAGS=-static -j"$jobs" tool >&2 || die "riscv64 perf-ntrace build failed"

# gen_init_cpio from the kernel source: device nodes without root, and
# reproducible owners (0:0).
src=$(kernel_source)
gen=$NTRACE_TOP/build/guest/gen_init_cpio
if [ ! -x "$gen" ] || [ "$src/usr/gen_init_cpio.c" -nt "$gen" ]; then
	gcc -O2 -o "$gen" "$src/usr/gen_init_cpio.c" || die "cannot build gen_init_cpio"
fi

list=$work/initramfs.list
{
	echo "dir /dev 0755 0 0"
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "nod /dev/null 0666 0 0 c 1 3"
	for d in /proc /sys /tmp /lib /lib/modules /lib/modules/ntrace /usr /usr/bin /selftests; do
		echo "dir $d 0755 0 0"
	done
	echo "file /init $NTRACE_TOP/build/guest/init 0755 0 0"
	echo "file /usr/bin/perf $perf 0755 0 0"
	echo "file /usr/bin/perf-ntrace $pnt/perf-ntrace 0755 0 0"
	# Modules actually built now (modules.order), not stale objects.
	if [ -f "$msrc/modules.order" ]; then
		while IFS= read -r m; do
			m=${m%.o}.ko
			[[ $m == /* ]] || m=$msrc/$m
			[ -f "$m" ] || die "module $m listed in modules.order was not built"
			echo "file /lib/modules/ntrace/${m##*/} $m 0644 0 0"
		done <"$msrc/modules.order"
	fi
	# The tests of the current sources (never stale binaries of removed
	# tests) and each area's settings file.
	for t in "$NTRACE_TOP"/selftests/*/*_test.c "$NTRACE_TOP"/selftests/*/settings; do
		[ -e "$t" ] || continue
		rel=${t#"$NTRACE_TOP"/selftests/}
		rel=${rel%.c}
		h=$NTRACE_TOP/build/selftests/$rel
		[ -f "$h" ] || die "selftest $rel was not built"
		echo "dir /selftests/${rel%%/*} 0755 0 0"
		echo "file /selftests/$rel $h $(stat -c %a "$h") 0 0"
	done
	for a in "${adds[@]}"; do
		h=${a%%=*} g=${a#*=}
		[ -e "$h" ] || die "--add: no such file '$h'"
		# The kernel's unpacker does not create missing parents.
		p=$(dirname "$g")
		while [ "$p" != / ]; do echo "dir $p 0755 0 0"; p=$(dirname "$p"); done | tac
		if [ -d "$h" ]; then
			echo "dir $g 0755 0 0"
			(cd "$h" && find . -mindepth 1 | LC_ALL=C sort) | while IFS= read -r f; do
				if [ -d "$h/$f" ]; then echo "dir $g/${f#./} 0755 0 0"
				else echo "file $g/${f#./} $h/${f#./} $(stat -c %a "$h/$f") 0 0"; fi
			done
		else
			echo "file $g $h $(stat -c %a "$h") 0 0"
		fi
	done
} >"$list"
# gen_init_cpio wants parent directories listed before their files.
"$gen" "$list" | gzip -1 -n >"$out.tmp" || die "cpio generation failed"
mv "$out.tmp" "$out"
echo "$out"
