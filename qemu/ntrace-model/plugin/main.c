// SPDX-License-Identifier: GPL-2.0-only
/*
 * ntrace-model: a QEMU TCG plugin that behaves, as seen from the guest,
 * like one N-Trace trace encoder per hart plus RAM sinks and trace funnels
 * (topology.c), programmed through the RISC-V Trace Control Interface 1.0
 * registers. Runs in qemu-system-riscv64 and qemu-system-riscv32; XLEN is
 * the target's (M.xlen).
 *
 * Arguments (-plugin ntrace-model.so,ARG=VALUE,...):
 *   ram=PATH        mem-path of the guest RAM memory-backend-file (share=on)
 *   ram_base=ADDR   guest-physical base of that RAM (default 0x80000000)
 *   ram_size=BYTES  its size (default: the file's size)
 *   regs=ADDR       base of the register region (default: its size at the
 *                   end of RAM: 64 KiB, or 0x110000 for p550, sifive-hart)
 *   harts=N         encoders to model (default: all vCPUs, max 8)
 *   topo=NAME       hart (default: a sink per hart), funnel (every encoder
 *                   through one funnel into one sink), funnel2 (two funnels
 *                   of half the encoders each into a funnel into one sink);
 *                   SiFive pre-ratified (v0) components: p550 (the HiFive
 *                   Premier P550: 1..4 encoders into the system funnel
 *                   with its own memory sink), sifive-hart (each encoder
 *                   with its own memory sink)
 *   sram=BYTES      SRAM of every sink (trRamHasSRAM=1, trRamMode 0 legal;
 *                   default 0: SMEM only); a multiple of 4, at most 16 MiB
 *   layout=PATH     write the components' placement and links there
 *   foreign=IMPL    add a component of another type in the last free block:
 *                   only tr??Active works, tr??Impl reads IMPL (e.g. 0xe01,
 *                   an ATB bridge 1.0), everything else reads 0; for tests
 *                   of drivers that must leave it alone
 *   fault=NAME      inject a hardware fault into one component (fault.c)
 *   gt=PREFIX       write the ground-truth ingress log PREFIX.hartN.txt
 *   stats=on        print per-hart counts at exit
 */
#include <stdlib.h>
#include <string.h>

#include "model.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = NTRACE_PLUGIN_API_VERSION;

