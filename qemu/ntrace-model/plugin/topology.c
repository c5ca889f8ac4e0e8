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
};

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
	for (i = 0; i < M.nharts; i++)
		place(2 * i, COMP_ENCODER, i);
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
	}
	/* the foreign component: the last block nothing else uses */
	for (i = MODEL_NBLOCKS; M.foreign_impl && i-- > 0;)
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
 * The layout file (layout=PATH): one line per component, "KIND INDEX
 * OFFSET" (offset of its block in the register region), then for an
 * encoder "hart=N", for a funnel "inputs=N", and for both "out=KIND:INDEX:PORT"
 * (PORT: the funnel input it feeds). dt/gen-dt.sh builds the DT from it.
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
	fprintf(f, "# ntrace-model layout: topology %s, %u harts, sram %llu; "
		"KIND INDEX OFFSET [hart=|inputs=] [out=KIND:INDEX:PORT]\n",
		topology_name(), M.nharts, (unsigned long long)M.sram_size);
	for (b = 0; b < MODEL_NBLOCKS; b++) {
		const struct block *k = &M.blocks[b];
		const struct comp_ref *o = NULL;

		if (k->kind == COMP_NONE)
			continue;
		fprintf(f, "%s %u 0x%04x", kind_name(k->kind), k->idx, b * TCI_BLOCK_SIZE);
		if (k->kind == COMP_ENCODER) {
			fprintf(f, " hart=%u", k->idx);
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
			if (at.idx == r->idx && h->out.kind == COMP_FUNNEL &&
			    r->active && !r->enable)
				ret = ram_hold(r, h->idx, buf, n);
			else
				ret = ram_push(r, buf, n);
			if (!ret)
				h->bytes += n;
			break;
		}
		f = &M.funnels[at.idx];
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
