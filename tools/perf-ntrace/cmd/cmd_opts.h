/* SPDX-License-Identifier: GPL-2.0-only */
/* Option helpers shared by the perf-ntrace subcommands. */
#ifndef PERF_NTRACE_CMD_OPTS_H
#define PERF_NTRACE_CMD_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ntrace/encoder.h>
#include <ntrace/image.h>
#include <ntrace/msg.h>

/*
 * Parse an unsigned number (C syntax) no larger than max; on error print
 * "perf-ntrace CMD: bad value for --OPT: TEXT" and return false.
 */
bool opt_uint(const char *cmd, const char *opt, const char *text, uint64_t max, uint64_t *v);

/*
 * An executable: name itself if it has a slash, else the first one in
 * PATH's directories; its path into buf. False if there is none.
 */
bool opt_find_program(const char *name, char *buf, size_t len);

/* Match text against names[] (index = value) or a number < n. */
bool opt_enum(const char *cmd, const char *opt, const char *text, const char *const *names,
	      unsigned int n, unsigned int *v);

/*
 * Codec options common to all commands that read or write N-Trace bytes:
 * --src-bits N, --ts, --ext-addr, --xlen N, --variant V. Returns 1 if opt (a getopt_long
 * value from CODEC_OPT_*) was one of them and was applied, -1 on a bad value,
 * 0 if it is not a codec option.
 */
enum {
	CODEC_OPT_SRC_BITS = 1000,
	CODEC_OPT_TS,
	CODEC_OPT_EXT_ADDR,
	CODEC_OPT_XLEN,
	CODEC_OPT_VARIANT,
	CODEC_OPT__END,
};

#define CODEC_LONG_OPTIONS                                                       \
	{ "src-bits", required_argument, NULL, CODEC_OPT_SRC_BITS },             \
	{ "ts", no_argument, NULL, CODEC_OPT_TS },                               \
	{ "ext-addr", no_argument, NULL, CODEC_OPT_EXT_ADDR },                   \
	{ "xlen", required_argument, NULL, CODEC_OPT_XLEN },                     \
	{ "variant", required_argument, NULL, CODEC_OPT_VARIANT }

#define CODEC_HELP                                                                         \
	"  --src-bits N    SRC field width (trTeSrcBits, 0..12; default 0)\n"             \
	"  --ts            messages may carry TSTAMP (trTsEnable)\n"                       \
	"  --ext-addr      addresses use MSB extension (trTeInstExtendAddrMSB)\n"          \
	"  --xlen N        address width, 32 or 64 (default 64; an ELF's class decides)\n"   \
	"  --variant V     protocol: 1.0 (default) or sifive-v0 (SiFive's pre-ratified\n"   \
	"                  encoder, as on the P550: XOR timestamps, RCODE 8/9 branch\n"      \
	"                  counts, a call counter of 1023)\n"

int codec_opt(const char *cmd, int opt, const char *arg, struct ntrace_codec_cfg *cfg);

/*
 * Encoder settings (struct ntrace_enc_cfg, Trace Control Interface names in
 * brackets), for the encoder and for the decoder that must know them.
 * enc_opt() returns as codec_opt() and also applies the codec options.
 */
enum {
	ENC_OPT_MODE = CODEC_OPT__END,
	ENC_OPT_ITYPE_BITS,
	ENC_OPT_ICNT_BITS,
	ENC_OPT_HIST_BITS,
	ENC_OPT_HREPEAT_BITS,
	ENC_OPT_BCNT_BITS,
	ENC_OPT_IRET,
	ENC_OPT_RDEPTH,
	ENC_OPT_RBITS,
	ENC_OPT_SEQ,
	ENC_OPT_ALLJ,
	ENC_OPT_RHIST,
	ENC_OPT_RBRANCH,
	ENC_OPT_CONTEXT,
	ENC_OPT_BTYPE1,
	ENC_OPT_ICNT_SYNC,
	ENC_OPT_HTM_IB,
	ENC_OPT_SYNC_MODE,
	ENC_OPT_SYNC_MAX,
	ENC_OPT_START_SYNC,
	ENC_OPT_STOP_EVCODE,
	ENC_OPT_SRC_ID,
	ENC_OPT_REGS,
	ENC_OPT_TS_BRANCH,
	ENC_OPT__END,
};

