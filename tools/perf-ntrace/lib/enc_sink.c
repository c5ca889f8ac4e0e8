// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Byte sink for the encoder model: each message through the codec to a
 * FILE, with its stream offset and size filled in for the next sink.
 */
#include <ntrace/encoder.h>

int ntrace_byte_sink_emit(void *ctx, const struct ntrace_msg *msg)
{
	struct ntrace_byte_sink *s = ctx;
	uint8_t buf[NTRACE_MSG_MAX_BYTES];
	struct ntrace_msg m = *msg;
	size_t n = ntrace_msg_encode(s->codec, msg, buf);

	if (!n)
		return NTRACE_EINVAL;	/* a field does not fit: a bug in the producer */
	if (s->out && fwrite(buf, 1, n, s->out) != n)
		return NTRACE_EWRITE;
	m.offset = s->offset;
	m.size = (uint32_t)n;
	s->offset += n;
	return s->next ? s->next(s->next_ctx, &m) : 0;
}
