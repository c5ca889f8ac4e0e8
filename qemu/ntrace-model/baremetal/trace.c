// SPDX-License-Identifier: GPL-2.0-only
/*
 * Trace a small workload through the model, following the spec's
 * "Enabling and Disabling" sequence: sink first, encoder last; stop the
 * encoder, wait for trTeEmpty, then the sink. The workload has direct and
 * indirect calls, returns, a jump table, loops, four ECALLs, a U-mode
 * excursion (MRET to U, ECALL back), a long run of one taken branch
 * (identical HTM history registers), a return to 64 KiB past its call site
 * (retprobe.S) and a machine timer interrupt. The
 * trace stays in RAM; "TRACE hart=N start=... wp=..." lines tell the host
 * harness where (it extracts the bytes from the shared RAM file).
 *
 * One ELF serves every configuration of the test matrix: the host writes
 * a struct trace_cfg at TRACE_CFG_ADDR before the program starts (QEMU
 * "-device loader,addr=...,data=...,data-len=4", see tests/run.sh). Without
 * it (no magic) the program traces in BTM with periodic sync by half-words.
 *
 * Every hart in cfg->harts runs the same traced code with its own encoder,
 * sink, buffer and trTeSrcID (cfg->features' SrcID + hart index). The
 * traced instructions do not depend on the hart index or on the host's
 * timing (the timer interrupt is made pending before it is enabled), so
 * every hart and every run executes the same instruction sequence; only
 * the configuration-dependent gap (cfg->flags TOGGLE_*) and filters change
 * what is traced.
 *
 * The program reads the time CSR itself at fixed points (time_probe(): an
 * rdtime at the known address time_probe_insn), just before the store
 * that enables trace and just after the one that disables it, and prints
 * the values ("TIMES hart=N ..."): the host checks the trace's timestamps
 * (the platform timer in the model) against them.
 */
#include "ntrace_regs_bm.h"
#include "trace_cfg.h"

#define MAX_PROBES	16

/* fib() lives alone in section "ntfilt"; the linker defines its bounds */
extern char __start_ntfilt[], __stop_ntfilt[];

#define BUF(h)		(0x80400000UL + (uintptr_t)(h) * 0x100000)
#define BUF_SIZE	0x40000UL

struct hart_result {
	int done;		/* 1 finished, -1 failed early */
	const char *failed;	/* the step that failed */
	uint32_t control, features, ts_control, filters;	/* read back */
	uint32_t wp, end_control;
	int ticks, ecalls, uecalls;
	uint8_t first_byte;
	uint32_t result;
	uint64_t t_first, t_last;	/* time CSR before trace on, after trace off */
	uint64_t probe[MAX_PROBES];	/* time_probe() values, in program order */
	unsigned int nprobes;
};

static struct trace_cfg cfg;
static volatile int cfg_ready;	/* hart 0 has read the configuration */
static volatile struct hart_result res[MAX_HARTS];

void run_user(int (*fn)(void));
void user_resume(void);
void ret_probe(void);
uint64_t time_probe(void);

/*
 * rdtime at a fixed, known address: its ground-truth records are findable.
 * RV32 reads the two halves around it (rdtimeh, rdtime, rdtimeh again, and
 * once more if the high half moved): time_probe_insn is still the one
 * rdtime whose value the program keeps.
 */
#if __riscv_xlen == 64
__asm__(".text\n"
	".globl time_probe, time_probe_insn\n"
	".type time_probe, @function\n"
	".balign 4\n"
	"time_probe:\n"
	"time_probe_insn:\n"
	"	rdtime a0\n"
	"	ret\n"
	".size time_probe, . - time_probe\n");
#else
__asm__(".text\n"
	".globl time_probe, time_probe_insn\n"
	".type time_probe, @function\n"
	".balign 4\n"
	"time_probe:\n"
	"	rdtimeh a1\n"
	"time_probe_insn:\n"
	"	rdtime a0\n"
	"	rdtimeh t0\n"
	"	bne a1, t0, time_probe\n"
	"	ret\n"
	".size time_probe, . - time_probe\n");
#endif

