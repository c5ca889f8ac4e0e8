// SPDX-License-Identifier: GPL-2.0-only
/*
 * Ground-truth recorder: a QEMU TCG plugin (qemu-system-riscv64 or
 * qemu-system-riscv32 10.0) that writes the address of every retired
 * instruction to a .pcs file (format in include/ntrace/ingress_build.h),
 * with a trap mark where a trap is taken. On RV32 the instructions decode
 * as RV32, jump targets wrap at 32 bits and causes are written in the
 * file's mcause form (interrupt bit 63).
 *
 *   -plugin gt-plugin.so,out=FILE[,start=ADDR][,stop=ADDR]...[,isa=zc]
 *
 * start: record from the first execution of ADDR on (skips the reset ROM).
 * stop: end QEMU when ADDR is about to run (up to 8 of them; for programs
 * that would otherwise wait for a host forever).
 * isa=zc: decode the C.FSDSP space as Zcmp/Zcmt (for -cpu ...,zcmp=true).
 *
 * How traps are found without a trap callback (QEMU 10.0 has none): an
 * exec callback per instruction logs its pc before it runs; a callback at
 * each translation-block start, where every trap lands, checks the
 * previous instruction: an ECALL/EBREAK never retires; any other next pc
 * than the one the previous instruction goes to is a trap. For JALR/C.JR/
 * C.JALR the target is computed from rs1, read before the jump runs; for
 * MRET/SRET it is mepc/sepc, read the same way. Only after CM.POPRET(Z),
 * CM.JT/JALT and MNRET is a heuristic used: a trap if the block is at the
 * trap vector and mcause/mepc changed.
 * For a trap, the cause and epc CSRs of the mode whose vector (stvec, else
 * mtvec) the block is at are read: an exception with epc equal to the
 * previous instruction means that instruction faulted (not retired).
 * Single hart; no hypervisor (VS) traps.
 *
 * Debian ships no qemu-plugin.h, so the few API functions and types used
 * are declared here, matching QEMU 10.0's include/qemu/qemu-plugin.h.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ntrace/ingress_build.h"
#include "ntrace/isa.h"

#include "qemu_plugin_api.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = NTRACE_PLUGIN_API_VERSION;

/* ---- recorder ---- */

struct insn_info {
	uint64_t pc;
	struct ntrace_iext x;
};

static struct ntrace_gt_writer *out;
static const struct insn_info *prev;	/* last logged instruction */
static uint64_t start_pc;
static bool recording;
#define MAX_STOPS 8
static uint64_t stop_pc[MAX_STOPS];	/* stop=: end the run before these run */
static unsigned int n_stops;
static struct qemu_plugin_register *r_mcause, *r_mepc, *r_mtvec;
static struct qemu_plugin_register *r_scause, *r_sepc, *r_stvec;
static struct qemu_plugin_register *r_gpr[32];
static uint64_t jump_target;	/* where the last indirect jump/return goes */
static bool jump_known;
static GByteArray *regbuf;
static uint64_t last_cause = ~0ull, last_epc = ~0ull;
static uint64_t n_insn, n_trap;
static struct ntrace_isa_cfg isa = { .xlen = 64, .ext = NTRACE_ISA_C };

/*
 * Pending pc: the last executed instruction is kept back until the next
 * block start or instruction says whether it retired.
 */
static uint64_t pend_pc;
static bool have_pend;

static uint64_t read_reg(struct qemu_plugin_register *r)
{
	uint64_t v = 0;

	if (!r)
		return 0;	/* x0 */
	g_byte_array_set_size(regbuf, 0);
	if (qemu_plugin_read_register(r, regbuf) > 0)
		memcpy(&v, regbuf->data, regbuf->len < 8 ? regbuf->len : 8);
	return v;
}

/* mcause/scause in the .pcs file's form: the interrupt bit is bit 63. */
static uint64_t read_cause(struct qemu_plugin_register *r)
{
	uint64_t c = read_reg(r);

	if (isa.xlen == 32 && (c >> 31))
		c = (c & 0x7fffffff) | 1ull << 63;
	return c;
}

