#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Install the Debian packages ntrace needs, only when they are missing.
# Idempotent; safe to run on every build. Adds the bookworm-backports
# suite (same archive URI as the machine's Debian entry) for QEMU 10,
# OpenSBI 1.5 and linux-source-6.12. "--browser" adds chromium.
set -euo pipefail

die() { echo "deps: error: $*" >&2; exit 1; }

# Packages from the machine's own suite. The host perf's features
# (scripts/perf.sh --host): python3-dev (libpython, python3-config) and
# python3-setuptools, libslang2-dev (TUI), g++ (C++ demangling through
# libstdc++), cmake (builds capstone 5, the RISC-V disassembler, from
# trixie's source package: scripts/capstone.sh); its checks
# (scripts/check-perf.sh): tmux drives the TUI, PySide2's QtSql with Qt's
# SQLite driver is what perf's export-to-sqlite.py writes with, sqlite3
# reads the result. cmake also builds libnexus-rv for the P550 interop
# test (scripts/libnexus-rv.sh). dt-schema (dt-doc-validate, dt-mk-schema,
# dt-validate) checks the device-tree binding and the model's device trees
# (scripts/check-dt-binding.sh).
BASE_PKGS=(
	make gcc libc6-dev bc flex bison libssl-dev libelf-dev cpio xz-utils
	gcc-riscv64-linux-gnu libc6-dev-riscv64-cross binutils-riscv64-linux-gnu
	device-tree-compiler sparse libtraceevent-dev libdw-dev libzstd-dev
	clang libclang-rt-14-dev llvm-19 autofdo python3 rsync kmod
	patch perl file git binutils pkg-config python3-docutils time dpkg-dev
	lua5.4 zstd cmake dt-schema
	python3-dev python3-setuptools libslang2-dev g++ tmux sqlite3
	python3-pyside2.qtsql libqt5sql5-sqlite
)
# Optional, "deps.sh --browser": a headless browser for the flame graph
# page's real-browser check (tools/perf-ntrace/tests/timeline.sh skips it
# without one).
[ "${1:-}" = --browser ] && BASE_PKGS+=(chromium)
# Packages that must come from bookworm-backports.
BP_PKGS=(qemu-system-riscv qemu-user opensbi linux-source-6.12 linux-perf)

missing() {
	local p out=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || out+=("$p")
	done
	echo "${out[@]:-}"
}

need_root() {
	[ "$(id -u)" = 0 ] && return 0
	command -v sudo >/dev/null || die "not root and no sudo: install as root: $*"
	SUDO=sudo
}
SUDO=

qemu_ok() {
	command -v qemu-system-riscv64 >/dev/null || return 1
	local v
	v=$(qemu-system-riscv64 --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p')
	[ "${v:-0}" -ge 10 ]
}

add_backports() {
	local f=/etc/apt/sources.list.d/ntrace-backports.sources uri
	grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/ && return 0
	uri=$(grep -rhs '^URIs:.*debian/\?$' /etc/apt/sources.list.d/*.sources | head -1 | awk '{print $2}')
	[ -n "$uri" ] || uri=$(grep -hs '^deb .*debian/\? bookworm ' /etc/apt/sources.list | head -1 | awk '{print $2}')
	[ -n "$uri" ] || die "cannot find the Debian archive URI in /etc/apt sources"
	printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
		"$uri" | $SUDO tee "$f" >/dev/null
	UPDATED=
}

UPDATED=
apt_update() {
	[ -n "$UPDATED" ] && return 0
	$SUDO apt-get update -qq || die "apt-get update failed"
	UPDATED=1
}

base_missing=$(missing "${BASE_PKGS[@]}")
bp_missing=$(missing "${BP_PKGS[@]}")
qemu_ok || bp_missing="$bp_missing qemu-system-riscv"

if [ -z "${base_missing// /}" ] && [ -z "${bp_missing// /}" ]; then
	exit 0
fi

need_root "$base_missing $bp_missing"
export DEBIAN_FRONTEND=noninteractive
if [ -n "${bp_missing// /}" ]; then
	add_backports
fi
apt_update
if [ -n "${base_missing// /}" ]; then
	echo "deps: installing $base_missing"
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -qq --no-install-recommends $base_missing >/dev/null ||
		die "apt-get install failed for: $base_missing"
fi
if [ -n "${bp_missing// /}" ]; then
	echo "deps: installing from bookworm-backports: $bp_missing"
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -qq --no-install-recommends -t bookworm-backports $bp_missing >/dev/null ||
		die "apt-get install -t bookworm-backports failed for: $bp_missing"
fi
qemu_ok || die "qemu-system-riscv64 >= 10 not available after install"
ls /usr/src/linux-source-6.12.tar.* >/dev/null 2>&1 || die "linux-source-6.12 tarball missing in /usr/src"
echo "deps: ok"
