/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Run mode (ntguest.mode=run): the guest has no shell, so a host script
 * puts a list of commands into the image (scripts/initramfs.sh --add
 * LIST=/etc/ntrace/run.list) and the init runs them in order, after loading
 * the driver modules. One command a line, arguments split on blanks, '#'
 * starts a comment line; a last argument ">PATH" sends the command's
 * standard output to PATH (stderr still goes to the console). A command
 * runs in /tmp with a wall-clock limit. The built-in "write PATH VALUE"
 * writes VALUE into PATH (a sysctl under /proc/sys, a sysfs knob).
 * Console: "ntrace| run begin N: ARGV" and
 * "ntrace| run end N exit=E|signal=S|timeout=T seconds=S" around the
 * command's "out|" lines.
 */
#ifndef NTGUEST_RUNLIST_H
#define NTGUEST_RUNLIST_H

#define RUNLIST_PATH "/etc/ntrace/run.list"

/* Returns the number of commands that failed (non-zero exit, signal, timeout). */
int run_list(const char *path, int timeout);

#endif
