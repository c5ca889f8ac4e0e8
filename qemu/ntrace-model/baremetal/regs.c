// SPDX-License-Identifier: GPL-2.0-only
/*
 * Register behaviour of the model's trace encoder, timestamp unit,
 * filters/comparators and RAM sink against the Trace Control Interface
 * 1.0: power-up state, the reset/release handshake, WARL read-back of
 * every implemented field, pointer locking while the sink captures.
 * Each check prints one TAP line; the harness forwards them. With
 * several harts (bm_harts()), every hart then tests its own components.
 */
#include <stddef.h>

#include "ntrace_regs_bm.h"

static uintptr_t TE, RS;	/* this hart's encoder and sink */
#define RAM_LO	0x80000000UL
#define RAM_HI	(NTRACE_REG_BASE - 4)

static uint32_t mode_of(uint32_t c)
{
	return TCI_GET(c, TE_INST_MODE);
}

static void power_up(void)
{
	check_eq(rd32(TE + TCI_CONTROL) & (TCI_ACTIVE | TCI_ENABLE), 0,
		 "power-up: trTeActive=0 trTeEnable=0");
	check_eq(rd32(RS + TCI_CONTROL) & (TCI_ACTIVE | TCI_ENABLE), 0,
		 "power-up: trRamActive=0 trRamEnable=0");
	check_eq(rd32(TE + TCI_IMPL), 0x00010101,
		 "trTeImpl: version 1.0, component type encoder, N-Trace protocol 1.0");
	check_eq(rd32(RS + TCI_IMPL), 0x00002901,
		 "trRamImpl: version 1.0, component type RAM sink, SMEM only");
}

static void reset_handshake(void)
{
	int polls;

	/* a driver that skips the handshake loses writes, as on hardware */
	wr32(TE + TCI_CONTROL, TCI_ACTIVE);
	wr32(TE + TCI_TE_INST_FILTERS, 1);
	check_eq(rd32(TE + TCI_CONTROL) & TCI_ACTIVE, 0,
		 "release from reset is not instantaneous (trTeActive still 0)");
	polls = poll32(TE + TCI_CONTROL, TCI_ACTIVE, TCI_ACTIVE);
	check(polls >= 0, "trTeActive reads 1 after polling");
	check_eq(rd32(TE + TCI_TE_INST_FILTERS), 0,
		 "write issued while the encoder was in reset was ignored");

	wr32(TE + TCI_CONTROL, 0);
	check(poll32(TE + TCI_CONTROL, TCI_ACTIVE, 0) >= 0, "trTeActive=0 after writing 0");
	check(tci_reset(TE) == 0, "encoder reset and discovery handshake");
	check_eq(rd32(TE + TCI_CONTROL), 0x01810039,
		 "trTeControl defaults: Active Empty BTM SyncMode=1 SyncMax=8 Format=N-Trace");
	check(tci_reset(RS) == 0, "RAM sink reset and discovery handshake");
	check_eq(rd32(RS + TCI_CONTROL), TCI_ACTIVE | TCI_EMPTY | TCI_RAM_MODE_SMEM,
		 "trRamControl defaults: Active Empty SMEM mode");
}

