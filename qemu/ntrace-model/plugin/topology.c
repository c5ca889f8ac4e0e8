// SPDX-License-Identifier: GPL-2.0-only
/*
 * How the model's trace components are wired and placed (plugin argument
 * topo=), and the path of a message from an encoder through funnels into
 * a sink. This file is the one home of the placement: the device-tree
 * generator reads it from the layout file the plugin writes (layout=).
 *
 * Placement in the 64 KiB register region, 4 KiB blocks: encoder n always
 * at block 2n; the other blocks by topology:
 *   hart     sink n at block 2n+1, fed by encoder n (the model's original
 *            layout);
 *   funnel   sink 0 at block 1, funnel 0 at block 3; encoder n feeds
 *            funnel 0 input n, funnel 0 feeds the sink;
 *   funnel2  sink 0 at block 1, funnel 0 at block 3 feeds it; funnel 1
 *            (block 5) and funnel 2 (block 7) feed funnel 0 inputs 0 and 1;
 *            the first ceil(N/2) encoders feed funnel 1 (input n), the
 *            others funnel 2 (input n - ceil(N/2)).
 * SiFive pre-ratified (v0) components, the HiFive Premier P550's layout in
 * a region of 1 MiB + 64 KiB: encoder n at 0x100000 + n * 0x1000 (block
 * 0x100 + n);
 *   p550        1..4 harts; the system funnel at 0x18000 (block 0x18), its
 *               system-memory sink embedded in its block (sink 0, no block
 *               of its own); encoder n feeds its input n;
 *   sifive-hart each encoder's own system-memory sink embedded in its
 *               block (sink n), no funnel.
 *
 * Merge order: a funnel forwards each message whole at the moment its
 * encoder completes it, under the lock of the sink the path ends in, so
 * messages never mix and every input keeps its own order. Across inputs
 * the order is the order in which the encoders complete messages in the
 * host's execution of the harts (an encoder completes a message at the
 * block boundary after the message's last instruction, or at a trace
 * stop). With multi-threaded TCG (QEMU's default, the only mode the model
 * supports with several harts) harts run in parallel host threads, so that
 * interleaving differs from run to run; with round-robin TCG it would
 * follow QEMU's time slices of each vCPU. Nothing waits for the slowest
 * input (no reordering by timestamp): a message is in the sink as soon as
 * its encoder produced it.
 */
#include <string.h>

#include "model.h"
#include "../../../include/uapi/linux/ntrace_tci.h"

static const char *const topo_names[] = {
	[TOPO_HART] = "hart", [TOPO_FUNNEL] = "funnel", [TOPO_FUNNEL2] = "funnel2",
	[TOPO_P550] = "p550", [TOPO_SIFIVE_HART] = "sifive-hart",
};

#define V0_TE_BLOCK	0x100	/* encoder n at 0x100000 + n * 0x1000 */
#define V0_TF_BLOCK	0x18	/* the P550's system funnel at 0x18000 */

bool topology_parse(const char *name)
{
	unsigned int i;

	for (i = 0; i < sizeof(topo_names) / sizeof(topo_names[0]); i++)
		if (!strcmp(name, topo_names[i])) {
			M.topo = i;
			return true;
		}
	return false;
}

const char *topology_name(void)
{
	return topo_names[M.topo];
}

static struct comp_ref ref(uint8_t kind, unsigned int idx, unsigned int port)
{
	return (struct comp_ref){ kind, (uint8_t)idx, (uint8_t)port };
}

static void place(unsigned int block, uint8_t kind, unsigned int idx)
{
	M.blocks[block] = (struct block){ kind, (uint8_t)idx };
}

static struct ramsink *root_of(struct comp_ref r)
{
	while (r.kind == COMP_FUNNEL)
		r = M.funnels[r.idx].out;
	return &M.sinks[r.idx];
}