static void probe(unsigned int h)
{
	volatile struct hart_result *r = &res[h];
	uint64_t t = time_probe();

	if (r->nprobes < MAX_PROBES)
		r->probe[r->nprobes++] = t;
}

static __attribute__((interrupt("machine"), aligned(4))) void trap_handler(void)
{
	unsigned long cause, epc, h = csr_mhartid();

	__asm__ volatile("csrr %0, mcause" : "=r"(cause));
	if (cause == (MCAUSE_INTERRUPT | 7)) {
		mtimecmp_write(h, ~0ULL);
		res[h].ticks++;
		return;
	}
	if (cause == 8) {
		/* ECALL from U-mode: back to run_user()'s caller, in M-mode */
		__asm__ volatile("csrw mepc, %0" : : "r"(user_resume));
		__asm__ volatile("csrs mstatus, %0" : : "r"(3UL << 11));
		res[h].uecalls++;
		return;
	}
	if (cause == 11) {
		__asm__ volatile("csrr %0, mepc" : "=r"(epc));
		__asm__ volatile("csrw mepc, %0" : : "r"(epc + 4));
		res[h].ecalls++;
		return;
	}
	puts_("# unexpected trap ");
	puthex(cause);
	putch('\n');
	exit(3);
}

typedef int (*op_fn)(int, int);
static __attribute__((noinline)) int op_add(int a, int b) { return a + b; }
static __attribute__((noinline)) int op_sub(int a, int b) { return a - b; }
static __attribute__((noinline)) int op_xor(int a, int b) { return a ^ b; }
static __attribute__((noinline)) int op_mul(int a, int b) { return a * b + 1; }
static op_fn const ops[4] = { op_add, op_sub, op_xor, op_mul };

static __attribute__((noinline, section("ntfilt"))) int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static __attribute__((noinline)) int classify(int v)
{
	switch (v % 6) {
	case 0: return v * 7;
	case 1: return v + 13;
	case 2: return v ^ 0x55;
	case 3: return v - 9;
	case 4: return v << 2;
	default: return v >> 1;
	}
}

static __attribute__((noinline)) int user_work(void)
{
	volatile int acc = 0;
	int i;

	for (i = 0; i < 20; i++)
		acc += classify(i);
	return 0;
}

/* A loop of one conditional branch: HTM fills identical HIST registers. */
static __attribute__((noinline)) int spin(int n)
{
	volatile int acc = 0;
	int i;

	for (i = 0; i < n; i++)
		acc += i;
	return acc;
}

#if __riscv_xlen == 32
/*
 * RV32: U-mode runs user_work() through an alias of the program at the top
 * of the address space. Sv32 megapages map both 0x80000000 and USER_ALIAS
 * to the first 4 MiB of RAM, so the trace carries addresses whose upper
 * bits are all ones (with trTeInstExtendAddrMSB their F-ADDR/U-ADDR fields
 * depend on XLEN) and code that QEMU translates once for two addresses.
 * The host decodes with the ELF at both places (tests/run.sh).
 */
#define USER_ALIAS	0xffc00000UL
#define PTE_VRWXUAD	0xdfu
static uint32_t user_pt[1024] __attribute__((aligned(4096)));

static unsigned long user_satp(void)
{
	uint32_t pte = (uint32_t)(0x80000000UL >> 12) << 10 | PTE_VRWXUAD;

	user_pt[0x80000000UL >> 22] = pte;
	user_pt[USER_ALIAS >> 22] = pte;
	/* MODE Sv32, ASID 5 (the model's context), the root table */
	return 1UL << 31 | 5UL << SATP_ASID_SHIFT | (uintptr_t)user_pt >> 12;
}

#define USER_FN(f)	((int (*)(void))((uintptr_t)(f) - 0x80000000UL + USER_ALIAS))
#else
/* RV64: bare translation, ASID 5 (the model's context) */
static unsigned long user_satp(void)
{
	return 5UL << SATP_ASID_SHIFT;
}

#define USER_FN(f)	(f)
#endif

/* Untraced work in the gap of the TOGGLE_* configurations. */
static __attribute__((noinline)) int gap_work(int n)
{
	volatile int acc = 0;
	int i;

	for (i = 0; i < n; i++)
		acc += classify(i);
	return acc;
}