struct model M = {
	.ram_base = 0x80000000ull,
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

static bool regs_given;
static bool mapped;

static void vcpu_init(qemu_plugin_id_t id, unsigned int vcpu)
{
	(void)id;
	pthread_mutex_lock(&M.lock);
	if (!mapped) {
		/* the RAM file exists once the machine is built */
		if (guest_ram_map() < 0)
			exit(1);
		if (!regs_given)
			M.reg_base = M.ram_base + M.ram_size - M.region_size;
		if (M.reg_base < M.ram_base ||
		    M.reg_base + M.region_size > M.ram_base + M.ram_size ||
		    (M.reg_base & 0xfff)) {
			fprintf(stderr, "ntrace-model: regs=0x%llx: the register region "
				"(0x%llx bytes, topology %s) must be 4 KiB aligned and inside "
				"guest RAM\n", (unsigned long long)M.reg_base,
				(unsigned long long)M.region_size, topology_name());
			exit(1);
		}
		regs_init();
		mapped = true;
	}
	pthread_mutex_unlock(&M.lock);
	ingress_vcpu_init(vcpu);
	if (vcpu < M.nharts)
		gt_open(&M.harts[vcpu]);
	__atomic_add_fetch(&M.vcpus_up, 1, __ATOMIC_RELEASE);
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	unsigned int i;

	(void)id;
	(void)p;
	for (i = 0; i < M.nharts; i++) {
		struct hart *h = &M.harts[i];

		if (M.stats)
			fprintf(stderr, "ntrace-model: hart %u: %llu instructions executed, "
				"%llu records traced, %llu trace bytes\n", i,
				(unsigned long long)vcpu_icount(i),
				(unsigned long long)h->records,
				(unsigned long long)h->bytes);
		gt_close(h);
	}
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	*v = strtoull(s, &end, 0);
	return *s && !*end;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	int i;
	uint64_t v;

	if (!info->system_emulation || (strcmp(info->target_name, "riscv64") &&
					strcmp(info->target_name, "riscv32"))) {
		fprintf(stderr, "ntrace-model: needs qemu-system-riscv64 or qemu-system-riscv32\n");
		return -1;
	}
	M.xlen = strcmp(info->target_name, "riscv32") ? 64 : 32;
	M.xmask = M.xlen == 32 ? 0xffffffffull : ~0ull;
	M.nharts = info->system.smp_vcpus;
	/* vCPUs that can ever run (the model's locks depend on it) */
	M.nvcpus = info->system.max_vcpus > info->system.smp_vcpus ? info->system.max_vcpus
								    : info->system.smp_vcpus;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '=');
		const char *val = eq ? eq + 1 : "";
		size_t klen = eq ? (size_t)(eq - a) : strlen(a);

#define KEY(k) (klen == strlen(k) && !strncmp(a, k, klen))
		if (KEY("ram")) {
			M.ram_path = val;
		} else if (KEY("ram_base") && parse_u64(val, &v)) {
			M.ram_base = v;
		} else if (KEY("ram_size") && parse_u64(val, &v)) {
			M.ram_size = v;
		} else if (KEY("regs") && parse_u64(val, &v)) {
			M.reg_base = v;
			regs_given = true;
		} else if (KEY("harts") && parse_u64(val, &v) && v >= 1 &&
			   v <= MODEL_MAX_HARTS) {
			M.nharts = v;
		} else if (KEY("topo") && topology_parse(val)) {
		} else if (KEY("sram") && parse_u64(val, &v) && !(v & 3) && v <= MODEL_MAX_SRAM) {
			M.sram_size = v;
		} else if (KEY("foreign") && parse_u64(val, &v) && v && v <= 0xffffffffull) {
			M.foreign_impl = v;
		} else if (KEY("fault") && fault_parse(val)) {
		} else if (KEY("layout")) {
			M.layout_path = val;
		} else if (KEY("gt")) {
			M.gt_prefix = val;
		} else if (KEY("stats")) {
			M.stats = !strcmp(val, "on") || !strcmp(val, "true");
		} else {
			fprintf(stderr, "ntrace-model: bad argument '%s' (known: ram=PATH, "
				"ram_base=, ram_size=, regs=, harts=1..%d, "
				"topo=hart|funnel|funnel2|p550|sifive-hart, sram=BYTES, layout=PATH, foreign=IMPL, "
				"fault=%s, gt=PREFIX, stats=on)\n", a, MODEL_MAX_HARTS,
				fault_names());
			return -1;
		}
#undef KEY
	}
	if (!M.ram_path) {
		fprintf(stderr, "ntrace-model: ram=PATH is required: the mem-path of "
			"-object memory-backend-file,share=on used as guest RAM\n");
		return -1;
	}
	if (M.nharts > MODEL_MAX_HARTS) {
		fprintf(stderr, "ntrace-model: %u harts; the model has at most %d "
			"(use harts=N)\n", M.nharts, MODEL_MAX_HARTS);
		return -1;
	}
	if (M.topo == TOPO_P550 && M.nharts > 4) {
		fprintf(stderr, "ntrace-model: topo=p550 has 1..4 harts (%u asked; use harts=N)\n",
			M.nharts);
		return -1;
	}
	if ((M.topo == TOPO_P550 || M.topo == TOPO_SIFIVE_HART) && M.sram_size) {
		fprintf(stderr, "ntrace-model: topo=%s has no SRAM sinks (sram=)\n",
			M.topo == TOPO_P550 ? "p550" : "sifive-hart");
		return -1;
	}
	clock_init();
	/*
	 * -icount runs the vCPUs in turns on one thread (no CF_PARALLEL),
	 * and QEMU 10.0 then compiles a constant vCPU index into a block's
	 * callbacks and scoreboard accesses: with several vCPUs the model
	 * got indexes of no vCPU (576 on a 2-hart guest) and QEMU aborted.
	 */
	if (clock_icount() && M.nvcpus > 1) {
		fprintf(stderr, "ntrace-model: -icount needs one vCPU (-smp 1): with %d, "
			"QEMU 10.0 gives the model's callbacks wrong vCPU indexes\n",
			M.nvcpus);
		return -1;
	}
	topology_init();
	if (topology_write_layout() < 0)
		return -1;
	M.sb = qemu_plugin_scoreboard_new(sizeof(struct vcpu_sb));
	M.sb_active = (qemu_plugin_u64){ M.sb, offsetof(struct vcpu_sb, active) };
	M.sb_reached = (qemu_plugin_u64){ M.sb, offsetof(struct vcpu_sb, reached) };
	M.sb_icount = (qemu_plugin_u64){ M.sb, offsetof(struct vcpu_sb, icount) };

	qemu_plugin_register_vcpu_init_cb(id, vcpu_init);
	qemu_plugin_register_vcpu_tb_trans_cb(id, ingress_tb_trans);
	qemu_plugin_register_flush_cb(id, ingress_flush);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
