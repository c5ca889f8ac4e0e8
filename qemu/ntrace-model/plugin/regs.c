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

void regs_init(void)
{
	unsigned int i;

	for (i = 0; i < M.nharts; i++) {
		struct hart *h = &M.harts[i];

		h->idx = i;
		h->te_phys = M.reg_base + (uint64_t)i * 2 * TCI_BLOCK_SIZE;
		h->ram_phys = h->te_phys + TCI_BLOCK_SIZE;
		h->te_regs = guest_ram_ptr(h->te_phys, TCI_BLOCK_SIZE);
		h->ram_regs = guest_ram_ptr(h->ram_phys, TCI_BLOCK_SIZE);
		/* Power-up: the whole block reads 0 except what reset defines. */
		memset((void *)h->te_regs, 0, TCI_BLOCK_SIZE);
		memset((void *)h->ram_regs, 0, TCI_BLOCK_SIZE);
		te_reset(h);
		ram_reset(h);
		te_publish(h);
		ram_publish(h);
	}
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

void regs_store(unsigned int vcpu, uint64_t phys, unsigned int size,
		const struct tb_insn *at)
{
	uint64_t w, end = phys + size;

	pthread_mutex_lock(&M.lock);
	for (w = phys & ~3ull; w < end; w += 4) {
		uint64_t rel = w - M.reg_base;
		unsigned int comp = rel / TCI_BLOCK_SIZE;
		unsigned int off = rel % TCI_BLOCK_SIZE;
		struct hart *h = &M.harts[comp / 2];
		volatile uint32_t *page;
		uint32_t val, mask;

		if (rel >= MODEL_REGION_SIZE)
			break;
		if (comp / 2 >= M.nharts) {
			/* beyond the last hart: reserved, reads 0 */
			*(volatile uint32_t *)guest_ram_ptr(w, 4) = 0;
			continue;
		}
		page = comp & 1 ? h->ram_regs : h->te_regs;
		val = page[off / 4];
		mask = byte_mask(w, phys, size);
		hart_lock(h);
		if (comp & 1)
			ram_write(h, off, val, mask, vcpu);
		else
			te_write(h, off, val, mask, vcpu, at);
		hart_unlock(h);
	}
	pthread_mutex_unlock(&M.lock);
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
		if (h->pending & PEND_TE_ACTIVE) {
			h->pending &= ~PEND_TE_ACTIVE;
			te_reset(h);
			h->te.active = true;
			te_publish(h);
		}
		if (h->pending & PEND_RAM_ACTIVE) {
			h->pending &= ~PEND_RAM_ACTIVE;
			ram_reset(h);
			h->ram.active = true;
			ram_publish(h);
		}
		hart_unlock(h);
	}
	pthread_mutex_unlock(&M.lock);
}