/* Returns 0, or -1 if a handshake poll timed out (the hart stops tracing). */
static int pause_trace(uintptr_t te, uint32_t c)
{
	int acc;

	if (cfg.flags & CFG_TOGGLE_INST) {
		/* stop at the store, trace again right after the second one */
		wr32(te + TCI_CONTROL, c | TCI_ENABLE);
		acc = gap_work(30);
		wr32(te + TCI_CONTROL, c | TCI_ENABLE | TCI_TE_INST_TRACING);
		return acc;
	}
	/* full disable: wait for Enable=0 and Empty=1, then enable again */
	wr32(te + TCI_CONTROL, c);
	if (poll32(te + TCI_CONTROL, TCI_ENABLE | TCI_EMPTY, TCI_EMPTY) < 0)
		return -1;
	acc = gap_work(30);
	wr32(te + TCI_CONTROL, c | TCI_ENABLE);
	if (poll32(te + TCI_CONTROL, TCI_ENABLE, TCI_ENABLE) < 0)
		return -1;
	wr32(te + TCI_CONTROL, c | TCI_ENABLE | TCI_TE_INST_TRACING);
	return acc;
}

static __attribute__((noinline)) int workload(unsigned int h, uintptr_t te, uint32_t c)
{
	volatile int acc = 1;
	int i;

	probe(h);
	for (i = 0; i < 200; i++) {
		acc = ops[i & 3](acc, i);
		acc += classify(i);
		if (i % 50 == 0) {
			__asm__ volatile("ecall");
			probe(h);
		}
	}
	if (cfg.flags & (CFG_TOGGLE_INST | CFG_TOGGLE_ENABLE))
		if (pause_trace(te, c) < 0)
			return -1;
	probe(h);
	acc += fib(12);
	probe(h);
	acc += spin(300);	/* repeated branch history */
	probe(h);
	/* satp.ASID is the model's context: 5 while in U-mode */
	__asm__ volatile("csrw satp, %0" : : "r"(user_satp()));
#if __riscv_xlen == 32
	__asm__ volatile("sfence.vma" : : : "memory");	/* the new page table */
#endif
	run_user(USER_FN(user_work));	/* U-mode part: privilege changes, ECALL from U */
	__asm__ volatile("csrw satp, zero");
	ret_probe();		/* a return 64 KiB past its call site */
	probe(h);
	/*
	 * Timer interrupt: due now (pending as soon as mtimecmp is written),
	 * taken when mstatus.MIE is set, so at the same instruction on every
	 * run and hart.
	 */
	mtimecmp_write(h, mtime_read());
	__asm__ volatile("csrs mie, %0" : : "r"(1UL << 7));
	__asm__ volatile("csrs mstatus, %0" : : "r"(1UL << 3));
	while (!res[h].ticks)
		acc++;
	__asm__ volatile("csrc mstatus, %0" : : "r"(1UL << 3));
	probe(h);
	return acc;
}

static void set_comparator(uintptr_t te, unsigned int j, uint64_t p, uint64_t sm,
			   uint32_t pfn, uint32_t sfn, uint32_t mode)
{
	uintptr_t k = te + TCI_TE_COMP(j);

	wr32(k + TCI_CMP_PMATCH_LOW, (uint32_t)p);
	wr32(k + TCI_CMP_PMATCH_HIGH, (uint32_t)(p >> 32));
	wr32(k + TCI_CMP_SMATCH_LOW, (uint32_t)sm);
	wr32(k + TCI_CMP_SMATCH_HIGH, (uint32_t)(sm >> 32));
	wr32(k + TCI_CMP_CONTROL, pfn << TCI_CMP_P_FUNC_SHIFT | sfn << TCI_CMP_S_FUNC_SHIFT |
	     mode << TCI_CMP_MATCH_MODE_SHIFT);
}

