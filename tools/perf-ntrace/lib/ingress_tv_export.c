// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Ingress records -> partial tandem-verification trace (seed 002): pc,
 * instruction and privilege per group, plus the trap CSRs. Registers and
 * memory are absent, as the seed's "partial trace" allows.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "err_internal.h"
#include "ingress_tv.h"
#include "ntrace/ingress_build.h"

struct tv_out {
	uint8_t buf[64];
	size_t n;
};

static void b8(struct tv_out *o, uint64_t v)
{
	o->buf[o->n++] = (uint8_t)v;
}

static void le(struct tv_out *o, uint64_t v, unsigned int bytes)
{
	while (bytes--) {
		b8(o, v);
		v >>= 8;
	}
}

static void pc_field(struct tv_out *o, uint64_t pc)
{
	b8(o, TV_ADDL);
	b8(o, TV_ADDL_PC);
	le(o, pc, 8);
}

static void priv_field(struct tv_out *o, uint8_t priv)
{
	b8(o, TV_ADDL);
	b8(o, TV_ADDL_PRIV);
	b8(o, priv == NTRACE_PRIV_M ? 3 : priv == NTRACE_PRIV_S ? 1 : 0);
}

static void reg_field(struct tv_out *o, unsigned int reg, uint64_t v)
{
	b8(o, TV_FULL_REG);
	le(o, reg, 2);
	le(o, v, 8);
}

static int insn_field(struct tv_out *o, struct ntrace_images *img, uint64_t pc,
		      struct ntrace_errbuf *e)
{
	uint32_t bits;
	unsigned int len;
	int rc = ntrace_images_insn_bits(img, pc, &bits);

	if (rc)
		return ntrace_err_set(e, rc, "no instruction bits for 0x%" PRIx64 ": %s", pc,
				      ntrace_images_errmsg(img));
	len = ntrace_isa_len((uint16_t)bits);
	b8(o, len == 2 ? TV_INSN16 : TV_INSN32);
	le(o, bits, len == 2 ? 2 : 4);
	return 0;
}

static int flush(struct tv_out *o, FILE *f, struct ntrace_errbuf *e)
{
	if (fwrite(o->buf, 1, o->n, f) != o->n)
		return ntrace_err_set(e, NTRACE_EWRITE, "write failed: %s", strerror(errno));
	o->n = 0;
	return 0;
}

static int export(const struct ntrace_insn *in, size_t n, struct ntrace_images *img, FILE *f,
		  struct ntrace_errbuf *e)
{
	struct tv_out o = { .n = 0 };
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		const struct ntrace_insn *r = &in[i], *next = i + 1 < n ? &in[i + 1] : NULL;
		int trap = r->itype == NTRACE_ITYPE_EXCEPTION ||
			   r->itype == NTRACE_ITYPE_INTERRUPT;
		uint64_t fall = r->addr + r->size;

		if (i == 0 || (r->flags & NTRACE_INSN_TRACE_START)) {
			b8(&o, TV_BEGIN);
			pc_field(&o, r->addr);
			priv_field(&o, r->priv);
			b8(&o, TV_END);
		}
		if (r->size) {
			b8(&o, TV_BEGIN);
			rc = insn_field(&o, img, r->addr, e);
			if (rc)
				return rc;
			if (trap || !next || next->addr == fall)
				b8(&o, TV_INCR_PC);
			else
				pc_field(&o, next->addr);
			b8(&o, TV_END);
			rc = flush(&o, f, e);
			if (rc)
				return rc;
		}
		if (trap) {
			uint64_t epc = r->size ? fall : r->addr;
			int s = next && next->priv == NTRACE_PRIV_S;

			b8(&o, TV_BEGIN);
			/* the trapping instruction, when the image has it */
			if (r->itype == NTRACE_ITYPE_EXCEPTION && insn_field(&o, img, epc, NULL))
				o.n = 1;	/* not loaded: leave it out */
			if (next)
				pc_field(&o, next->addr);
			reg_field(&o, s ? TV_REG_SEPC : TV_REG_MEPC, epc);
			if (r->flags & NTRACE_INSN_CAUSE_VALID) {
				reg_field(&o, s ? TV_REG_SCAUSE : TV_REG_MCAUSE, r->cause);
				reg_field(&o, s ? TV_REG_STVAL : TV_REG_MTVAL, r->tval);
			}
			if (next && next->priv != r->priv)
				priv_field(&o, next->priv);
			b8(&o, TV_END);
			rc = flush(&o, f, e);
			if (rc)
				return rc;
		} else if (next && next->priv != r->priv) {
			b8(&o, TV_BEGIN);
			priv_field(&o, next->priv);
			b8(&o, TV_END);
		}
		rc = flush(&o, f, e);
		if (rc)
			return rc;
	}
	return 0;
}

int ntrace_tv_export(const struct ntrace_insn *in, size_t n,
		     struct ntrace_images *img, FILE *f, char *err, size_t errlen)
{
	struct ntrace_errbuf e = { 0 };

	return export(in, n, img, f, &e) ? ntrace_err_copy(&e, err, errlen) : 0;
}