static void insn_exec(unsigned int vcpu, void *udata)
{
	const struct insn_info *i = udata;

	(void)vcpu;
	if (!recording) {
		if (i->pc != start_pc)
			return;
		recording = true;
	}
	if (have_pend) {
		ntrace_gt_pc(out, pend_pc);
		n_insn++;
		have_pend = false;
	}
	for (unsigned int k = 0; k < n_stops; k++) {
		if (i->pc == stop_pc[k])
			exit(0);	/* at_exit closes the output */
	}
	pend_pc = i->pc;
	have_pend = true;
	prev = i;
	jump_known = false;
}

/* Indirect jumps and trap returns: note the target before they run. */
static void insn_exec_ind(unsigned int vcpu, void *udata)
{
	const struct insn_info *i = udata;

	insn_exec(vcpu, udata);
	jump_known = false;
	if (!recording)
		return;
	switch (i->x.op) {
	case NTRACE_IOP_XRET:
		if (i->x.csr == NTRACE_CSR_MEPC)
			jump_target = read_reg(r_mepc);
		else if (i->x.csr == NTRACE_CSR_SEPC)
			jump_target = read_reg(r_sepc);
		else
			return;			/* MNRET */
		break;
	case NTRACE_IOP_JALR:
		jump_target = ntrace_isa_jalr_target(&i->x, read_reg(r_gpr[i->x.rs1]), isa.xlen);
		break;
	default:
		return;				/* CM.POPRET(Z) */
	}
	jump_target &= ~1ull;
	jump_known = true;
}

/* Could control have reached pc from prev without a trap? 1 yes, 0 no, -1 maybe */
static int reachable(const struct insn_info *q, uint64_t pc)
{
	int r = ntrace_isa_may_follow(&q->x.d, q->pc, pc);

	if (r == NTRACE_FOLLOW_RUNTIME)
		return jump_known ? pc == jump_target : -1;
	return r;
}

/* Is pc the entry of the trap vector tvec for a trap with this cause? */
static bool at_vector(uint64_t tvec, uint64_t cause, uint64_t pc)
{
	uint64_t base = tvec & ~3ull;

	return pc == base ||
	       ((tvec & 3) == 1 && (cause >> 63) && pc == base + 4 * (cause & 0x3f));
}

static void tb_exec(unsigned int vcpu, void *udata)
{
	const struct insn_info *first = udata;
	const struct insn_info *q = prev;
	uint64_t cause, epc;
	int r;

	(void)vcpu;
	if (!recording || !q || !have_pend)
		return;
	r = reachable(q, first->pc);
	if (r == 1)
		return;
	/* which mode took it: the one whose vector the block is at (S first) */
	cause = read_cause(r_scause);
	if (at_vector(read_reg(r_stvec), cause, first->pc)) {
		epc = read_reg(r_sepc);
	} else {
		cause = read_cause(r_mcause);
		epc = read_reg(r_mepc);
		if (r == -1 && !at_vector(read_reg(r_mtvec), cause, first->pc))
			return;
	}
	if (r == -1 && cause == last_cause && epc == last_epc)
		return;	/* a jump into the vector, not a new trap */
	last_cause = cause;
	last_epc = epc;
	if (q->x.d.kind == NTRACE_IK_TRAP || q->x.d.kind == NTRACE_IK_INVALID ||
	    (!(cause >> 63) && epc == q->pc)) {
		/* the previous instruction trapped: it did not retire */
		have_pend = false;
		ntrace_gt_trap(out, q->pc, cause);
	} else {
		ntrace_gt_pc(out, pend_pc);
		n_insn++;
		have_pend = false;
		ntrace_gt_trap(out, epc, cause);
	}
	n_trap++;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	struct insn_info *infos = calloc(n, sizeof(*infos));

	(void)id;
	if (!infos)
		abort();
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint8_t b[4] = { 0 };
		size_t len = qemu_plugin_insn_data(insn, b, sizeof(b));

		infos[i].pc = qemu_plugin_insn_vaddr(insn);
		ntrace_isa_decode_ext_bytes(b, len, &isa, &infos[i].x);
		if (infos[i].x.d.kind == NTRACE_IK_INDIRECT ||
		    infos[i].x.d.kind == NTRACE_IK_TRAP_RETURN)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, insn_exec_ind,
				QEMU_PLUGIN_CB_R_REGS, &infos[i]);
		else
			qemu_plugin_register_vcpu_insn_exec_cb(insn, insn_exec,
				QEMU_PLUGIN_CB_NO_REGS, &infos[i]);
	}
	/* infos live as long as the translation; QEMU 10.0 gives no free hook */
	if (n)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_R_REGS,
						     &infos[0]);
}

