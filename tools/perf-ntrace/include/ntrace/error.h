/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Errors of libntrace: one convention in every layer, as libipt's.
 *
 * Return value. A function that can fail returns 0, a count or an object
 * when it succeeds and a negative enum ntrace_error code when it fails,
 * never a bare -1 (that is NTRACE_ENOENT); ntrace_errstr() names the code.
 * A function that returns an object returns NULL instead, with the reason
 * where its err or why argument says.
 *
 * Detail (which file, record, byte offset or setting) is kept in one place:
 *  - on the object the call was made on, until the next call on it:
 *    ntrace_images_errmsg(), ntrace_builder_errmsg(), ntrace_sink_errmsg()
 *    (and the command's ntrace_pd_errmsg());
 *  - for a call on no object (a payload, a file or a buffer to parse), in
 *    the caller's buffer char *err of errlen bytes (NULL or 0: none):
 *    ntrace_auxinfo_parse(), ntrace_gt_load(), ntrace_ingress_from_gt(),
 *    ntrace_tv_parse(), ntrace_tv_export();
 *  - checks of settings and of one text line, whose reasons are fixed,
 *    point *why at a static string (why may be NULL):
 *    ntrace_enc_cfg_check(), ntrace_enc_cfg_from_regs(), ntrace_encoder_init(),
 *    ntrace_insn_parse_text() and ntrace_decoder_new(). The encoder layer never formats text: the
 *    QEMU model links it alone.
 *
 * Callbacks. A non-zero return of a callback (decoder runs or events, an
 * encoder's emit, a builder's record consumer, ntrace_decoder_run_pcs()'s
 * fn) stops the call, which returns that value unchanged; the library's
 * own callbacks (ntrace_sink_runs(), ntrace_byte_sink_emit(),
 * ntrace_insn_vec_push()) return these codes. The images' fetch callback
 * returns 0 or one of these codes.
 *
 * Trace problems are no failure of a call: the flow decoder reports them as
 * events with a text (decoder.h) and resynchronises.
 *
 * Not calls that fail, so outside the convention: ntrace_parse() (size_t,
 * never fails), ntrace_msg_encode() (size_t, 0 bytes for a message it
 * cannot encode), ntrace_isa_decode() and ntrace_isa_decode_bytes() (-1
 * says the bits are no valid instruction; *d is filled either way).
 * ntrace_gt_create() returns NULL with errno set, as fopen() does.
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
	NTRACE_EFORMAT = -3,	/* a file (ELF, perf.data) of a class, byte order or
				 * type not handled */
	NTRACE_EMACHINE = -4,	/* ELF for another machine than RISC-V */
	NTRACE_ECORRUPT = -5,	/* a structure points outside its data */
	NTRACE_EOVERLAP = -6,	/* an image overlaps one already loaded */
	NTRACE_ENOMAP = -7,	/* address outside every image */
	NTRACE_ENOMEM = -8,	/* out of memory */
	NTRACE_EINVAL = -9,	/* bad argument or spec string */
	NTRACE_EVERSION = -10,	/* a layout version this library does not know */
	NTRACE_ECONFIG = -11,	/* encoder settings the decoder cannot handle */
	NTRACE_EBADINPUT = -12,	/* input that is not what it should be: a bad text
				 * line, ground truth or tandem trace at odds with
				 * itself or the code, a file of another kind */
	NTRACE_EWRITE = -13,	/* writing the output failed (errno says why) */
	NTRACE_E__LAST = -13,
};

/* Static name of an error code ("address outside every image", ...);
 * "unknown error" for a value that is none. */
const char *ntrace_errstr(int code);

#ifdef __cplusplus
}
#endif

#endif /* NTRACE_ERROR_H */
