#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build (or reuse) the riscv64 guest kernel from Debian's linux-source-6.12.
# Usage: scripts/kernel.sh [guest|debug]
# Prints the build directory (KDIR for out-of-tree modules) on stdout.
# The build lives under $NTRACE_CACHE/kernel/, keyed by the source version,
# the config fragments and the cross compiler, so a warm run rebuilds nothing.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

variant=${1:-guest}
case $variant in
guest) frags=("$NTRACE_TOP/configs/guest.config") ;;
debug) frags=("$NTRACE_TOP/configs/guest.config" "$NTRACE_TOP/configs/debug.config") ;;
*) die "unknown kernel variant '$variant' (guest or debug)" ;;
esac

# Bump when the way the kernel is built changes.
BUILD_REV=1
src=$(kernel_source)
key=$(cache_key "rev $BUILD_REV" "$(linux_source_version)" "$(${CROSS_COMPILE}gcc --version | head -1)" "${frags[@]}")
out=$NTRACE_CACHE/kernel/$variant-$key

build() {
	[ -f "$out/.ntrace-built" ] && return 0
	log "building $variant kernel in $out (a few minutes)"
	mkdir -p "$out"
	local mk=(make -s -C "$src" O="$out" ARCH=riscv CROSS_COMPILE="$CROSS_COMPILE")
	"${mk[@]}" tinyconfig >/dev/null
	(cd "$out" && KCONFIG_CONFIG=.config "$src/scripts/kconfig/merge_config.sh" -m -O "$out" .config "${frags[@]}" >/dev/null)
	"${mk[@]}" olddefconfig >/dev/null
	# Every fragment line must have survived Kconfig's dependency resolution.
	local line bad=0
	while IFS= read -r line; do
		case $line in CONFIG_*=*) ;; *) continue ;; esac
		grep -qx "$line" "$out/.config" || { log "config did not stick: $line"; bad=1; }
	done < <(cat "${frags[@]}")
	[ $bad = 0 ] || die "config fragment not applied; fix configs/*.config"
	"${mk[@]}" -j"$(nproc)" Image modules >"$out/build.log" 2>&1 ||
		{ tail -30 "$out/build.log" >&2; die "kernel build failed (log: $out/build.log)"; }
	touch "$out/.ntrace-built"
}
with_lock "$out.lock" build
echo "$out"