static void encoder_warl(void)
{
	static const uint8_t want[8] = { 0, 3, 3, 3, 3, 3, 6, 6 };
	uint32_t m, c, ok = 1;

	for (m = 0; m < 8; m++) {
		wr32(TE + TCI_CONTROL, TCI_ACTIVE | TCI_SET(TE_INST_MODE, m));
		c = rd32(TE + TCI_CONTROL);
		if (mode_of(c) != want[m]) {
			ok = 0;
			puts_("# trTeInstMode ");
			putdec(m);
			puts_(" read ");
			putdec(mode_of(c));
			putch('\n');
		}
	}
	check(ok, "trTeInstMode WARL: 0, 3 (BTM) and 6 (HTM) stick, others revert to non-0");
	wr32(TE + TCI_CONTROL, TCI_ACTIVE | TCI_SET(TE_INST_MODE, TCI_TE_INST_MODE_HTM));
	check_eq(mode_of(rd32(TE + TCI_CONTROL)), 6, "trTeInstMode=6 (HTM) is settable");

	wr32(TE + TCI_CONTROL, TCI_ACTIVE | TCI_SET(TE_FORMAT, TCI_TE_FORMAT_ETRACE) |
	     TCI_SET(TE_INST_MODE, TCI_TE_INST_MODE_BTM));
	check_eq(TCI_GET(rd32(TE + TCI_CONTROL), TE_FORMAT), 1,
		 "trTeFormat WARL: always 1 (N-Trace)");
	wr32(TE + TCI_CONTROL, TCI_ACTIVE | TCI_SET(TE_INST_MODE, TCI_TE_INST_MODE_BTM) |
	     TCI_TE_INST_STALL_ENA | TCI_TE_INST_TRIG_ENABLE | TCI_TE_CONTEXT | TCI_TE_INHIBIT_SRC |
	     0xc0u << 24 | 3u << 18 | 3u << 7);
	c = rd32(TE + TCI_CONTROL);
	check_eq(c & (TCI_TE_INST_STALL_ENA | TCI_TE_INST_TRIG_ENABLE), 0,
		 "trTeInstStallEna and trTeInstTrigEnable are not implemented (read 0)");
	check_eq(c & (TCI_TE_CONTEXT | TCI_TE_INHIBIT_SRC), TCI_TE_CONTEXT | TCI_TE_INHIBIT_SRC,
		 "trTeContext and trTeInhibitSrc are settable");
	check_eq(c & (0xf8u << 24 | 3u << 18 | 3u << 7 | 1u << 10 | 1u << 14), 0,
		 "reserved trTeControl bits read 0");
	for (m = 0, ok = 1; m < 4; m++) {
		wr32(TE + TCI_CONTROL, TCI_ACTIVE | TCI_SET(TE_INST_MODE, TCI_TE_INST_MODE_BTM) |
		     TCI_SET(TE_SYNC_MODE, m) | TCI_SET(TE_SYNC_MAX, m * 5));
		c = rd32(TE + TCI_CONTROL);
		ok &= TCI_GET(c, TE_SYNC_MODE) == m;
		ok &= TCI_GET(c, TE_SYNC_MAX) == m * 5;
	}
	check(ok, "trTeInstSyncMode 0..3 and trTeInstSyncMax are settable");

	wr32(TE + TCI_TE_INST_FEATURES, 0xffffffff);
	check_eq(rd32(TE + TCI_TE_INST_FEATURES), 0xcfff07cc,
		 "trTeInstFeatures WARL probe: SeqJump ImplicitReturn(mode 3) RepeatedHistory "
		 "AllJumps ExtendAddrMSB, SrcID 12 bits, SrcBits max 12");
	wr32(TE + TCI_TE_INST_FEATURES, 0x30070000 | TCI_TE_F_NO_ADDR_DIFF | TCI_TE_F_NO_TRAP_ADDR |
	     TCI_TE_F_BRANCH_PREDICTION | TCI_TE_F_JUMP_TARGET_CACHE);
	check_eq(rd32(TE + TCI_TE_INST_FEATURES), 0x30070000,
		 "N-Trace hard-wires NoAddrDiff NoTrapAddr BranchPrediction JumpTargetCache to 0");
	wr32(TE + TCI_TE_INST_FEATURES, 0);
	check_eq(rd32(TE + TCI_TE_INST_FEATURES), 0, "trTeInstFeatures=0 (minimal features)");

	wr32(TE + TCI_TE_INST_FILTERS, 0xffffffff);
	check_eq(rd32(TE + TCI_TE_INST_FILTERS), 0x3, "trTeInstFilters: two filters implemented");
	wr32(TE + TCI_TE_INST_FILTERS, 0);
	wr32(TE + TCI_TE_DATA_CONTROL, 0xffffffff);
	check_eq(rd32(TE + TCI_TE_DATA_CONTROL), 0, "trTeDataControl: no data trace (reads 0)");
	wr32(TE + TCI_TE_TRIG_EXTIN_CONTROL, 0xffffffff);
	wr32(TE + TCI_TE_TRIG_DBG_CONTROL, 0xffffffff);
	check_eq(rd32(TE + TCI_TE_TRIG_EXTIN_CONTROL) | rd32(TE + TCI_TE_TRIG_DBG_CONTROL), 0,
		 "trigger registers read 0 (no triggers)");
	wr32(TE + 0x030, 0x12345678);
	wr32(TE + 0xe00, 0x12345678);
	check_eq(rd32(TE + 0x030) | rd32(TE + 0xe00), 0, "reserved encoder offsets read 0");
	wr32(TE + TCI_IMPL, 0);
	check_eq(rd32(TE + TCI_IMPL), 0x00010101, "trTeImpl is read-only");

	wr32(TE + TCI_TE_FILTER_BASE + TCI_FLT_CONTROL, 0xffffffff);
	check_eq(rd32(TE + TCI_TE_FILTER_BASE + TCI_FLT_CONTROL), 0x3333,
		 "trTeFilter0Control WARL: enable, privilege, comparators 0..1 only");
	wr32(TE + TCI_TE_FILTER_BASE + TCI_FLT_MATCH_INST, 0xffffffff);
	check_eq(rd32(TE + TCI_TE_FILTER_BASE + TCI_FLT_MATCH_INST), 0xff,
		 "trTeFilter0MatchInst: privilege choice only");
	wr32(TE + TCI_TE_COMP_BASE + TCI_CMP_CONTROL, 0xffffffff);
	check_eq(rd32(TE + TCI_TE_COMP_BASE + TCI_CMP_CONTROL), 0x3770,
		 "trTeComp0Control WARL: iaddr input only, all functions and match modes");
	wr32(TE + TCI_TE_COMP(1) + TCI_CMP_PMATCH_LOW, 0x89abcdef);
	wr32(TE + TCI_TE_COMP(1) + TCI_CMP_PMATCH_HIGH, 0x01234567);
	/* iaddr is XLEN bits: an RV32 encoder implements no PmatchHigh */
	check_eq(rd32(TE + TCI_TE_COMP(1) + TCI_CMP_PMATCH_LOW) |
		 (uint64_t)rd32(TE + TCI_TE_COMP(1) + TCI_CMP_PMATCH_HIGH) << 32,
		 __riscv_xlen == 64 ? 0x0123456789abcdefULL : 0x89abcdefULL,
		 __riscv_xlen == 64 ? "trTeComp1PmatchLow/High hold 64 bits" :
		 "trTeComp1PmatchLow holds 32 bits, PmatchHigh reads 0 (RV32)");
	wr32(TE + TCI_TE_FILTER(2), 1);
	check_eq(rd32(TE + TCI_TE_FILTER(2)), 0,
		 "filter 2 is not implemented (reads 0)");
	wr32(TE + TCI_TE_FILTER_BASE + TCI_FLT_CONTROL, 0);
	wr32(TE + TCI_TE_COMP_BASE + TCI_CMP_CONTROL, 0);
}

