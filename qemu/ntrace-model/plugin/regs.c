// SPDX-License-Identifier: GPL-2.0-only
/*
 * Register region: guest stores that land in it are decoded here.
 *
 * The plugin cannot intercept an access, only see it afterwards: a store
 * callback runs after the store and before the next guest instruction.
 * The raw value the guest wrote is in the page by then; the component
 * model turns it into the register's legal value and writes that back, so
 * the very next load already reads the WARL result, as on hardware.
 * Writes to reserved offsets are put back to their value (0).
 */
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "../../../include/uapi/linux/ntrace_tci.h"

static struct vcpu_sb *vcpu_sb(unsigned int vcpu)
{
	return qemu_plugin_scoreboard_find(M.sb, vcpu);
}

void vcpu_set_active(unsigned int vcpu, uint64_t bits, bool on)
{
	struct vcpu_sb *s;

	if ((int)vcpu >= qemu_plugin_num_vcpus())
		return;	/* not created yet: nothing runs there */
	s = vcpu_sb(vcpu);

	if (on)
		__atomic_or_fetch(&s->active, bits, __ATOMIC_RELAXED);
	else
		__atomic_and_fetch(&s->active, ~bits, __ATOMIC_RELAXED);
}

uint64_t vcpu_icount(unsigned int vcpu)
{
	if ((int)vcpu >= qemu_plugin_num_vcpus())
		return 0;
	return __atomic_load_n(&vcpu_sb(vcpu)->icount, __ATOMIC_RELAXED);
}

/* Every encoder's timestamp state after the system unit changed (M.lock held). */
static void v0_follow_system_ts(void)
{
	unsigned int i;

	for (i = 0; i < M.nharts; i++) {
		hart_lock(&M.harts[i]);
		te_v0_ts_update(&M.harts[i]);
		te_publish(&M.harts[i]);
		hart_unlock(&M.harts[i]);
	}
}

static void *block_ptr(unsigned int b, uint64_t *phys)
{
	*phys = M.reg_base + (uint64_t)b * TCI_BLOCK_SIZE;
	return guest_ram_ptr(*phys, TCI_BLOCK_SIZE);
}

void regs_init(void)
{
	unsigned int b, i;

	topology_init();
	/* Power-up: every block reads 0 except what reset defines. */
	memset(guest_ram_ptr(M.reg_base, M.region_size), 0, M.region_size);
	for (b = 0; b < M.nblocks; b++) {
		const struct block *k = &M.blocks[b];

		if (k->kind == COMP_ENCODER) {
			struct hart *h = &M.harts[k->idx];

			h->idx = k->idx;
			h->te_regs = block_ptr(b, &h->te_phys);
			/* sifive-hart: the sink's registers are in the encoder's block */
			if (M.topo == TOPO_SIFIVE_HART) {
				h->root->regs = h->te_regs;
				h->root->phys = h->te_phys;
			}
			te_reset(h);
			te_publish(h);
		} else if (k->kind == COMP_SINK) {
			struct ramsink *r = &M.sinks[k->idx];

			r->regs = block_ptr(b, &r->phys);
			if (M.sram_size && !r->sram) {
				r->sram = calloc(1, M.sram_size);
				if (!r->sram) {
					fprintf(stderr, "ntrace-model: out of memory for SRAM\n");
					exit(1);
				}
			}
			ram_reset(r);
			ram_publish(r);
		} else if (k->kind == COMP_FUNNEL) {
			struct funnel *f = &M.funnels[k->idx];

			f->regs = block_ptr(b, &f->phys);
			/* v0: the funnel's sink is in its block */
			if (M.v0) {
				f->root->regs = f->regs;
				f->root->phys = f->phys;
			}
			funnel_reset(f);
			funnel_publish(f);
		} else if (k->kind == COMP_FOREIGN) {
			uint64_t phys;
			uint8_t *p = block_ptr(b, &phys);

			*(volatile uint32_t *)(p + TCI_IMPL) = M.foreign_impl;
		}
	}
	for (i = 0; i < M.nharts; i++)
		M.harts[i].idx = i;
}

/* Bytes of the 32-bit register at word_phys covered by [phys, phys+size). */
static uint32_t byte_mask(uint64_t word_phys, uint64_t phys, unsigned int size)
{
	uint32_t m = 0;
	unsigned int b;

	for (b = 0; b < 4; b++)
		if (word_phys + b >= phys && word_phys + b < phys + size)
			m |= 0xffu << (8 * b);
	return m;
}

/*
 * The register word at w after a store of size bytes of value at phys:
 * the stored bytes from value, not from the page, which another vCPU
 * publishing the same component's registers may have overwritten since
 * (a lost trRamControl or trRamWP write); the others from the page.
 */
static uint32_t stored_word(uint64_t w, uint64_t phys, unsigned int size,
			    uint64_t value)
{
	uint32_t v = *(volatile uint32_t *)guest_ram_ptr(w, 4);
	unsigned int b;

	for (b = 0; b < 4; b++) {
		uint64_t k = w + b - phys;

		if (w + b < phys || k >= size || k >= 8)
			continue;
		v = (v & ~(0xffu << (8 * b))) | (uint32_t)(value >> (8 * k) & 0xff) << (8 * b);
	}
	return v;
}

