# SPDX-License-Identifier: GPL-2.0-only
# Shared helpers for the ntrace build scripts (sourced, not run).

NTRACE_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NTRACE_CACHE=${NTRACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ntrace}
CROSS_COMPILE=${CROSS_COMPILE:-riscv64-linux-gnu-}
export NTRACE_TOP NTRACE_CACHE CROSS_COMPILE

# the test scripts' result lines: ok, not_ok, skip, check
. "$NTRACE_TOP/scripts/tap.sh"

die() { echo "${0##*/}: error: $*" >&2; exit 1; }
log() { echo "${0##*/}: $*" >&2; }

# perf-ntrace's tests: "make test" passes the sources, the build directory
# and the command under test; a test run by hand gets these defaults.
NTRACE_SRC=${NTRACE_SRC:-$NTRACE_TOP/tools/perf-ntrace}
NTRACE_BUILD=${NTRACE_BUILD:-$NTRACE_TOP/build/perf-ntrace}
PERF_NTRACE=${PERF_NTRACE:-$NTRACE_BUILD/perf-ntrace}
NTRACE_GT_DIR=${NTRACE_GT_DIR:-$NTRACE_TOP/build/gt}

# scratch VAR [PARENT [KEEP]]: VAR = a new directory under PARENT (made if
# need be; default $TMPDIR or /tmp), removed when the script exits unless
# KEEP is not empty (then its path is printed, as a TAP comment). One per
# run, as runs in parallel may share PARENT.
scratch() {
	local d parent=${2:-${TMPDIR:-/tmp}}
	mkdir -p "$parent" && d=$(mktemp -d "$parent/run.XXXXXX") || return 1
	printf -v "$1" '%s' "$d"
	if [ -n "${3:-}" ]; then
		echo "# ${0##*/}: work directory $d"
	else
		# shellcheck disable=SC2064	# the path now, not at exit
		trap "rm -rf '$d'" EXIT
	fi
}

# gt_copy NAME PCS ELF: copy NAME's ground truth from $NTRACE_GT_DIR
# (NAME.pcs and the program, NAME or NAME.elf) to PCS and ELF, a copy as it
# may be recorded again meanwhile, and print the privilege its manifest
# line gives (none: empty). Status 1 when there is none.
gt_copy() {
	local i g=$NTRACE_GT_DIR
	for i in "$g/$1" "$g/$1.elf"; do
		if [ -f "$g/$1.pcs" ] && [ -f "$i" ] && cp -L "$g/$1.pcs" "$2" && cp -L "$i" "$3"; then
			awk -v n="$1" '$1 == n { print $2 }' "$g/manifest" 2>/dev/null
			return 0
		fi
	done
	return 1
}

# record_user_gt GT-TOOL C-SOURCE ELF PCS: build a test program (static
# riscv64) and record what QEMU user mode retires running it, as a
# ground-truth PC list (tools/perf-ntrace/tests/gt/README.rst).
record_user_gt() {
	"${CROSS_COMPILE}gcc" -O2 -static -o "$3" "$2" &&
		qemu-riscv64 -d exec,nochain -one-insn-per-tb -D "$4.log" "$3" >/dev/null 2>&1
	"$1" execlog "$4.log" "$4" "$3" >/dev/null || return 1
	rm -f "$4.log"
}

# Short content hash of files and strings, for cache keys.
cache_key() {
	{
		local a
		for a in "$@"; do
			if [ -f "$a" ]; then cat "$a"; else printf '%s\n' "$a"; fi
		done
	} | sha256sum | cut -c1-16
}

# nexrv_find: sets NEXRV (NexRv's executable) and NXSRC (its refcode/c
# directory, examples included, when known): NTRACE_NEXRV, else
# NTRACE_NEXRV_SRC, else what scripts/nexrv.sh builds. Returns 1 with the
# reason in NEXRV_WHY when there is none.
nexrv_find() {
	NEXRV=${NTRACE_NEXRV:-} NXSRC=${NTRACE_NEXRV_SRC:-} NEXRV_WHY=
	if [ -z "$NEXRV" ] && [ -z "$NXSRC" ]; then
		NXSRC=$(bash "$NTRACE_TOP/scripts/nexrv.sh" 2>"${TMPDIR:-/tmp}/nexrv.$$.err") ||
			NEXRV_WHY="no NexRv: $(tail -1 "${TMPDIR:-/tmp}/nexrv.$$.err")"
		rm -f "${TMPDIR:-/tmp}/nexrv.$$.err"
	fi
	[ -n "$NEXRV" ] || [ -z "$NXSRC" ] || NEXRV=$NXSRC/NexRv.exe
	if [ -z "$NEXRV_WHY" ] && [ ! -x "$NEXRV" ]; then
		NEXRV_WHY="NexRv executable '$NEXRV' not found (NTRACE_NEXRV, NTRACE_NEXRV_SRC)"
	fi
	[ -z "$NEXRV_WHY" ]
}

# Version of the Debian linux-source-6.12 package (cache key input).
linux_source_version() {
	dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null ||
		die "linux-source-6.12 is not installed (run scripts/deps.sh)"
}