static uint64_t ts_counter(void)
{
	return rd32(TE + TCI_TS_COUNTER_LOW) | (uint64_t)rd32(TE + TCI_TS_COUNTER_HIGH) << 32;
}

/*
 * The counter after a trTsControl write (which refreshes it) lies between
 * the time CSR values read just before and just after, divided by
 * 4^prescale.
 */
static int ts_brackets(uint32_t control, unsigned int prescale, uint64_t *value)
{
	uint64_t t0, t1, v;

	t0 = rdtime();
	wr32(TE + TCI_TS_CONTROL, control);
	v = ts_counter();
	t1 = rdtime();
	if (value)
		*value = v;
	if (v >= t0 >> (2 * prescale) && v <= t1 >> (2 * prescale))
		return 1;
	puts_("#   counter ");
	puthex(v);
	puts_(" time CSR ");
	puthex(t0);
	puts_("..");
	puthex(t1);
	putch('\n');
	return 0;
}

/*
 * The timestamp unit is External: its value is the platform timer (the
 * time CSR, ACLINT mtime) / 4^trTsPrescale. trTsCounter shows it as of
 * the last register write or block boundary the model refreshed it at
 * (every 64 blocks while the hart does not trace).
 */
static void timestamp_unit(void)
{
	const uint32_t ext = TCI_SET(TS_MODE, TCI_TS_MODE_EXTERNAL);
	uint64_t a, b, t;
	uint32_t i, m, ok = 1;
	volatile uint32_t spin = 0;

	check_eq(rd32(TE + TCI_TS_CONTROL), TCI_SET(TS_WIDTH, 48),
		 "trTsControl in reset: only trTsWidth=48 reads non-0");
	check_eq(ts_counter(), 0, "trTsCounter in reset reads 0");
	wr32(TE + TCI_TS_CONTROL, TCI_TS_ACTIVE);
	check_eq(rd32(TE + TCI_TS_CONTROL), TCI_SET(TS_WIDTH, 48) | ext | TCI_TS_ACTIVE,
		 "trTsActive=1: mode defaults to 1 (External: the platform timer)");
	for (m = 1; m < 8; m++) {
		wr32(TE + TCI_TS_CONTROL, TCI_TS_ACTIVE | TCI_SET(TS_MODE, m));
		ok &= rd32(TE + TCI_TS_CONTROL) == (TCI_SET(TS_WIDTH, 48) | ext | TCI_TS_ACTIVE);
	}
	check(ok, "trTsMode WARL: every non-0 mode reads back 1 (External)");
	wr32(TE + TCI_TS_CONTROL, TCI_TS_ACTIVE);
	check_eq(rd32(TE + TCI_TS_CONTROL), TCI_SET(TS_WIDTH, 48) | TCI_TS_ACTIVE,
		 "trTsMode=0 (none) sticks");
	check_eq(ts_counter(), 0, "trTsMode=0: trTsCounter reads 0");
	check(ts_brackets(TCI_TS_ACTIVE | TCI_TS_COUNT | ext | TCI_TS_ENABLE, 0, &a),
	      "trTsCounter is the time CSR (read before and after the write)");
	for (i = 0; i < 2000; i++)
		spin += i;
	b = ts_counter();
	t = rdtime();
	check(b > a && b <= t && t - b < 10000,
	      "trTsCounter follows the platform timer while the hart runs (refreshed every 64 blocks)");
	check(ts_brackets(TCI_TS_ACTIVE | ext | TCI_TS_ENABLE, 0, NULL),
	      "trTsCount=0 does not stop an External unit");
	check_eq(rd32(TE + TCI_TS_CONTROL) & TCI_TS_COUNT, 0, "trTsCount keeps what was written");
	check(ts_brackets(TCI_TS_ACTIVE | TCI_TS_RESET | TCI_TS_COUNT | ext, 0, NULL),
	      "trTsReset does not clear an External unit");
	check_eq(rd32(TE + TCI_TS_CONTROL) & TCI_TS_RESET, 0, "trTsReset reads 0");
	for (m = 1; m < 4; m++)
		ok &= ts_brackets(TCI_TS_ACTIVE | TCI_TS_COUNT | ext | TCI_SET(TS_PRESCALE, m), m,
				  NULL);
	check(ok, "trTsPrescale=1..3 divides the platform timer by 4, 16, 64");
	check_eq(TCI_GET(rd32(TE + TCI_TS_CONTROL), TS_PRESCALE), 3,
		 "trTsPrescale reads back 3");
	wr32(TE + TCI_TS_CONTROL, 0);
	check_eq(rd32(TE + TCI_TS_CONTROL) & TCI_TS_ACTIVE, 0,
		 "trTsActive=0 holds the unit in reset");
	check_eq(ts_counter(), 0, "trTsCounter reads 0 again in reset");
}

