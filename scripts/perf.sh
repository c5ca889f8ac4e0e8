#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build (or reuse) a static riscv64 perf from the kernel source's tools/perf.
# Usage: scripts/perf.sh          prints the path of the riscv64 perf binary
#        scripts/perf.sh --host   the same for a dynamic x86_64 (build machine)
#                                 perf built as a distribution builds it:
#                                 libelf, libdw, libtraceevent, zstd, python
#                                 scripting, the slang TUI, C++ demangling,
#                                 capstone 5 for RISC-V (scripts/capstone.sh);
#                                 reads the guest's perf.data files on the host
#        scripts/perf.sh --host --sanitize
#                                 the same host perf built with AddressSanitizer
#                                 and UBSan (perf's DEBUG=1: assertions on,
#                                 -O1, not stripped), libntrace too; its own
#                                 cache entry (scripts/perf-asan.sh runs it)
# Patches: every *.patch in $NTRACE_PERF_PATCHES (default tools/perf-patches/)
# is applied in name order with "patch -p1" against the kernel source top,
# on a private copy of the sources. The cache entry under $NTRACE_CACHE/perf/
# is keyed by the source version, the patch set, the build flags (with the
# libntrace and capstone prefixes, keyed by their own inputs) and the
# compiler, so a warm run rebuilds nothing.
#
# bookworm has no riscv64 -dev libraries: libelf and zlib are cross-built
# from Debian's source packages (scripts/cross-libs.sh), so the guest perf
# reads ELF symbols and perf record --kcore copies /proc/kcore; it is built
# without libdw, libtraceevent, python etc.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

host=0 sanitize=0
for a in "$@"; do
	case $a in
	--host) host=1 ;;
	--sanitize) sanitize=1 ;;
	*) die "usage: ${0##*/} [--host [--sanitize]]" ;;
	esac
done
[ "$sanitize" = 0 ] || [ "$host" = 1 ] || die "--sanitize needs --host"

patchdir=${NTRACE_PERF_PATCHES:-$NTRACE_TOP/tools/perf-patches}
# Bump when the way perf is built changes.
BUILD_REV=1
RISCV_FLAGS=(
	ARCH=riscv CROSS_COMPILE="$CROSS_COMPILE" NO_DWARF=1
	NO_LIBTRACEEVENT=1 NO_LIBPYTHON=1 NO_LIBPERL=1
	NO_LIBBPF=1 BUILD_BPF_SKEL=0 NO_JVMTI=1 NO_SLANG=1 NO_GTK2=1
	NO_LIBUNWIND=1 NO_LIBDW_DWARF_UNWIND=1 NO_LIBNUMA=1 NO_LIBAUDIT=1
	NO_LIBCRYPTO=1 NO_LIBZSTD=1 NO_LZMA=1 NO_LIBCAP=1
	NO_LIBBABELTRACE=1 NO_SDT=1 NO_DEMANGLE=1 NO_LIBLLVM=1 NO_CAPSTONE=1
	NO_LIBPFM4=1 NO_SHELLCHECK=1 NO_LIBDEBUGINFOD=1 WERROR=0
)
# Host perf: the Debian -dev libraries scripts/deps.sh installs; the rest off
# so the feature set does not depend on what else happens to be installed.
# On, as in Debian's linux-perf: libpython (perf script -s, perf script
# report ..., the python scripts installed under the prefix's
# libexec/perf-core), slang (the perf report/annotate TUI) and C++
# demangling through libstdc++'s __cxa_demangle (perf's own path in 6.12;
# libbfd's needs BUILD_NONDISTRO, which distributions do not set).
# perf annotate disassembles with objdump (riscv64-linux-gnu-objdump, which
# it picks for a riscv64 recording): perf 6.12's LLVM disassembler asks for
# no RISC-V extensions, so it rejects compressed code and falls back to
# objdump. perf script -F +disasm (--insn-trace=disasm) disassembles with
# capstone only: Debian 12's is 4.x, without RISC-V, so the host perf links
# capstone 5 built from trixie's source package (scripts/capstone.sh,
# static, RISC-V only) and patch 0023 opens it for riscv64 and riscv32.
HOST_FLAGS=(
	CROSS_COMPILE= NO_LIBPERL=1 NO_LIBBPF=1 BUILD_BPF_SKEL=0 NO_JVMTI=1
	NO_GTK2=1 NO_LIBUNWIND=1 NO_LIBNUMA=1 NO_LIBAUDIT=1
	NO_LIBCRYPTO=1 NO_LIBCAP=1 NO_LIBBABELTRACE=1 NO_SDT=1
	NO_LIBLLVM=1 NO_LIBPFM4=1 NO_SHELLCHECK=1
	NO_LIBDEBUGINFOD=1 WERROR=0 PYTHON=/usr/bin/python3 PYTHON_CONFIG=/usr/bin/python3-config
)
# the packages behind the host perf's features (cache key)
HOST_PKGS=(libelf-dev libdw-dev libtraceevent-dev libzstd-dev zlib1g-dev liblzma-dev
	libpython3-dev python3-setuptools libslang2-dev g++ libstdc++-12-dev)