/* Components, their blocks and links, for M.topo and M.nharts. */
void topology_init(void)
{
	unsigned int i, na = (M.nharts + 1) / 2;

	memset(M.blocks, 0, sizeof(M.blocks));
	M.v0 = M.topo == TOPO_P550 || M.topo == TOPO_SIFIVE_HART;
	M.region_size = M.v0 ? MODEL_REGION_SIZE_P550 : MODEL_REGION_SIZE_1_0;
	M.nblocks = (unsigned int)(M.region_size / TCI_BLOCK_SIZE);
	for (i = 0; i < M.nharts; i++)
		place(M.v0 ? V0_TE_BLOCK + i : 2 * i, COMP_ENCODER, i);
	for (i = 0; i < MODEL_MAX_HARTS; i++) {
		M.sinks[i].wbytes = 4;
		M.sinks[i].v0 = M.v0;
	}
	switch (M.topo) {
	case TOPO_HART:
		M.nsinks = M.nharts;
		M.nfunnels = 0;
		for (i = 0; i < M.nharts; i++) {
			place(2 * i + 1, COMP_SINK, i);
			M.harts[i].out = ref(COMP_SINK, i, 0);
		}
		break;
	case TOPO_FUNNEL:
		M.nsinks = 1;
		M.nfunnels = 1;
		place(1, COMP_SINK, 0);
		place(3, COMP_FUNNEL, 0);
		M.funnels[0].ninputs = M.nharts;
		M.funnels[0].out = ref(COMP_SINK, 0, 0);
		for (i = 0; i < M.nharts; i++)
			M.harts[i].out = ref(COMP_FUNNEL, 0, i);
		break;
	case TOPO_FUNNEL2:
		M.nsinks = 1;
		M.nfunnels = 3;
		place(1, COMP_SINK, 0);
		for (i = 0; i < 3; i++)
			place(3 + 2 * i, COMP_FUNNEL, i);
		M.funnels[0].ninputs = 2;
		M.funnels[0].out = ref(COMP_SINK, 0, 0);
		M.funnels[1].ninputs = na;
		M.funnels[1].out = ref(COMP_FUNNEL, 0, 0);
		M.funnels[2].ninputs = M.nharts - na;
		M.funnels[2].out = ref(COMP_FUNNEL, 0, 1);
		for (i = 0; i < M.nharts; i++)
			M.harts[i].out = i < na ? ref(COMP_FUNNEL, 1, i) : ref(COMP_FUNNEL, 2, i - na);
		break;
	case TOPO_P550:
		M.nsinks = 1;
		M.nfunnels = 1;
		place(V0_TF_BLOCK, COMP_FUNNEL, 0);
		M.sinks[0].wbytes = 8;	/* tfImpl sinkBytes 1 */
		M.funnels[0].ninputs = M.nharts;
		M.funnels[0].out = ref(COMP_SINK, 0, 0);
		for (i = 0; i < M.nharts; i++)
			M.harts[i].out = ref(COMP_FUNNEL, 0, i);
		break;
	case TOPO_SIFIVE_HART:
		M.nsinks = M.nharts;
		M.nfunnels = 0;
		for (i = 0; i < M.nharts; i++)
			M.harts[i].out = ref(COMP_SINK, i, 0);
		break;
	}
	/* the foreign component: the last block nothing else uses */
	for (i = M.nblocks; M.foreign_impl && i-- > 0;)
		if (M.blocks[i].kind == COMP_NONE) {
			place(i, COMP_FOREIGN, 0);
			break;
		}
	for (i = 0; i < M.nsinks; i++)
		M.sinks[i].idx = i;
	for (i = 0; i < M.nfunnels; i++) {
		M.funnels[i].idx = i;
		M.funnels[i].root = root_of(M.funnels[i].out);
	}
	for (i = 0; i < M.nharts; i++)
		M.harts[i].root = root_of(M.harts[i].out);
}

static const char *kind_name(uint8_t k)
{
	return k == COMP_ENCODER ? "encoder" : k == COMP_SINK ? "sink" :
	       k == COMP_FUNNEL ? "funnel" : k == COMP_FOREIGN ? "foreign" : "none";
}

