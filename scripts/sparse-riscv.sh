#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# sparse wrapper for riscv kernel builds (CHECK=scripts/sparse-riscv.sh).
# bookworm's sparse 0.6.4 rejects the multi-letter ISA extensions in the
# kernel's -march (e.g. rv64imac_zicsr_zifencei: "invalid argument to
# '-march'"); drop them, sparse needs only the base ISA.
args=()
for a in "$@"; do
	case $a in
	-march=*_*) args+=("${a%%_*}") ;;
	*) args+=("$a") ;;
	esac
done
exec sparse "${args[@]}"