# The sanitized host perf: the same features, compiled with ASan and UBSan.
# perf's DEBUG=1 keeps its assertions (BUG_ON) and drops -O3 and
# _FORTIFY_SOURCE; -O1 keeps it fast enough for many runs. perf's Makefile
# appends its own LDFLAGS (libpython's among them), so the sanitizers'
# LDFLAGS come from the environment rather than the command line. Only the
# perf binary is built: python scripting is linked in, but not perf's
# python extension (python/perf.so, which a sanitized build could load only
# with libasan preloaded into python).
SAN_CFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -g -O1"
SAN_LDFLAGS="-fsanitize=address,undefined"
if [ "$host" = 1 ]; then
	# perf 6.12's LIBCAPSTONE_DIR gives the feature check and the build
	# -I$DIR/include but links with no -L$DIR/lib: that comes from
	# LDFLAGS in the environment (which perf's Makefile appends to)
	cs=$(bash "$NTRACE_TOP/scripts/capstone.sh") || die "capstone 5 (scripts/capstone.sh) failed"
	PERF_FLAGS=("${HOST_FLAGS[@]}" LIBCAPSTONE_DIR="$cs")
	host_ldflags="-L$cs/lib"
	if [ "$sanitize" = 1 ]; then
		PERF_FLAGS+=(DEBUG=1 EXTRA_CFLAGS="$SAN_CFLAGS")
		host_ldflags+=" $SAN_LDFLAGS"
	fi
	toolchain="$(cc --version | head -1) $(dpkg-query -W -f='${Package}=${Version} ' \
		"${HOST_PKGS[@]}" 2>/dev/null)"
	kind=host
else
	xlibs=$(bash "$NTRACE_TOP/scripts/cross-libs.sh") || die "cross-built libelf and zlib"
	PERF_FLAGS=("${RISCV_FLAGS[@]}" EXTRA_CFLAGS="-I$xlibs/include" LDFLAGS="-static -L$xlibs/lib")
	toolchain=$(${CROSS_COMPILE}gcc --version | head -1)
	kind=static-riscv64
fi

# libntrace (tools/perf-ntrace), built for perf's target and installed
# static-only into a prefix keyed by its sources and compiler, so perf's
# feature check finds it through LIBNTRACE_DIR and perf decodes N-Trace
# with no run-time dependency. CFLAGS (optional) replace the library's
# default -O2 -g: the host's is position-independent, as perf's python
# extension (a shared object) links it too.
libntrace_prefix() {
	local cc=$1 ar=$2 cflags=${3:-} nt=$NTRACE_TOP/tools/perf-ntrace key dir
	local flagkey=() flagarg=()
	[ -z "$cflags" ] || { flagkey=("cflags $cflags"); flagarg=(CFLAGS="$cflags"); }
	key=$(cache_key "libntrace rev 1" "${flagkey[@]}" "$($cc --version | head -1)" "$nt/Makefile" \
		"$nt/libntrace.map" "$nt/libntrace.pc.in" "$NTRACE_TOP/include/uapi/linux/ntrace.h" \
		"$NTRACE_TOP/include/uapi/linux/ntrace_tci.h" \
		$(find "$nt/lib" "$nt/include" -type f | LC_ALL=C sort))
	dir=$NTRACE_CACHE/libntrace/$key
	if [ ! -f "$dir/.ntrace-built" ]; then
		rm -rf "$dir"
		make -C "$nt" -s CC="$cc" AR="$ar" B="$dir/build" PREFIX="$dir" \
			"${flagarg[@]}" install >"$NTRACE_CACHE/libntrace-$key.log" 2>&1 ||
			{ tail -20 "$NTRACE_CACHE/libntrace-$key.log" >&2; die "libntrace build failed"; }
		rm -rf "$dir/build" "$dir"/lib/libntrace.so*
		touch "$dir/.ntrace-built"
	fi
	echo "$dir"
}
if [ "$sanitize" = 1 ]; then
	ntlib=$(with_lock "$NTRACE_CACHE/libntrace.lock" libntrace_prefix cc ar "-fPIC $SAN_CFLAGS")
