// SPDX-License-Identifier: GPL-2.0-only
/* Option helpers shared by the perf-ntrace subcommands. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_opts.h"

bool opt_uint(const char *cmd, const char *opt, const char *text, uint64_t max, uint64_t *v)
{
	char *end;

	errno = 0;
	if (!text || !*text || *text == '-')
		goto bad;
	*v = strtoull(text, &end, 0);
	if (errno || *end || *v > max)
		goto bad;
	return true;
bad:
	fprintf(stderr, "perf-ntrace %s: bad value for --%s: '%s' (0..%llu)\n", cmd, opt,
		text ? text : "", (unsigned long long)max);
	return false;
}

bool opt_find_program(const char *name, char *buf, size_t len)
{
	const char *dirs = getenv("PATH");
	const char *p, *e;

	if (strchr(name, '/'))
		return (size_t)snprintf(buf, len, "%s", name) < len && !access(buf, X_OK);
	for (p = dirs ? dirs : "/usr/bin:/bin"; *p; p = *e ? e + 1 : e) {
		e = strchrnul(p, ':');
		if ((size_t)snprintf(buf, len, "%.*s/%s", (int)(e - p), p, name) < len &&
		    !access(buf, X_OK))
			return true;
	}
	return false;
}

bool opt_enum(const char *cmd, const char *opt, const char *text, const char *const *names,
	      unsigned int n, unsigned int *v)
{
	unsigned int i;
	uint64_t x;

	for (i = 0; i < n; i++) {
		if (names[i] && !strcmp(text, names[i])) {
			*v = i;
			return true;
		}
	}
	if (*text >= '0' && *text <= '9' && opt_uint(cmd, opt, text, n - 1, &x)) {
		*v = (unsigned int)x;
		return true;
	}
	fprintf(stderr, "perf-ntrace %s: bad value for --%s: '%s' (one of:", cmd, opt, text);
	for (i = 0; i < n; i++)
		if (names[i])
			fprintf(stderr, " %s", names[i]);
	fprintf(stderr, ")\n");
	return false;
}

int codec_opt(const char *cmd, int opt, const char *arg, struct ntrace_codec_cfg *cfg)
{
	uint64_t v;

	switch (opt) {
	case CODEC_OPT_SRC_BITS:
		if (!opt_uint(cmd, "src-bits", arg, NTRACE_MAX_SRC_BITS, &v))
			return -1;
		cfg->src_bits = (uint8_t)v;
		return 1;
	case CODEC_OPT_TS:
		cfg->tstamp = true;
		return 1;
	case CODEC_OPT_EXT_ADDR:
		cfg->ext_addr_msb = true;
		return 1;
	case CODEC_OPT_XLEN:
		if (!opt_uint(cmd, "xlen", arg, 64, &v) || (v != 32 && v != 64)) {
			fprintf(stderr, "perf-ntrace %s: --xlen must be 32 or 64\n", cmd);
			return -1;
		}
		cfg->xlen = (uint8_t)v;
		return 1;
	case CODEC_OPT_VARIANT: {
		static const char *const names[NTRACE_VARIANT__COUNT] = {
			[NTRACE_VARIANT_1_0] = "1.0",
			[NTRACE_VARIANT_SIFIVE_V0] = "sifive-v0",
		};
		unsigned int e;

		if (!opt_enum(cmd, "variant", arg, names, NTRACE_VARIANT__COUNT, &e))
			return -1;
		cfg->variant = (uint8_t)e;
		return 1;
	}
	}
	return 0;
}

/* --regs: settings from two to four register words (ntrace_enc_cfg_from_regs()) */
static int opt_regs(const char *cmd, const char *arg, struct ntrace_enc_cfg *enc)
{
	uint32_t w[4] = { 0 };
	struct ntrace_tci_regs r;
	const char *p = arg, *err;
	unsigned long long v;
	unsigned int n = 0;
	char *end;

	for (;;) {
		errno = 0;
		v = strtoull(p, &end, 0);
		if (end == p || *p == '-' || errno || v > UINT32_MAX || n == 4)
			goto bad;
		w[n++] = (uint32_t)v;
		if (!*end)
			break;
		if (*end != ',')
			goto bad;
		p = end + 1;
	}
	if (n < 2)
		goto bad;
	r = (struct ntrace_tci_regs){ .te_control = w[0], .te_features = w[1],
				      .ts_control = w[2], .te_impl = w[3] };
	if (ntrace_enc_cfg_from_regs(&r, enc, &err)) {
		fprintf(stderr, "perf-ntrace %s: --regs %s: %s\n", cmd, arg, err);
		return -1;
	}
	return 1;
bad:
	fprintf(stderr, "perf-ntrace %s: bad value for --regs: '%s' (trTeControl,"
		"trTeInstFeatures[,trTsControl[,trTeImpl]], 32-bit numbers)\n", cmd, arg);
	return -1;
}

