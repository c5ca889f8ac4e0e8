// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Text form of ingress records: "ADDR SIZE ITYPE [PRIV [CONTEXT [TSTAMP
 * [FLAGS]]]]", one per line. Used by "perf-ntrace encode" and the tests.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ntrace/encoder.h>

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
		s++;
	return s;
}

static bool at_end(const char *s)
{
	s = skip_ws(s);
	return !*s || *s == '#';
}

static bool number(const char **s, uint64_t *v)
{
	char *end;

	errno = 0;
	*s = skip_ws(*s);
	if (!isdigit((unsigned char)**s))
		return false;
	*v = strtoull(*s, &end, 0);
	if (errno || (*end && !isspace((unsigned char)*end) && *end != '#'))
		return false;
	*s = end;
	return true;
}

static bool flag_word(const char *w, size_t n, uint8_t *flags)
{
	static const struct {
		const char *name;
		uint8_t bit;
	} names[] = {
		{ "start", NTRACE_INSN_TRACE_START },
		{ "stop", NTRACE_INSN_TRACE_STOP },
		{ "cause", NTRACE_INSN_CAUSE_VALID },
		{ "seq", NTRACE_INSN_SEQ_INFERABLE },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strlen(names[i].name) == n && !strncmp(w, names[i].name, n)) {
			*flags |= names[i].bit;
			return true;
		}
	}
	return false;
}

static bool flags_field(const char **s, uint8_t *flags)
{
	const char *p = skip_ws(*s);
	uint64_t v;

	if (isdigit((unsigned char)*p)) {
		if (!number(&p, &v) || v > 0xFF)
			return false;
		*flags = (uint8_t)v;
		*s = p;
		return true;
	}
	*flags = 0;
	for (;;) {
		const char *w = p;

		while (isalpha((unsigned char)*p))
			p++;
		if (p == w || !flag_word(w, (size_t)(p - w), flags))
			return false;
		if (*p != '|')
			break;
		p++;
	}
	*s = p;
	return true;
}

int ntrace_insn_parse_text(const char *line, struct ntrace_insn *r, const char **why)
{
	const char *s = line;
	uint64_t v;

	memset(r, 0, sizeof(*r));
	*why = NULL;
	if (at_end(s))
		return 0;
	if (!number(&s, &r->addr)) {
		*why = "bad address";
		return NTRACE_EBADINPUT;
	}
	if (!number(&s, &v) || (v != 0 && v != 2 && v != 4 && v != 6 && v != 8)) {
		*why = "bad size (0, 2, 4, 6 or 8)";
		return NTRACE_EBADINPUT;
	}
	r->size = (uint8_t)v;
	if (!number(&s, &v) || v > 15 || v == 7) {
		*why = "bad itype (0..6, 8..15)";
		return NTRACE_EBADINPUT;
	}
	r->itype = (uint8_t)v;
	if (at_end(s))
		return 1;
	if (!number(&s, &v) || v > 7 || v == 2) {
		*why = "bad priv (0=U 1=S 3=M 4=VU 5=VS)";
		return NTRACE_EBADINPUT;
	}
	r->priv = (uint8_t)v;
	if (at_end(s))
		return 1;
	if (!number(&s, &r->context)) {
		*why = "bad context";
		return NTRACE_EBADINPUT;
	}
	if (at_end(s))
		return 1;
	if (!number(&s, &r->tstamp)) {
		*why = "bad timestamp";
		return NTRACE_EBADINPUT;
	}
	if (at_end(s))
		return 1;
	if (!flags_field(&s, &r->flags)) {
		*why = "bad flags (number or start|stop|cause|seq)";
		return NTRACE_EBADINPUT;
	}
	if (!at_end(s)) {
		*why = "trailing text";
		return NTRACE_EBADINPUT;
	}
	return 1;
}