static void vcpu_init(qemu_plugin_id_t id, unsigned int vcpu)
{
	static const char *const abi[32] = {
		"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "fp", "s1",
		"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "s2", "s3", "s4",
		"s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
	};
	GArray *regs = qemu_plugin_get_registers();
	qemu_plugin_reg_descriptor *d = (qemu_plugin_reg_descriptor *)regs->data;
	unsigned int i, j;

	(void)id;
	if (vcpu)
		return;
	for (i = 0; i < regs->len; i++) {
		if (!strcmp(d[i].name, "mcause"))
			r_mcause = d[i].handle;
		else if (!strcmp(d[i].name, "mepc"))
			r_mepc = d[i].handle;
		else if (!strcmp(d[i].name, "mtvec"))
			r_mtvec = d[i].handle;
		else if (!strcmp(d[i].name, "sepc"))
			r_sepc = d[i].handle;
		else if (!strcmp(d[i].name, "scause"))
			r_scause = d[i].handle;
		else if (!strcmp(d[i].name, "stvec"))
			r_stvec = d[i].handle;
		for (j = 0; j < 32; j++)
			if (!strcmp(d[i].name, abi[j]) ||
			    (j == 8 && !strcmp(d[i].name, "s0")))
				r_gpr[j] = d[i].handle;
	}
	for (j = 1; j < 32 && r_gpr[j]; j++)
		;
	if (!r_mcause || !r_mepc || !r_mtvec || !r_sepc || !r_scause || !r_stvec ||
	    j < 32) {
		fprintf(stderr, "gt-plugin: CSRs or GPRs missing from the register set\n");
		exit(1);
	}
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	char msg[128];

	(void)id;
	(void)udata;
	if (have_pend) {
		ntrace_gt_pc(out, pend_pc);
		n_insn++;
	}
	if (ntrace_gt_close(out))
		fprintf(stderr, "gt-plugin: write error on the output file\n");
	snprintf(msg, sizeof(msg), "gt-plugin: %" PRIu64 " retired, %" PRIu64 " traps\n",
		 n_insn, n_trap);
	qemu_plugin_outs(msg);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info, int argc,
					   char **argv)
{
	const char *path = NULL;
	int i;

	if (!info->system_emulation || info->system.smp_vcpus != 1 ||
	    (strcmp(info->target_name, "riscv64") && strcmp(info->target_name, "riscv32"))) {
		fprintf(stderr, "gt-plugin: needs qemu-system-riscv64 or -riscv32 with one hart\n");
		return -1;
	}
	if (!strcmp(info->target_name, "riscv32"))
		isa.xlen = 32;
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			path = argv[i] + 4;
		} else if (!strcmp(argv[i], "isa=zc")) {
			isa.ext |= NTRACE_ISA_ZCMP | NTRACE_ISA_ZCMT;
		} else if (!strncmp(argv[i], "start=", 6)) {
			start_pc = strtoull(argv[i] + 6, NULL, 0);
		} else if (!strncmp(argv[i], "stop=", 5) && n_stops < MAX_STOPS) {
			stop_pc[n_stops++] = strtoull(argv[i] + 5, NULL, 0);
		} else {
			fprintf(stderr, "gt-plugin: unknown option '%s'\n", argv[i]);
			return -1;
		}
	}
	recording = start_pc == 0;
	if (!path) {
		fprintf(stderr, "gt-plugin: out=FILE is required\n");
		return -1;
	}
	out = ntrace_gt_create(path);
	if (!out) {
		fprintf(stderr, "gt-plugin: cannot create %s\n", path);
		return -1;
	}
	regbuf = g_byte_array_new();
	qemu_plugin_register_vcpu_init_cb(id, vcpu_init);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