int enc_opt(const char *cmd, int opt, const char *arg, struct ntrace_enc_cfg *cfg)
{
	static const char *const modes[] = { [NTRACE_MODE_BTM] = "btm", [NTRACE_MODE_HTM] = "htm" };
	static const char *const irets[] = { "off", "count", "partial", "full" };
	static const char *const syncs[] = { "off", "msgs", "cycles", "hwords" };
	unsigned int e;
	uint64_t v;
	int r = codec_opt(cmd, opt, arg, &cfg->codec);

	if (r)
		return r;
#define NUM(name, max, field)                                              \
	do {                                                               \
		if (!opt_uint(cmd, name, arg, max, &v))                    \
			return -1;                                         \
		cfg->field = (__typeof__(cfg->field))v;                    \
	} while (0)

	switch (opt) {
	case ENC_OPT_MODE:
		if (!opt_enum(cmd, "mode", arg, modes, NTRACE_MODE_HTM + 1, &e))
			return -1;
		if (e != NTRACE_MODE_BTM && e != NTRACE_MODE_HTM) {
			fprintf(stderr, "perf-ntrace %s: --mode must be btm or htm\n", cmd);
			return -1;
		}
		cfg->mode = (uint8_t)e;
		break;
	case ENC_OPT_ITYPE_BITS: NUM("itype-bits", 4, itype_bits); break;
	case ENC_OPT_ICNT_BITS: NUM("icnt-bits", 32, icnt_bits); break;
	case ENC_OPT_HIST_BITS: NUM("hist-bits", 32, hist_bits); break;
	case ENC_OPT_HREPEAT_BITS: NUM("hrepeat-bits", 18, hrepeat_bits); break;
	case ENC_OPT_BCNT_BITS: NUM("bcnt-bits", 18, bcnt_bits); break;
	case ENC_OPT_RDEPTH: NUM("return-depth", NTRACE_V0_RETURN_DEPTH, return_depth); break;
	case ENC_OPT_RBITS: NUM("return-addr-bits", 63, return_addr_bits); break;
	case ENC_OPT_SYNC_MAX: NUM("sync-max", 15, sync_max); break;
	case ENC_OPT_START_SYNC: NUM("start-sync", 15, start_sync); break;
	case ENC_OPT_STOP_EVCODE: NUM("stop-evcode", 15, stop_evcode); break;
	case ENC_OPT_SRC_ID: NUM("src-id", (1u << NTRACE_MAX_SRC_BITS) - 1, src_id); break;
	case ENC_OPT_IRET:
		if (!opt_enum(cmd, "implicit-return", arg, irets, 4, &e))
			return -1;
		cfg->implicit_return = (uint8_t)e;
		break;
	case ENC_OPT_SYNC_MODE:
		if (!opt_enum(cmd, "sync-mode", arg, syncs, 4, &e))
			return -1;
		cfg->sync_mode = (uint8_t)e;
		break;
	case ENC_OPT_SEQ: cfg->seq_jump = true; break;
	case ENC_OPT_ALLJ: cfg->all_jumps = true; break;
	case ENC_OPT_RHIST: cfg->repeated_history = true; break;
	case ENC_OPT_RBRANCH: cfg->repeat_branch = true; break;
	case ENC_OPT_CONTEXT: cfg->context = true; break;
	case ENC_OPT_BTYPE1: cfg->trap_btype1 = true; break;
	case ENC_OPT_ICNT_SYNC: cfg->icnt_full_sync = true; break;
	case ENC_OPT_HTM_IB: cfg->htm_ib_no_hist = true; break;
	case ENC_OPT_REGS: return opt_regs(cmd, arg, cfg);
	case ENC_OPT_TS_BRANCH:
		/* the register's values; 2 is reserved */
		if (!opt_uint(cmd, "ts-branch", arg, 3, &v) || v == 2) {
			fprintf(stderr, "perf-ntrace %s: --ts-branch must be 0, 1 or 3\n", cmd);
			return -1;
		}
		cfg->v0_ts_branch = v == 0 ? NTRACE_V0_TSB_NONE : v == 1 ? NTRACE_V0_TSB_INDIRECT :
				    NTRACE_V0_TSB_ALL;
		break;
	default:
		return 0;
	}
#undef NUM
	return 1;
}