void regs_store(unsigned int vcpu, uint64_t phys, unsigned int size,
		uint64_t value, const struct tb_insn *at)
{
	uint64_t w, end = phys + size;

	pthread_mutex_lock(&M.lock);
	for (w = phys & ~3ull; w < end; w += 4) {
		uint64_t rel = w - M.reg_base;
		unsigned int off = rel % TCI_BLOCK_SIZE;
		const struct block *k;
		uint32_t val, mask;

		if (rel >= M.region_size)
			break;
		k = &M.blocks[rel / TCI_BLOCK_SIZE];
		val = stored_word(w, phys, size, value);
		mask = byte_mask(w, phys, size);
		if (k->kind == COMP_ENCODER) {
			struct hart *h = &M.harts[k->idx];

			hart_lock(h);
			te_write(h, off, val, mask, vcpu, at);
			hart_unlock(h);
		} else if (k->kind == COMP_SINK) {
			struct ramsink *r = &M.sinks[k->idx];

			spin_lock(&r->lock);
			ram_write(r, off, val, mask, vcpu);
			spin_unlock(&r->lock);
		} else if (k->kind == COMP_FUNNEL) {
			struct funnel *f = &M.funnels[k->idx];

			spin_lock(&f->root->lock);
			funnel_write(f, off, val, vcpu);
			spin_unlock(&f->root->lock);
			/* v0: the encoders' slave units follow the system unit */
			if (M.v0 && off == TCI_TS_CONTROL)
				v0_follow_system_ts();
		} else if (k->kind == COMP_FOREIGN) {
			/* only tr??Active (the handshake) and tr??Impl */
			*(volatile uint32_t *)guest_ram_ptr(w, 4) =
				off == TCI_CONTROL ? (val & TCI_ACTIVE) :
				off == TCI_IMPL ? M.foreign_impl : 0;
		} else {
			/* no component there: reserved, reads 0 */
			*(volatile uint32_t *)guest_ram_ptr(w, 4) = 0;
		}
	}
	pthread_mutex_unlock(&M.lock);
}

/*
 * A guest load from the register region (seen only when the model has
 * SRAM: trRamData reads advance trRamRP). Runs after the load, before the
 * hart's next instruction.
 */
void regs_load(unsigned int vcpu, uint64_t phys, unsigned int size)
{
	uint64_t rel = phys - M.reg_base;
	uint64_t data = (rel & ~(uint64_t)(TCI_BLOCK_SIZE - 1)) + TCI_RAM_DATA;
	const struct block *k;
	struct ramsink *r;

	(void)vcpu;
	if (rel >= M.region_size || data < rel || data >= rel + size)
		return;	/* the access does not cover trRamData */
	k = &M.blocks[rel / TCI_BLOCK_SIZE];
	if (k->kind != COMP_SINK)
		return;
	r = &M.sinks[k->idx];
	spin_lock(&r->lock);
	ram_read(r, TCI_RAM_DATA);
	spin_unlock(&r->lock);
}

/*
 * Complete transitions that take time on hardware (release from reset,
 * remote stop). Runs at the start of a block of the vCPU that asked.
 */
void regs_service(unsigned int vcpu)
{
	unsigned int i;

	pthread_mutex_lock(&M.lock);
	vcpu_set_active(vcpu, ACTIVE_SERVICE, false);
	for (i = 0; i < M.nharts; i++) {
		struct hart *h = &M.harts[i];

		hart_lock(h);
		if ((h->pending & PEND_TE_ACTIVE) && !fault_on_hart(FAULT_TE_NO_ACTIVE, h)) {
			h->pending &= ~PEND_TE_ACTIVE;
			te_reset(h);
			h->te.active = true;
			/* sifive-hart: the sink in its block comes out of reset with it */
			if (M.topo == TOPO_SIFIVE_HART) {
				spin_lock(&h->root->lock);
				h->root->active = true;
				spin_unlock(&h->root->lock);
			}
			te_publish(h);
		}
		/* a register write under -icount could not read the timer */
		if (clock_icount() && h->te.ts_running)
			ts_publish(h);
		hart_unlock(h);
	}
	for (i = 0; i < M.nsinks; i++) {
		struct ramsink *r = &M.sinks[i];

		spin_lock(&r->lock);
		if (r->pending_active) {
			r->pending_active = false;
			ram_reset(r);
			r->active = true;
			ram_publish(r);
		}
		spin_unlock(&r->lock);
	}
	for (i = 0; i < M.nfunnels; i++) {
		struct funnel *f = &M.funnels[i];

		spin_lock(&f->root->lock);
		if (f->pending_active) {
			f->pending_active = false;
			funnel_reset(f);
			f->active = true;
			if (M.v0) {
				/* its sink and input stage come out of reset with it */
				f->root->active = true;
				f->enable = true;
			}
			funnel_publish(f);
		}
		spin_unlock(&f->root->lock);
	}
	pthread_mutex_unlock(&M.lock);
}
