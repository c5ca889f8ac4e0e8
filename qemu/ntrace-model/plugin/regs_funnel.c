// SPDX-License-Identifier: GPL-2.0-only
/*
 * Trace funnel registers (trFunnel*, Trace Control Interface 1.0 "Trace
 * Funnel"): trFunnelControl (Active, Enable, Empty), trFunnelImpl
 * (version 1.0, component type 0x8) and trFunnelDisInput.
 *
 * Choices where the specification leaves room:
 *  - release from reset (trFunnelActive 0->1) completes at the writer's
 *    next block boundary, as for the other components: trFunnelActive
 *    reads 0 until then and writes to the funnel are ignored;
 *  - the funnel forwards each message whole when its encoder completes it
 *    (topology.c); only while its sink is active but not capturing does it
 *    hold messages, up to MODEL_HELD_BYTES, written first when the sink
 *    captures again (regs_sink.c). trFunnelEmpty always reads 1: what it
 *    holds waits for the sink, not for the funnel;
 *  - trFunnelDisInput is WARL: one bit per input the funnel has (writing
 *    0xFFFF reads back the mask of its inputs); release from reset sets it
 *    to 0. It may be written while the funnel is enabled and applies to the
 *    next message;
 *  - messages that reach a funnel in reset or not enabled are dropped and
 *    their encoder sets trTeInstStallOrOverflow (the model does not
 *    stall); messages of a disabled input are read and discarded (no
 *    overflow), as the spec says;
 *  - no timestamp unit: trTsControl and trTsCounter read 0. Every encoder
 *    has its own External unit fed by the same platform timer, so
 *    timestamps of different harts are already on one clock.
 */
#include "model.h"
#include "../../../include/uapi/linux/ntrace_tci.h"

/* trFunnelDisInput after an injected fault held an input disabled */
static uint32_t stuck_inputs(const struct funnel *f)
{
	return M.fault == FAULT_FUNNEL_INPUT_STUCK && f->idx == 0 ? 1u << (f->ninputs - 1) : 0;
}

void funnel_reset(struct funnel *f)
{
	if (M.v0) {
		funnel_v0_reset(f);
		return;
	}
	f->active = false;
	f->enable = false;
	f->dis_input = stuck_inputs(f);
}

void funnel_publish(struct funnel *f)
{
	volatile uint32_t *p = f->regs;

	if (M.v0) {
		funnel_v0_publish(f);
		return;
	}
	p[TCI_CONTROL / 4] = f->active ? TCI_ACTIVE | TCI_EMPTY | (f->enable ? TCI_ENABLE : 0) :
					 TCI_EMPTY;
	p[TCI_IMPL / 4] = TCI_SET(IMPL_VER_MAJOR, 1) | TCI_SET(IMPL_VER_MINOR, 0) |
			  TCI_SET(IMPL_COMP_TYPE, TCI_COMP_FUNNEL);
	p[TCI_FUNNEL_DIS_INPUT / 4] = f->dis_input;
}

void funnel_write(struct funnel *f, unsigned int off, uint32_t val, unsigned int vcpu)
{
	if (M.v0) {
		funnel_v0_write(f, off, val, vcpu);
		return;
	}
	if (off == TCI_CONTROL) {
		if (!f->active) {
			if (val & TCI_ACTIVE) {
				f->pending_active = true;
				vcpu_set_active(vcpu, ACTIVE_SERVICE, true);
			}
		} else if (!(val & TCI_ACTIVE)) {
			f->pending_active = false;
			funnel_reset(f);
		} else {
			f->enable = val & TCI_ENABLE;
		}
	} else if (off == TCI_FUNNEL_DIS_INPUT) {
		if (f->active)
			f->dis_input = (val & ((1u << f->ninputs) - 1) & TCI_FUNNEL_DIS_INPUT_MASK) |
				       stuck_inputs(f);
	} else if (off != TCI_IMPL) {
		f->regs[off / 4] = 0;	/* reserved (no timestamp unit) */
	}
	funnel_publish(f);
}