static uint64_t rd64(uintptr_t lo)
{
	return rd32(lo) | (uint64_t)rd32(lo + 4) << 32;
}

static void sink_warl(void)
{
	uint32_t buf = 0x80400000;

	wr32(RS + TCI_CONTROL, TCI_ACTIVE | 0x7ff0);
	check_eq(rd32(RS + TCI_CONTROL),
		 TCI_ACTIVE | TCI_EMPTY | TCI_RAM_MODE_SMEM | TCI_RAM_STOP_ON_WRAP,
		 "trRamControl WARL: SMEM mode fixed, StopOnWrap settable, "
		 "MemFormat/AsyncFreq 0");
	wr32(RS + TCI_CONTROL, TCI_ACTIVE);
	wr32(RS + TCI_RAM_START_HIGH, 0);
	wr32(RS + TCI_RAM_START_LOW, 0);
	check_eq(rd64(RS + TCI_RAM_START_LOW), RAM_LO,
		 "trRamStart: writing 0 reads the lowest address");
	wr32(RS + TCI_RAM_START_LOW, 0xffffffff);
	check_eq(rd64(RS + TCI_RAM_START_LOW), RAM_HI,
		 "trRamStart: writing all-ones reads the highest address");
	wr32(RS + TCI_RAM_START_HIGH, 0xffffffff);
	check_eq(rd32(RS + TCI_RAM_START_HIGH), 0,
		 "trRamStartHigh reads 0: RAM lies below 4 GiB");
	wr32(RS + TCI_RAM_LIMIT_LOW, 0xffffffff);
	check_eq(rd64(RS + TCI_RAM_LIMIT_LOW), RAM_HI,
		 "trRamLimit: highest address below the registers");
	wr32(RS + TCI_RAM_START_LOW, buf + 3);
	check_eq(rd32(RS + TCI_RAM_START_LOW), buf, "trRamStart is 4-byte aligned");
	wr32(RS + TCI_RAM_LIMIT_LOW, buf + 0xffc);
	wr32(RS + TCI_RAM_WP_LOW, buf + 0x10 + 1);
	check_eq(rd32(RS + TCI_RAM_WP_LOW), buf + 0x10 + 1,
		 "trRamWP holds an address and trRamWrap");
	wr32(RS + TCI_RAM_WP_LOW, buf - 0x100);
	check_eq(rd32(RS + TCI_RAM_WP_LOW), buf, "trRamWP WARL: clamped into [Start, Limit]");
	wr32(RS + TCI_RAM_RP_LOW, buf + 0xffc);
	check_eq(rd32(RS + TCI_RAM_RP_LOW), 0,
		 "trRamRP is not settable: SMEM sink, trace is read from memory");
	wr32(RS + TCI_CONTROL, TCI_ACTIVE | TCI_ENABLE);
	check(poll32(RS + TCI_CONTROL, TCI_ENABLE, TCI_ENABLE) >= 0, "trRamEnable=1 reads back");
	check(rd32(RS + TCI_RAM_START_LOW) == buf && rd32(RS + TCI_RAM_LIMIT_LOW) == buf + 0xffc &&
	      rd32(RS + TCI_RAM_WP_LOW) == buf, "enabling the sink changes no pointer");
	wr32(RS + TCI_RAM_START_LOW, buf + 0x100);
	wr32(RS + TCI_RAM_LIMIT_LOW, buf + 0x1fc);
	wr32(RS + TCI_RAM_WP_LOW, buf + 0x100);
	check(rd32(RS + TCI_RAM_START_LOW) == buf && rd32(RS + TCI_RAM_LIMIT_LOW) == buf + 0xffc &&
	      rd32(RS + TCI_RAM_WP_LOW) == buf,
	      "Start/Limit/WP writes are ignored while the sink is enabled");
	wr32(RS + TCI_CONTROL, TCI_ACTIVE);
	check(poll32(RS + TCI_CONTROL, TCI_ENABLE | TCI_EMPTY, TCI_EMPTY) >= 0,
	      "sink disabled and empty");
	wr32(RS + TCI_CONTROL, 0);
	check(poll32(RS + TCI_CONTROL, TCI_ACTIVE, 0) >= 0,
	      "trRamActive=0 holds the sink in reset");
}

static void regs_hart(unsigned int h)
{
	TE = TE_BASE(h);
	RS = RAM_BASE(h);
	puts_("# ntrace model register tests, hart ");
	putdec(h);
	putch('\n');
	power_up();
	reset_handshake();
	encoder_warl();
	timestamp_unit();
	sink_warl();
}

void hart_main(unsigned long hartid)
{
	bm_hart_turn((unsigned int)hartid);
}

int main(void)
{
	bm_each_hart(regs_hart);
	return bm_failures;
}
