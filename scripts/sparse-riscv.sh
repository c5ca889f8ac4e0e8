#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# sparse for riscv kernel code: Debian 12's sparse 0.6.4 rejects the
# multi-letter extensions in -march (rv64imac_zicsr_zifencei) that the
# 6.12 kernel passes. Sparse only uses -march to predefine ISA macros, and
# the kernel does not test the Z* ones, so drop them and run sparse.
args=()
for a in "$@"; do
	case $a in
	-march=*) a=${a%%_*} ;;
	esac
	args+=("$a")
done
exec sparse "${args[@]}"
