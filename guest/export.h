/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Carry files out of the guest: everything under EXPORT_DIR is packed at
 * the end of the run into the raw virtio disk EXPORT_DEV (scripts/guest.sh
 * --export DIR attaches it and unpacks it on the host).
 *
 * Disk layout: a 512-byte header block holding the text line
 *   "NTRACE-EXPORT 1 ustar <bytes>\n"
 * (NUL padded), then <bytes> bytes of a POSIX ustar archive of EXPORT_DIR
 * (paths relative to it). The header is written last, after the archive is
 * on the disk, so a run that dies while packing leaves no valid header.
 */
#ifndef NTGUEST_EXPORT_H
#define NTGUEST_EXPORT_H

#define EXPORT_DIR "/tmp/export"
#define EXPORT_DEV "/dev/vda"
#define EXPORT_MAGIC "NTRACE-EXPORT 1 ustar"

/* Creates EXPORT_DIR (tests and run lists write there). */
void export_prepare(void);
/*
 * Packs EXPORT_DIR into EXPORT_DEV if that disk exists. Returns 0 when
 * there is no disk or packing worked, 1 (after an error marker) otherwise.
 */
int export_pack(void);

#endif