static void set_filters(uintptr_t te)
{
	uintptr_t f0 = te + TCI_TE_FILTER_BASE;
	uint64_t lo = (uintptr_t)__start_ntfilt, hi = (uintptr_t)__stop_ntfilt;
	uint32_t mask = 0;

	if (cfg.flags & CFG_FILTER_OUT) {
		set_comparator(te, 1, lo, hi, TCI_CMP_FUNC_GE, TCI_CMP_FUNC_LT,
			       TCI_CMP_MODE_NOT_P_AND_S);
		wr32(f0 + TCI_FLT_CONTROL, TCI_FLT_ENABLE | TCI_FLT_MATCH_COMP1 |
		     TCI_SET(FLT_COMP1, 1u));
		mask |= 1;
	}
	if (cfg.flags & CFG_FILTER_LATCH) {
		set_comparator(te, 0, lo, (uintptr_t)spin, TCI_CMP_FUNC_EQ, TCI_CMP_FUNC_EQ,
			       TCI_CMP_MODE_LATCH);
		wr32(f0 + TCI_FLT_CONTROL, TCI_FLT_ENABLE | TCI_FLT_MATCH_COMP1 |
		     TCI_SET(FLT_COMP1, 0u));
		mask |= 1;
	}
	if (cfg.flags & CFG_FILTER_MASK) {
		set_comparator(te, 1, (uintptr_t)classify, ~0x3full, TCI_CMP_FUNC_EQ,
			       TCI_CMP_FUNC_SPECIAL, TCI_CMP_MODE_P);	/* S: mask */
		wr32(f0 + TCI_FLT_CONTROL, TCI_FLT_ENABLE | TCI_FLT_MATCH_COMP1 |
		     TCI_SET(FLT_COMP1, 1u));
		mask |= 1;
	}
	if (cfg.flags & CFG_FILTER_TWO) {
		set_comparator(te, 0, lo, 0, TCI_CMP_FUNC_GE, TCI_CMP_FUNC_EQ, TCI_CMP_MODE_P);
		set_comparator(te, 1, hi, 0, TCI_CMP_FUNC_LT, TCI_CMP_FUNC_EQ, TCI_CMP_MODE_P);
		wr32(f0 + TCI_FLT_CONTROL, TCI_FLT_ENABLE | TCI_FLT_MATCH_COMP1 |
		     TCI_SET(FLT_COMP1, 0u) | TCI_FLT_MATCH_COMP2 | TCI_SET(FLT_COMP2, 1u));
		mask |= 1;
	}

	if (cfg.flags & CFG_FILTER_RANGE) {
		uintptr_t k = te + TCI_TE_COMP_BASE, f = te + TCI_TE_FILTER_BASE;

		wr32(k + TCI_CMP_PMATCH_LOW, (uint32_t)(uintptr_t)__start_ntfilt);
		wr32(k + TCI_CMP_PMATCH_HIGH, 0);
		wr32(k + TCI_CMP_SMATCH_LOW, (uint32_t)(uintptr_t)__stop_ntfilt);
		wr32(k + TCI_CMP_SMATCH_HIGH, 0);
		/* iaddr >= start && iaddr < end */
		wr32(k + TCI_CMP_CONTROL, TCI_SET(CMP_P_FUNC, TCI_CMP_FUNC_GE) |
		     TCI_SET(CMP_S_FUNC, TCI_CMP_FUNC_LT) |
		     TCI_SET(CMP_MATCH_MODE, TCI_CMP_MODE_P_AND_S));
		wr32(f + TCI_FLT_CONTROL, TCI_FLT_ENABLE | TCI_FLT_MATCH_COMP1 |
		     TCI_SET(FLT_COMP1, 0u));
		mask |= 1;
	}
	if (cfg.flags & CFG_FILTER_PRIV) {
		uintptr_t f = te + TCI_TE_FILTER(1);

		wr32(f + TCI_FLT_MATCH_INST, 1u << 0);	/* privilege 0: U */
		wr32(f + TCI_FLT_CONTROL, TCI_FLT_ENABLE | TCI_FLT_MATCH_PRIV);
		mask |= 2;
	}
	wr32(te + TCI_TE_INST_FILTERS, mask);
}

#define FAIL(what) do { r->failed = (what); r->done = -1; return; } while (0)