/*
 * The layout file (layout=PATH): a comment line that names the topology
 * and the size of the register region ("region=0x..."), then one line per
 * component, "KIND INDEX OFFSET" (offset of its block in the register
 * region), then for an encoder "hart=N", for a funnel "inputs=N", and for
 * both "out=KIND:INDEX:PORT" (PORT: the funnel input it feeds). A v0 sink
 * has no line: it is in its encoder's or funnel's block. dt/gen-dt.sh
 * builds the DT from it.
 */
int topology_write_layout(void)
{
	FILE *f;
	unsigned int b;

	if (!M.layout_path)
		return 0;
	f = fopen(M.layout_path, "w");
	if (!f) {
		perror(M.layout_path);
		return -1;
	}
	fprintf(f, "# ntrace-model layout: topology %s, %u harts, sram %llu, region=0x%llx; "
		"KIND INDEX OFFSET [hart=|inputs=] [out=KIND:INDEX:PORT]\n",
		topology_name(), M.nharts, (unsigned long long)M.sram_size,
		(unsigned long long)M.region_size);
	for (b = 0; b < M.nblocks; b++) {
		const struct block *k = &M.blocks[b];
		const struct comp_ref *o = NULL;

		if (k->kind == COMP_NONE)
			continue;
		fprintf(f, "%s %u 0x%04x", kind_name(k->kind), k->idx, b * TCI_BLOCK_SIZE);
		if (k->kind == COMP_ENCODER) {
			fprintf(f, " hart=%u", k->idx);
			/* an encoder's embedded sink is no component of its own */
			if (M.topo != TOPO_SIFIVE_HART)
				o = &M.harts[k->idx].out;
		} else if (k->kind == COMP_FUNNEL) {
			fprintf(f, " inputs=%u", M.funnels[k->idx].ninputs);
			o = &M.funnels[k->idx].out;
		}
		if (k->kind == COMP_FOREIGN)
			fprintf(f, " impl=0x%08x", M.foreign_impl);
		if (o)
			fprintf(f, " out=%s:%u:%u", kind_name(o->kind), o->idx, o->port);
		fprintf(f, "\n");
	}
	return fclose(f) ? -1 : 0;
}

/*
 * One whole message of hart h's encoder, from its output through the
 * funnels to the sink (route_push()'s general path). Returns 0 when it was stored or discarded by a
 * disabled funnel input, -1 when it was (partly) dropped: a funnel on the
 * path in reset or not enabled, or the sink not capturing.
 */
int route_push_slow(struct hart *h, const uint8_t *buf, size_t n)
{
	struct ramsink *r = h->root;
	struct comp_ref at = h->out;
	int ret;

	spin_lock(&r->lock);
	/* held messages of h were lost (ram_release()): this one goes too */
	if (h->release_lost) {
		h->release_lost = false;
		spin_unlock(&r->lock);
		return -1;
	}
	for (;;) {
		const struct funnel *f;

		if (at.kind == COMP_SINK) {
			/* a funnel holds what its sink does not take yet */
			if (!r->v0 && at.idx == r->idx && h->out.kind == COMP_FUNNEL &&
			    r->active && !r->enable)
				ret = ram_hold(r, h->idx, buf, n);
			else
				ret = ram_push(r, buf, n);
			/* a disabled (or stopped) v0 sink accepts and drops */
			if (r->v0 && r->active)
				ret = 0;
			if (!ret)
				h->bytes += n;
			break;
		}
		f = &M.funnels[at.idx];
		if (M.v0 && !f->active) {
			/* a v0 funnel in reset refuses: the encoder's sink error */
			h->te.sink_error = true;
			ret = -1;
			break;
		}
		if (!f->active || !f->enable) {
			ret = -1;
			break;
		}
		if (f->dis_input >> at.port & 1) {
			ret = 0;
			break;
		}
		at = f->out;
	}
	spin_unlock(&r->lock);
	return ret;
}
