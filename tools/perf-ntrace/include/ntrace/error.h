/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Error codes of libntrace. Functions that can fail return 0 or one of
 * these negative codes; ntrace_errstr() names a code, and the object the
 * call was made on keeps the detail (ntrace_images_errmsg(), the err
 * buffer of ntrace_auxinfo_parse(), ...), as libipt's pt_errstr() does.
 */
#ifndef NTRACE_ERROR_H
#define NTRACE_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

enum ntrace_error {
	NTRACE_OK = 0,
	NTRACE_ENOENT = -1,	/* cannot open or read a file */
	NTRACE_ENOTELF = -2,	/* not an ELF file */
	NTRACE_EFORMAT = -3,	/* ELF of a class, byte order or type not handled */
	NTRACE_EMACHINE = -4,	/* ELF for another machine than RISC-V */
	NTRACE_ECORRUPT = -5,	/* a structure points outside its data */
	NTRACE_EOVERLAP = -6,	/* an image overlaps one already loaded */
	NTRACE_ENOMAP = -7,	/* address outside every image */
	NTRACE_ENOMEM = -8,	/* out of memory */
	NTRACE_EINVAL = -9,	/* bad argument or spec string */
	NTRACE_EVERSION = -10,	/* a layout version this library does not know */
	NTRACE_ECONFIG = -11,	/* encoder settings the decoder cannot handle */
	NTRACE_E__LAST = -11,
};

/* Static name of an error code ("address outside every image", ...). */
const char *ntrace_errstr(int code);

#ifdef __cplusplus
}
#endif

#endif /* NTRACE_ERROR_H */