static void trace_hart(unsigned int h)
{
	volatile struct hart_result *r = &res[h];
	uintptr_t te = TE_BASE(h), rs = RAM_BASE(h);
	uint32_t c;

	__asm__ volatile("csrw mtvec, %0" : : "r"(trap_handler));
	if (tci_reset(rs) || tci_reset(te))
		FAIL("sink and encoder released from reset");
	/* sink: SMEM buffer, WP at the start, then enable and confirm */
	wr32(rs + TCI_CONTROL, TCI_ACTIVE);
	wr32(rs + TCI_RAM_START_HIGH, 0);
	wr32(rs + TCI_RAM_START_LOW, BUF(h));
	wr32(rs + TCI_RAM_LIMIT_HIGH, 0);
	wr32(rs + TCI_RAM_LIMIT_LOW, BUF(h) + BUF_SIZE - 4);
	wr32(rs + TCI_RAM_WP_HIGH, 0);
	wr32(rs + TCI_RAM_WP_LOW, BUF(h));
	wr32(rs + TCI_CONTROL, TCI_ACTIVE | TCI_ENABLE);
	if (poll32(rs + TCI_CONTROL, TCI_ENABLE, TCI_ENABLE) < 0)
		FAIL("sink enabled");
	/* encoder: spec reset table, then the mode, verified by the host */
	wr32(te + TCI_TE_INST_FEATURES, cfg.features + (h << TCI_TE_F_SRC_ID_SHIFT));
	set_filters(te);
	wr32(te + TCI_TE_DATA_CONTROL, 0);
	wr32(te + TCI_TE_TRIG_DBG_CONTROL, 0);
	wr32(te + TCI_TE_TRIG_EXTIN_CONTROL, 0);
	wr32(te + TCI_TE_TRIG_EXTOUT_CONTROL, 0);
	if (cfg.ts_control) {
		/* the releasing write sets defaults; configure with a second one */
		wr32(te + TCI_TS_CONTROL, TCI_TS_ACTIVE);
		wr32(te + TCI_TS_CONTROL, cfg.ts_control);
	} else {
		wr32(te + TCI_TS_CONTROL, 0);
	}
	c = TCI_ACTIVE | cfg.control | TCI_SET(TE_FORMAT, TCI_TE_FORMAT_NTRACE);
	wr32(te + TCI_CONTROL, c);
	r->control = rd32(te + TCI_CONTROL) & ~TCI_EMPTY;
	r->features = rd32(te + TCI_TE_INST_FEATURES);
	r->ts_control = rd32(te + TCI_TS_CONTROL);
	r->filters = rd32(te + TCI_TE_INST_FILTERS);
	wr32(te + TCI_CONTROL, c | TCI_ENABLE);
	if (poll32(te + TCI_CONTROL, TCI_ENABLE, TCI_ENABLE) < 0)
		FAIL("encoder enabled");
	r->t_first = rdtime();
	wr32(te + TCI_CONTROL, c | TCI_ENABLE | TCI_TE_INST_TRACING);

	r->result = (uint32_t)workload(h, te, c);

	/* disable: encoder first, wait for Enable=0 and Empty=1, then the sink */
	wr32(te + TCI_CONTROL, c);
	r->t_last = rdtime();
	if (poll32(te + TCI_CONTROL, TCI_ENABLE | TCI_EMPTY, TCI_EMPTY) < 0)
		FAIL("encoder disabled and empty");
	wr32(rs + TCI_CONTROL, TCI_ACTIVE);
	if (poll32(rs + TCI_CONTROL, TCI_ENABLE | TCI_EMPTY, TCI_EMPTY) < 0)
		FAIL("sink disabled and flushed");
	r->end_control = rd32(te + TCI_CONTROL);
	r->wp = rd32(rs + TCI_RAM_WP_LOW);
	r->first_byte = *(volatile uint8_t *)BUF(h);
	__asm__ volatile("fence rw, rw");
	r->done = 1;
}

void hart_main(unsigned long hartid)
{
	while (!cfg_ready)
		;
	__asm__ volatile("fence rw, rw");
	if (hartid < cfg.harts && hartid < MAX_HARTS)
		trace_hart((unsigned int)hartid);
}