elif [ "$host" = 1 ]; then
	ntlib=$(with_lock "$NTRACE_CACHE/libntrace.lock" libntrace_prefix cc ar "-O2 -g -fPIC")
else
	ntlib=$(with_lock "$NTRACE_CACHE/libntrace.lock" libntrace_prefix "${CROSS_COMPILE}gcc" "${CROSS_COMPILE}ar")
fi
PERF_FLAGS+=(LIBNTRACE_DIR="$ntlib")

patches=()
if [ -d "$patchdir" ]; then
	while IFS= read -r p; do patches+=("$p"); done < <(find "$patchdir" -maxdepth 1 -name '*.patch' | LC_ALL=C sort)
fi

src=$(kernel_source)
# the patches by name and content, not by path: a clone elsewhere shares the cache
names=("${patches[@]##*/}")
keyargs=("rev $BUILD_REV" "$(linux_source_version)" "$toolchain" "${PERF_FLAGS[*]}"
	"${names[@]/#/patch }" "${patches[@]}")
# The riscv64 key is unchanged from before host mode existed; HOST_REV is
# the host build's own BUILD_REV (2: installed under the entry as prefix).
HOST_REV=2
[ "$host" = 1 ] && keyargs=("host" "host rev $HOST_REV" "ldflags $host_ldflags" "${keyargs[@]}")
[ "$sanitize" = 1 ] && keyargs=("sanitize $SAN_LDFLAGS" "${keyargs[@]}") && kind="sanitized host"
key=$(cache_key "${keyargs[@]}")
out=$NTRACE_CACHE/perf/$key

build() {
	[ -f "$out/.ntrace-built" ] && return 0
	log "building $kind perf in $out (${#patches[@]} patches; several minutes)"
	rm -rf "$out" && mkdir -p "$out/src" "$out/obj"
	# Copy what tools/perf/MANIFEST needs (plus headers the build compares).
	(cd "$src" && cp -a --parents tools include scripts arch/*/include/uapi arch/riscv \
		arch/arm64/tools kernel/bpf/disasm.c kernel/bpf/disasm.h Makefile "$out/src/")
	local p
	for p in "${patches[@]}"; do
		log "applying ${p##*/}"
		patch -p1 -s -d "$out/src" <"$p" || die "patch ${p##*/} does not apply"
	done
	local start=$SECONDS target=(perf) ldenv=()
	# The host perf is installed with the entry as its prefix: its python
	# scripts (libexec/perf-core/scripts/python, found through the
	# compiled-in exec path) are what perf script -s and perf script
	# report run.
	[ "$host" = 1 ] && target=(prefix="$out/inst" install-tools) ldenv=(LDFLAGS="$host_ldflags")
	[ "$sanitize" = 0 ] || target=(perf)
	env "${ldenv[@]}" make -C "$out/src/tools/perf" O="$out/obj" -j"${NTRACE_JOBS:-2}" "${PERF_FLAGS[@]}" \
		"${target[@]}" >"$out/build.log" 2>&1 ||
		{ tail -40 "$out/build.log" >&2; die "perf build failed (log: $out/build.log)"; }
	if [ "$sanitize" = 1 ]; then
		# symbols and line numbers for the sanitizers' reports
		cp "$out/obj/perf" "$out/perf"
	elif [ "$host" = 1 ]; then
		strip -o "$out/perf" "$out/obj/perf"
		rm -f "$out/inst/bin/perf" "$out/inst/bin/trace"
		ln -s ../../perf "$out/inst/bin/perf"
	else
		file "$out/obj/perf" | grep -q 'statically linked' || die "perf is not a static binary"
		${CROSS_COMPILE}strip -o "$out/perf" "$out/obj/perf"
	fi
	echo "$((SECONDS - start))" >"$out/build-seconds"
	rm -rf "$out/src"
	touch "$out/.ntrace-built"
}
with_lock "$out.lock" build
echo "$out/perf"