void img_opts_init(struct img_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->isa = NTRACE_ISA_CFG_RV64GC;
}

int img_opt(const char *cmd, int opt, const char *arg, struct img_opts *o)
{
	switch (opt) {
	case IMG_OPT_ELF:
	case IMG_OPT_BIN:
		if (o->n == IMG_OPTS_MAX) {
			fprintf(stderr, "perf-ntrace %s: more than %d images\n", cmd, IMG_OPTS_MAX);
			return -1;
		}
		if (opt == IMG_OPT_BIN && !strchr(arg, '@')) {
			fprintf(stderr, "perf-ntrace %s: --bin needs FILE@ADDR\n", cmd);
			return -1;
		}
		o->raw[o->n] = opt == IMG_OPT_BIN;
		o->arg[o->n++] = arg;
		return 1;
	case IMG_OPT_ZCMP:
		o->isa.ext |= NTRACE_ISA_ZCMP;
		return 1;
	case IMG_OPT_ZCMT:
		o->isa.ext |= NTRACE_ISA_ZCMT;
		return 1;
	case IMG_OPT_JVT:
		return opt_uint(cmd, "jvt", arg, UINT64_MAX, &o->isa.jvt_base) ? 1 : -1;
	}
	return 0;
}

struct ntrace_images *img_opts_load(const char *cmd, const struct img_opts *o,
				    struct ntrace_codec_cfg *codec)
{
	struct ntrace_isa_cfg isa = o->isa;
	struct ntrace_images *img;
	char spec[4200];
	unsigned int i;

	if (codec->xlen)
		isa.xlen = codec->xlen;
	img = ntrace_images_new(&isa);

	if (!img) {
		fprintf(stderr, "perf-ntrace %s: out of memory\n", cmd);
		return NULL;
	}
	for (i = 0; i < o->n; i++) {
		/* image.h's spec form: "raw:" marks raw code */
		snprintf(spec, sizeof(spec), "%s%s", o->raw[i] ? "raw:" : "", o->arg[i]);
		if (ntrace_images_add_spec(img, spec)) {
			fprintf(stderr, "perf-ntrace %s: %s\n", cmd, ntrace_images_errmsg(img));
			ntrace_images_free(img);
			return NULL;
		}
	}
	codec->xlen = ntrace_images_isa(img)->xlen;
	return img;
}

FILE *open_in(const char *cmd, const char *path, const char *mode)
{
	FILE *f;

	if (!strcmp(path, "-"))
		return stdin;
	f = fopen(path, mode);
	if (!f)
		fprintf(stderr, "perf-ntrace %s: cannot open '%s': %s\n", cmd, path,
			strerror(errno));
	return f;
}