static void check_hart(unsigned int h)
{
	volatile struct hart_result *r = &res[h];
	uint32_t want_c = TCI_ACTIVE | cfg.control | TCI_SET(TE_FORMAT, TCI_TE_FORMAT_NTRACE);
	uint32_t want_f = cfg.features + (h << TCI_TE_F_SRC_ID_SHIFT);
	uint32_t want_flt = (cfg.flags & (CFG_FILTER_RANGE | CFG_FILTER_OUT | CFG_FILTER_LATCH |
					  CFG_FILTER_MASK | CFG_FILTER_TWO) ? 1 : 0) |
			    (cfg.flags & CFG_FILTER_PRIV ? 2 : 0);
	uint32_t wp;
	int i;

	for (i = 0; i < 200000000 && !r->done; i++)
		;
	__asm__ volatile("fence rw, rw");
	wp = r->wp;
	puts_("# hart ");
	putdec(h);
	putch('\n');
	check(r->done == 1, "reset, enable and disable handshakes completed");
	if (r->done != 1) {
		puts_("#   failed at: ");
		puts_(r->failed ? r->failed : "(hart did not finish)");
		putch('\n');
		return;
	}
	check_eq(r->control, want_c, "encoder mode and options set and verified (trTeControl)");
	check_eq(r->features, want_f, "features set and verified (trTeInstFeatures)");
	check_eq(r->filters, want_flt, "filters set and verified (trTeInstFilters)");
	if (cfg.ts_control)
		check_eq(r->ts_control & ~(0xffu << TCI_TS_WIDTH_SHIFT) & ~TCI_TS_RESET,
			 cfg.ts_control & ~TCI_TS_RESET,
			 "timestamp unit set and verified (trTsControl)");
	check_eq(r->ticks, 1, "timer interrupt taken once");
	check_eq(r->ecalls, 4, "four ECALL traps taken");
	check_eq(r->uecalls, 1, "U-mode ran and came back with an ECALL");
	check_eq(r->end_control & TCI_TE_INST_STALL_OR_OVF, 0, "no overflow");
	check((wp & TCI_RAM_WRAP) == 0 && wp > BUF(h) && (wp & 3) == 0,
	      "trRamWP advanced by whole words, no wrap");
	check_eq(r->first_byte >> 2, 9, "first message is ProgTraceSync (TCODE 9, trace enable)");
	puts_("# result ");
	putdec(r->result);
	putch('\n');
	puts_("TRACE hart=");
	putdec(h);
	puts_(" start=");
	puthex(BUF(h));
	puts_(" wp=");
	puthex(wp);
	putch('\n');
	puts_("TIMES hart=");
	putdec(h);
	puts_(" first=");
	puthex(r->t_first);
	puts_(" last=");
	puthex(r->t_last);
	puts_(" probes=");
	for (i = 0; i < (int)r->nprobes; i++) {
		if (i)
			putch(',');
		puthex(r->probe[i]);
	}
	putch('\n');
}

int main(void)
{
	const volatile struct trace_cfg *in = (const volatile struct trace_cfg *)TRACE_CFG_ADDR;
	unsigned int h;

	if (in->magic == TRACE_CFG_MAGIC) {
		cfg = *(const struct trace_cfg *)in;
	} else {
		cfg.control = TCI_SET(TE_INST_MODE, TCI_TE_INST_MODE_BTM) |
			      TCI_SET(TE_SYNC_MODE, TCI_TE_SYNC_MODE_HWORDS) |
			      TCI_SET(TE_SYNC_MAX, 10u);
		cfg.harts = 1;
	}
	if (cfg.harts < 1 || cfg.harts > MAX_HARTS)
		cfg.harts = 1;
	puts_("# config: control=");
	puthex(cfg.control);
	puts_(" features=");
	puthex(cfg.features);
	puts_(" ts=");
	puthex(cfg.ts_control);
	puts_(" flags=");
	puthex(cfg.flags);
	puts_(" harts=");
	putdec(cfg.harts);
	putch('\n');
	__asm__ volatile("fence rw, rw");
	cfg_ready = 1;		/* the other harts may read cfg now */
	trace_hart(0);
	for (h = 0; h < cfg.harts; h++)
		check_hart(h);
	if (cfg.flags & CFG_FILTER_RANGE) {
		puts_("FILTER start=");
		puthex((uintptr_t)__start_ntfilt);
		puts_(" end=");
		puthex((uintptr_t)__stop_ntfilt);
		putch('\n');
	}
	return bm_failures;
}
