/* SPDX-License-Identifier: GPL-2.0-only */
/* perf-ntrace subcommands; see the table in main.c. */
#ifndef PERF_NTRACE_CMD_H
#define PERF_NTRACE_CMD_H

#define CMD_WEAK __attribute__((weak))

int cmd_dump(int argc, char **argv) CMD_WEAK;
int cmd_encode(int argc, char **argv) CMD_WEAK;
int cmd_decode(int argc, char **argv) CMD_WEAK;
int cmd_info(int argc, char **argv) CMD_WEAK;
int cmd_trigger(int argc, char **argv) CMD_WEAK;
int cmd_disasm(int argc, char **argv) CMD_WEAK;

#endif /* PERF_NTRACE_CMD_H */