#define ENC_LONG_OPTIONS                                                         \
	CODEC_LONG_OPTIONS,                                                      \
	{ "mode", required_argument, NULL, ENC_OPT_MODE },                       \
	{ "itype-bits", required_argument, NULL, ENC_OPT_ITYPE_BITS },           \
	{ "icnt-bits", required_argument, NULL, ENC_OPT_ICNT_BITS },             \
	{ "hist-bits", required_argument, NULL, ENC_OPT_HIST_BITS },             \
	{ "hrepeat-bits", required_argument, NULL, ENC_OPT_HREPEAT_BITS },       \
	{ "bcnt-bits", required_argument, NULL, ENC_OPT_BCNT_BITS },             \
	{ "implicit-return", required_argument, NULL, ENC_OPT_IRET },            \
	{ "return-depth", required_argument, NULL, ENC_OPT_RDEPTH },             \
	{ "return-addr-bits", required_argument, NULL, ENC_OPT_RBITS },          \
	{ "seq-jump", no_argument, NULL, ENC_OPT_SEQ },                          \
	{ "all-jumps", no_argument, NULL, ENC_OPT_ALLJ },                        \
	{ "repeated-history", no_argument, NULL, ENC_OPT_RHIST },                \
	{ "repeat-branch", no_argument, NULL, ENC_OPT_RBRANCH },                 \
	{ "context", no_argument, NULL, ENC_OPT_CONTEXT },                       \
	{ "trap-btype1", no_argument, NULL, ENC_OPT_BTYPE1 },                    \
	{ "icnt-full-sync", no_argument, NULL, ENC_OPT_ICNT_SYNC },              \
	{ "htm-ib-no-hist", no_argument, NULL, ENC_OPT_HTM_IB },                 \
	{ "sync-mode", required_argument, NULL, ENC_OPT_SYNC_MODE },             \
	{ "sync-max", required_argument, NULL, ENC_OPT_SYNC_MAX },               \
	{ "start-sync", required_argument, NULL, ENC_OPT_START_SYNC },           \
	{ "stop-evcode", required_argument, NULL, ENC_OPT_STOP_EVCODE },         \
	{ "src-id", required_argument, NULL, ENC_OPT_SRC_ID },                   \
	{ "regs", required_argument, NULL, ENC_OPT_REGS },                       \
	{ "ts-branch", required_argument, NULL, ENC_OPT_TS_BRANCH }

