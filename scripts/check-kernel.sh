#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The "kernel-checks" suite: static checks of the kernel code, one TAP line
# per check and file.
#  - the modules build against the guest kernel with W=1 and sparse (C=2:
#    every source file; CHECK=scripts/sparse-riscv.sh works around sparse
#    0.6.4's -march parsing), from a private copy of the sources; any compiler,
#    sparse or modpost warning fails the file it names (or the build line);
#  - scripts/checkpatch.pl --strict on every C file and header under
#    drivers/ and include/uapi/;
#  - scripts/checkpatch.pl (not --strict) on the kselftest sources, ignoring
#    the checks that only make sense for kernel code (kernel-only APIs such
#    as kstrto*/strscpy, and userspace idioms such as volatile busy loops,
#    execv argument arrays and linker-script symbols).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$NTRACE_TOP"

# Tracked or new (not ignored) files only: never generated *.mod.c.
sources() { git ls-files --cached --others --exclude-standard -- "$@" | grep -E '\.[ch]$' | LC_ALL=C sort -u; }
mapfile -t ksrc < <(sources drivers include/uapi)
mapfile -t tsrc < <(sources selftests)

ksrc_dir=$(kernel_source) || { not_ok "kernel-checks: no kernel source"; exit 1; }
checkpatch=$ksrc_dir/scripts/checkpatch.pl

if [ ${#ksrc[@]} -eq 0 ]; then
	skip "W=1 C=1 module build" "no kernel sources under drivers/ or include/uapi/"
	skip "checkpatch --strict" "no kernel sources under drivers/ or include/uapi/"
else
	kdir=$(bash scripts/kernel.sh guest) || { not_ok "W=1 C=1 module build: no guest kernel"; exit 1; }
	work=$NTRACE_TOP/build/check-kernel
	rm -rf "$work" && mkdir -p "$work"
	rsync -a --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' --exclude='*.mod*' \
		--exclude=modules.order --exclude=Module.symvers \
		$(ls -d Kbuild Kconfig drivers include 2>/dev/null) "$work/"
	make -C "$kdir" M="$work" ARCH=riscv CROSS_COMPILE="$CROSS_COMPILE" W=1 C=2 \
		CHECK="$NTRACE_TOP/scripts/sparse-riscv.sh" \
		-j"${NTRACE_JOBS:-2}" modules >"$work/build.log" 2>&1
	rc=$?
	# Warning lines name the file as given to the compiler: make them
	# relative to the tree.
	grep -E '(warning|error|WARNING|ERROR)' "$work/build.log" |
		grep -vE '^make(\[[0-9]+\])?: (Entering|Leaving)' |
		sed "s#$work/##g; s#^\./##" >"$work/warnings" || true
	cat "$work/build.log"
	for f in "${ksrc[@]}"; do
		if grep -q "^$f:" "$work/warnings"; then
			not_ok "W=1 C=1 clean: $f"
			grep "^$f:" "$work/warnings" | sed 's/^/    /'
		else
			ok "W=1 C=1 clean: $f"
		fi
	done
	# Warnings that name no file of ours (modpost, kernel headers) and
	# build failures get one line.
	other=$(grep -vE "^($(printf '%s|' "${ksrc[@]}" | sed 's/[.]/\\./g; s/|$//')):" "$work/warnings")
	if [ $rc -ne 0 ] || [ -n "$other" ]; then
		not_ok "W=1 C=1 module build (exit $rc)"
		[ -z "$other" ] || printf '%s\n' "$other" | sed 's/^/    /'
		[ $rc -eq 0 ] || tail -20 "$work/build.log" | sed 's/^/    /'
	else
		ok "W=1 C=1 module build"
	fi
	for f in "${ksrc[@]}"; do
		if out=$("$checkpatch" --strict --no-tree --quiet --show-types -f "$f" 2>&1); then
			ok "checkpatch --strict: $f"
		else
			not_ok "checkpatch --strict: $f"
			printf '%s\n' "$out" | sed 's/^/    /'
		fi
	done
fi

userspace_ignore=SSCANF_TO_KSTRTO,STRCPY,STRLCPY,VOLATILE,STATIC_CONST_CHAR_ARRAY,AVOID_EXTERNS,PREFER_DEFINED_ATTRIBUTE_MACRO,QUOTED_WHITESPACE_BEFORE_NEWLINE
if [ ${#tsrc[@]} -eq 0 ]; then
	skip "checkpatch selftests" "no selftest sources"
fi
for f in "${tsrc[@]}"; do
	if out=$("$checkpatch" --no-tree --quiet --show-types --ignore "$userspace_ignore" -f "$f" 2>&1); then
		ok "checkpatch: $f"
	else
		not_ok "checkpatch: $f"
		printf '%s\n' "$out" | sed 's/^/    /'
	fi
done
tap_status