# Extracted, pristine kernel source tree; prints its path.
extract_kernel_source() {	# DIR
	local dir=$1 tarball
	[ -f "$dir/.ntrace-extracted" ] && return 0
	tarball=$(ls /usr/src/linux-source-6.12.tar.* 2>/dev/null | head -1)
	[ -n "$tarball" ] || die "no /usr/src/linux-source-6.12.tar.*"
	log "extracting $tarball"
	rm -rf "$dir" && mkdir -p "$dir"
	tar -xf "$tarball" -C "$dir" --strip-components=1
	touch "$dir/.ntrace-extracted"
}
kernel_source() {
	local dir
	dir=$NTRACE_CACHE/src/linux-source-6.12-$(linux_source_version)
	# under a lock: scripts started in parallel must not extract twice at once
	[ -f "$dir/.ntrace-extracted" ] ||
		with_lock "$dir.lock" extract_kernel_source "$dir" >&2
	echo "$dir"
}

# Run a command holding a lock file, so parallel builds of one cache entry wait.
with_lock() {
	local lock=$1; shift
	mkdir -p "$(dirname "$lock")"
	(
		flock 9
		"$@"
	) 9>"$lock"
}

# guest_run DIR CONFIG [--add HOST=/GUEST/PATH]... [scripts/guest.sh options]
# One boot of the guest (scripts/guest.sh, run mode unless --mode says
# otherwise) with boot configuration CONFIG, on an initramfs of its own:
# scripts/initramfs.sh's files, the --add files, and the commands on stdin
# as /etc/ntrace/run.list (guest/runlist.h). DIR keeps run.list, initrd.gz
# and initramfs.log. --kernel goes to both scripts; the other options
# (--export DIR for the files the guest writes to /tmp/export, --console,
# --timeout, --model-args, -- QEMU arguments...) to guest.sh, whose output
# is this function's. Returns 0, 1 when the guest run failed, 2 when the
# image could not be built (the end of DIR/initramfs.log is on stderr).
guest_run() {
	local dir=$1 config=$2 kernel=guest mode=run adds=() opts=()
	shift 2
	while [ $# -gt 0 ]; do
		case $1 in
		--add) adds+=(--add "$2"); shift 2 ;;
		--kernel) kernel=$2; shift 2 ;;
		--mode) mode=$2; shift 2 ;;
		--) opts+=("$@"); break ;;
		*) opts+=("$1"); shift ;;
		esac
	done
	mkdir -p "$dir"
	cat >"$dir/run.list"
	if ! bash "$NTRACE_TOP/scripts/initramfs.sh" --kernel "$kernel" \
		--add "$dir/run.list=/etc/ntrace/run.list" "${adds[@]}" -o "$dir/initrd.gz" \
		>"$dir/initramfs.log" 2>&1; then
		log "cannot build the guest's initramfs ($dir/initramfs.log):"
		tail -5 "$dir/initramfs.log" >&2
		return 2
	fi
	bash "$NTRACE_TOP/scripts/guest.sh" --kernel "$kernel" --config "$config" --mode "$mode" \
		--initrd "$dir/initrd.gz" "${opts[@]}" || return 1
}

# cpuwide_config SUITE [--config CONFIG]: the boot configuration of a
# CPU-wide run, in $config (ntrace-smp2, or a funnel or P550 topology of
# scripts/guest.sh, the funnel one in the upstream DT form too), and its
# number of harts in $nh. TAP_PREFIX names the
# suite, and the configuration when it is not the default.
cpuwide_config() {
	local suite=$1
	shift
	config=ntrace-smp2
	[ "${1:-}" != --config ] || config=${2:?--config wants a boot configuration}
	case $config in
	ntrace-smp2) nh=2 ;;
	ntrace-funnel-smp2 | ntrace-funnel-smp4 | ntrace-funnel2-smp4 | \
	ntrace-upstream-dt-funnel-smp2) nh=${config##*smp} ;;
	ntrace-funnel-smp4-hartmap | ntrace-p550 | ntrace-p550-hartmap) nh=4 ;;
	*) die "unknown --config '$config' (ntrace-smp2, or a funnel or 4-hart P550 configuration of scripts/guest.sh)" ;;
	esac
	TAP_PREFIX="$suite: "
	[ "$config" = ntrace-smp2 ] || TAP_PREFIX="$suite $config: "
}

# perf_vdso_cache ROOT VDSO: put a vDSO image where perf looks for the
# [vdso] a recording names by build-id, the build-id cache of --symfs ROOT
# (ROOT/.debug/[vdso]/ID/vdso and its .build-id link).
perf_vdso_cache() {
	local id
	id=$("${CROSS_COMPILE}readelf" -n "$2" 2>/dev/null | awk '/Build ID/ { print $3 }')
	[ -n "$id" ] || return 1
	mkdir -p "$1/.debug/[vdso]/$id" "$1/.debug/.build-id/${id:0:2}" &&
		cp "$2" "$1/.debug/[vdso]/$id/vdso" &&
		ln -sfn "../../[vdso]/$id" "$1/.debug/.build-id/${id:0:2}/${id:2}"
}

# elf_code_syms ELF [BASE]: the symbols a decoder names code by, as
# "ADDR NAME" lines (ADDR hex, 16 digits, moved by BASE): functions and
# labels, without mapping symbols, local labels or symbol versions (a
# vDSO's "@@LINUX_4.15").
elf_code_syms() {
	"${CROSS_COMPILE}readelf" -sW "$1" |
		awk '($4 == "FUNC" || $4 == "NOTYPE") && $7 != "UND" && NF >= 8 &&
		     $8 !~ /^[$]/ && $8 !~ /^[.]L/ { sub(/@.*/, "", $8); print $2, $8 }' |
		while read -r a n; do printf '%016x %s\n' $((0x$a + ${2:-0})) "$n"; done
}