/* Defaults differ between encoder and decoder: each command states its own. */
#define ENC_HELP                                                                           \
	"  --regs CTL,FEAT[,TS[,IMPL]]  the settings an encoder's registers hold, as\n"      \
	"                  read back: trTeControl, trTeInstFeatures, trTsControl,\n"        \
	"                  trTeImpl (options after it override single settings); a\n"      \
	"                  trTeImpl of version 0 is SiFive's pre-ratified encoder, whose\n"  \
	"                  teControl and teImpl are read in their own layout (FEAT: 0)\n"    \
	"  --mode M        btm or htm [trTeInstMode 3/6] (default btm)\n"                   \
	"  --implicit-return M  off|count|partial|full [trTeInstImplicitReturnMode]\n"      \
	"  --return-depth N     return stack depth / call counter limit, 1..32\n"           \
	"                       (1..1023 for a sifive-v0 call counter)\n"           \
	"  --return-addr-bits N low address bits kept in partial mode (16)\n"               \
	"  --itype-bits N  ingress itype width, 3 or 4 (default 4; 3 turns implicit\n"      \
	"                  return off)\n"                                                    \
	"  --icnt-bits N   I-CNT counter width incl. overflow bit, 3..32\n"                 \
	"  --hist-bits N   HIST register width incl. stop bit, 2..32 (default 32)\n"        \
	"  --hrepeat-bits N  HREPEAT counter width, 1..18 (default 18)\n"                   \
	"  --bcnt-bits N   B-CNT counter width, 1..18 (default 18)\n"                       \
	"  --seq-jump      sequential jump optimisation [trTeInstEnSequentialJump]\n"       \
	"  --all-jumps     trace direct jumps too [trTeInstEnAllJumps]\n"                   \
	"  --repeated-history  ResourceFull RCODE=2 [trTeInstEnRepeatedHistory]\n"          \
	"  --repeat-branch RepeatBranch messages for identical branch messages\n"           \
	"  --context       Ownership messages [trTeContext]\n"                              \
	"  --trap-btype1   report traps as B-TYPE=1 instead of 2/3\n"                       \
	"  --icnt-full-sync  BTM: SYNC=4 message when I-CNT is full\n"                      \
	"  --htm-ib-no-hist  HTM: IndirectBranch when HIST is empty\n"                      \
	"  --sync-mode M   off|msgs|cycles|hwords [trTeInstSyncMode] (default off)\n"       \
	"  --sync-max N    sync period 2^(N+4) units, 0..15 [trTeInstSyncMax]\n"            \
	"  --start-sync N  SYNC code at trace start, 0..15 (default 5)\n"                   \
	"  --stop-evcode N EVCODE at trace stop/end, 0..15 (default 4)\n"                   \
	"  --ts-branch N   sifive-v0 tsBranch: TSTAMP on 0 sync messages only, 1 and\n"   \
	"                  indirect branches, 3 all but ResourceFull (default 3)\n"      \
	"  --src-id N      SRC value [trTeSrcID]\n" CODEC_HELP

int enc_opt(const char *cmd, int opt, const char *arg, struct ntrace_enc_cfg *cfg);

/* Program images: --elf, --bin, --zcmp, --zcmt, --jvt (returns as codec_opt()). */
enum {
	IMG_OPT_ELF = ENC_OPT__END,
	IMG_OPT_BIN,
	IMG_OPT_ZCMP,
	IMG_OPT_ZCMT,
	IMG_OPT_JVT,
	IMG_OPT__END,
};

#define IMG_LONG_OPTIONS                                                         \
	{ "elf", required_argument, NULL, IMG_OPT_ELF },                         \
	{ "bin", required_argument, NULL, IMG_OPT_BIN },                         \
	{ "zcmp", no_argument, NULL, IMG_OPT_ZCMP },                             \
	{ "zcmt", no_argument, NULL, IMG_OPT_ZCMT },                             \
	{ "jvt", required_argument, NULL, IMG_OPT_JVT }

#define IMG_HELP                                                                           \
	"  --elf FILE[@ADDR]   RISC-V ELF64 or ELF32 executable or shared object (at ADDR)\n"        \
	"  --bin FILE@ADDR     raw binary code (bare metal) loaded at ADDR\n"               \
	"  --zcmp, --zcmt      the code uses Zcmp / Zcmt;  --jvt ADDR  Zcmt table base\n"

#define IMG_OPTS_MAX 256

struct img_opts {
	const char *arg[IMG_OPTS_MAX];	/* FILE[@ADDR] as given */
	bool raw[IMG_OPTS_MAX];		/* --bin */
	unsigned int n;
	struct ntrace_isa_cfg isa;
};

void img_opts_init(struct img_opts *o);
int img_opt(const char *cmd, int opt, const char *arg, struct img_opts *o);

/*
 * A new image set with every image named; NULL after printing why. The
 * set's XLEN starts as codec's (--xlen, for raw images); the first ELF's
 * class decides it, and codec->xlen follows the set.
 */
struct ntrace_images *img_opts_load(const char *cmd, const struct img_opts *o,
				    struct ntrace_codec_cfg *codec);

/* Open a file for reading ("-" = stdin); prints the reason on failure. */
FILE *open_in(const char *cmd, const char *path, const char *mode);

#endif /* PERF_NTRACE_CMD_OPTS_H */
