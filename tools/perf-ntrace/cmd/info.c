// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf-ntrace info: what the ntrace driver discovered, read from sysfs.
 *
 * Three parts: the perf PMU (type, cpumask, address filters, config terms),
 * the trace components bound to the driver with their device-tree
 * description (register block, hart, where the encoder's output goes), and
 * every file of caps/. Where an attribute of the E-Trace discovery tables
 * (seed 000, "Parameters and Discovery", Tables 42-44) has an N-Trace
 * counterpart, it is printed again under its E-Trace name, encoded as that
 * table encodes it (many attributes are "parameter - 1").
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

static const char info_help[] =
	"usage: perf-ntrace info [--sysfs DIR] [--caps-only]\n"
	"Print what the ntrace driver discovered: the perf PMU, the trace components\n"
	"from the device tree, every discovered parameter (caps/), and the E-Trace\n"
	"discovery attributes that have an N-Trace counterpart.\n\n"
	"options:\n"
	"  --sysfs DIR     sysfs mount point (default /sys)\n"
	"  --caps-only     print only the caps/ and E-Trace attribute lines\n"
	"  -h, --help      this help\n"
	"exit status: 0 ok, 1 no ntrace PMU (module not loaded), 2 usage error\n";

#define PMU_DIR "bus/event_source/devices/ntrace"
#define DT_BASE "firmware/devicetree/base"

static const char *root = "/sys";

#define PATH_LEN 4096

/* snprintf into a PATH_LEN buffer; a path that does not fit is empty. */
__attribute__((format(printf, 2, 3)))
static char *pathf(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_LEN, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= PATH_LEN)
		buf[0] = 0;
	return buf;
}

/* Read a small file into buf, trailing newline removed; -1 if unreadable. */
static int read_text(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == 0))
		n--;
	buf[n] = 0;
	return 0;
}

static int read_sys(const char *rel, char *buf, size_t len)
{
	char path[PATH_LEN];

	pathf(path, "%s/%s", root, rel);
	return read_text(path, buf, len);
}

/* A device-tree property as big-endian 32-bit cells; returns the count. */
static int read_cells(const char *path, uint32_t *cells, int max)
{
	unsigned char b[256];
	FILE *f = fopen(path, "rb");
	size_t n;
	int i;

	if (!f)
		return -1;
	n = fread(b, 1, sizeof(b), f);
	fclose(f);
	for (i = 0; i < max && (size_t)(i + 1) * 4 <= n; i++)
		cells[i] = (uint32_t)b[4 * i] << 24 | (uint32_t)b[4 * i + 1] << 16 |
			   (uint32_t)b[4 * i + 2] << 8 | b[4 * i + 3];
	return i;
}

/* ---- caps/ --------------------------------------------------------------- */

struct cap {
	const char *name;
	const char *meaning;
};

/* In the order of the ABI document; unknown files are printed after these. */
static const struct cap caps[] = {
	{ "te_impl", "trTeImpl of the encoders" },
	{ "version", "Trace Control Interface encoder version" },
	{ "protocol", "N-Trace protocol version (trTeProtocolMajor.Minor)" },
	{ "btm", "branch trace messaging (trTeInstMode 3)" },
	{ "htm", "history trace messaging (trTeInstMode 6)" },
	{ "iret", "implicit return (trTeInstEnImplicitReturn)" },
	{ "iret_modes", "trTeInstImplicitReturnMode values, bit set" },
	{ "rephist", "repeated history (trTeInstEnRepeatedHistory)" },
	{ "seqjump", "sequential jump (trTeInstEnSequentialJump)" },
	{ "alljumps", "all jumps as branches (trTeInstEnAllJumps)" },
	{ "ctx", "Ownership messages (trTeContext)" },
	{ "priv_filter", "filters can match the privilege level" },
	{ "sync_modes", "trTeInstSyncMode values, bit set" },
	{ "sync_max", "largest trTeInstSyncMax" },
	{ "sync_mode_default", "trTeInstSyncMode after reset" },
	{ "sync_max_default", "trTeInstSyncMax after reset" },
	{ "src_bits", "SRC field width (trTeSrcBits)" },
	{ "nr_filters", "filters (trTeInstFilters bits)" },
	{ "nr_comparators", "comparators" },
	{ "ts_mode", "timestamp unit trTsMode (0: none)" },
	{ "ts_width", "timestamp width in bits" },
	{ "ts_prescale_max", "largest trTsPrescale" },
	{ "icnt_bits", "I-CNT counter bits" },
	{ "hist_bits", "HIST register bits" },
	{ "hrepeat_bits", "HREPEAT counter bits" },
	{ "bcnt_bits", "B-CNT counter bits" },
	{ "return_depth", "return stack depth / call counter limit" },
	{ "return_addr_bits", "return address bits kept (implicit return mode 2)" },
	{ "itype_bits", "ingress itype width" },
	{ "va_bits", "virtual address bits of the kernel's MMU mode" },
	{ "xlen", "address width of the traced harts (32 or 64)" },
	{ "buffer_size", "bytes of each sink's buffer (SMEM bounce buffer or SRAM)" },
	{ "sink_mode", "RAM sink mode: smem, sram (read through trRamData) or mixed" },
};

#define NCAPS (sizeof(caps) / sizeof(caps[0]))

struct capvals {
	char v[NCAPS][64];
	bool have[NCAPS];
};

static int cap_index(const char *name)
{
	size_t i;

	for (i = 0; i < NCAPS; i++)
		if (!strcmp(caps[i].name, name))
			return (int)i;
	return -1;
}

static bool capnum(const struct capvals *cv, const char *name, uint64_t *v)
{
	int i = cap_index(name);
	char *end;

	if (i < 0 || !cv->have[i])
		return false;
	errno = 0;
	*v = strtoull(cv->v[i], &end, 0);
	return !errno && end != cv->v[i] && !*end;
}

static void print_caps(struct capvals *cv)
{
	char path[PATH_LEN], val[64];
	struct dirent *de;
	DIR *d;
	size_t i;

	printf("discovered parameters (%s/%s/caps):\n", root, PMU_DIR);
	for (i = 0; i < NCAPS; i++) {
		pathf(path, PMU_DIR "/caps/%s", caps[i].name);
		cv->have[i] = !read_sys(path, cv->v[i], sizeof(cv->v[i]));
		if (cv->have[i])
			printf("  %-18s %-12s %s\n", caps[i].name, cv->v[i], caps[i].meaning);
	}
	pathf(path, "%s/" PMU_DIR "/caps", root);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' || cap_index(de->d_name) >= 0)
			continue;
		pathf(path, PMU_DIR "/caps/%s", de->d_name);
		if (!read_sys(path, val, sizeof(val)))
			printf("  %-18s %-12s (not known to this perf-ntrace)\n", de->d_name, val);
	}
	if (d)
		closedir(d);
}

/* ceil(log2(v)) for v >= 1 */
static unsigned int clog2(uint64_t v)
{
	unsigned int b = 0;

	while (b < 64 && (1ull << b) < v)
		b++;
	return b;
}

static void etrace_line(const char *name, const char *val, const char *from)
{
	printf("  %-20s %-8s %s\n", name, val, from);
}

static void etrace_num(const char *name, uint64_t v, const char *from)
{
	char b[24];

	snprintf(b, sizeof(b), "%" PRIu64, v);
	etrace_line(name, b, from);
}

/*
 * E-Trace attributes with an N-Trace counterpart. Attributes without one
 * (f0s_width, ecause_width, ecause_choice, context_width, privilege_width,
 * the filter_time/tval/excint/context matches, ilastsize/iretire/retires,
 * data trace) are listed as such, so nothing is silently left out.
 */
static void print_etrace(const struct capvals *cv)
{
	uint64_t v, m, depth;

	printf("E-Trace discovery attributes with an N-Trace counterpart "
	       "(seed 000, Tables 42-44):\n");
	if (cv->have[cap_index("protocol")])
		etrace_line("arch", cv->v[cap_index("protocol")],
			    "N-Trace protocol version (trTeProtocolMajor.Minor)");
	etrace_num("bpred_size", 0, "N-Trace has no branch predictor mode (hard-wired 0)");
	etrace_num("cache_size", 0, "N-Trace has no jump target cache (hard-wired 0)");
	if (capnum(cv, "iret_modes", &m) && capnum(cv, "return_depth", &depth)) {
		/* mode 1: call counter of return_depth levels; modes 2/3: a stack */
		etrace_num("call_counter_size", m & 2 ? clog2(clog2(depth + 1)) : 0,
			   "log2 of the call counter's bits (implicit return mode 1)");
		etrace_num("return_stack_size", m & 0xc ? clog2(depth) : 0,
			   "log2 of the return stack entries (implicit return modes 2, 3)");
	}
	if (capnum(cv, "ts_width", &v))
		etrace_num("notime", !v, "1 without timestamps (no timestamp unit)");
	if (capnum(cv, "ts_width", &v) && v)
		etrace_num("time_width", v - 1, "timestamp width - 1");
	if (capnum(cv, "ctx", &v))
		etrace_num("nocontext", !v, "1 without Ownership messages (trTeContext)");
	etrace_num("iaddress_lsb", 0, "N-Trace addresses count half-words: lsb_p 1, "
		   "attribute lsb_p - 1");
	if (capnum(cv, "va_bits", &v) && v)
		etrace_num("iaddress_width", 63, "XLEN 64 - 1 (addresses are sign-extended "
			   "from va_bits)");
	if (capnum(cv, "seqjump", &v))
		etrace_num("sijump", v, "trTeInstEnSequentialJump available");
	if (capnum(cv, "nr_comparators", &v) && v)
		etrace_num("comparators", v - 1, "comparators - 1");
	if (capnum(cv, "nr_filters", &v) && v)
		etrace_num("filters", v - 1, "filters - 1");
	if (capnum(cv, "priv_filter", &v))
		etrace_num("filter_privilege", v, "filters match the privilege level");
	if (capnum(cv, "itype_bits", &v) && v)
		etrace_num("itype_width", v - 1, "ingress itype width - 1");
	printf("  (no N-Trace counterpart: f0s_width, ecause_width, ecause_choice, "
	       "context_width,\n   privilege_width, filter_context/time/excint/tval, "
	       "ctype_width, ilastsize_width,\n   iretire_width, retires, impdef_width, "
	       "data trace attributes)\n");
}

/* ---- PMU and components ---------------------------------------------------- */

/*
 * A multi-line file of the PMU, labelled: "topology", a line per traced
 * CPU (encoder, funnels with the input used, sink, SRC ID), then a line
 * per sink (mode, size, whether it writes AUX areas directly, CPUs) and
 * per funnel (inputs, CPUs), absent before the driver had funnels;
 * "drains", per CPU the drains in direct and copy mode and their bytes,
 * absent before direct mode.
 */
static void print_lines(const char *name)
{
	char path[PATH_LEN], line[512];
	FILE *f = fopen(pathf(path, "%s/" PMU_DIR "/%s", root, name), "r");
	bool first = true;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		printf("  %-18s %s\n", first ? name : "", line);
		first = false;
	}
	fclose(f);
}

static void print_pmu(void)
{
	char path[PATH_LEN], val[256];
	struct dirent **names;
	int n, i;

	printf("perf PMU %s/%s:\n", root, PMU_DIR);
	if (!read_sys(PMU_DIR "/type", val, sizeof(val)))
		printf("  %-18s %s\n", "type", val);
	if (!read_sys(PMU_DIR "/cpumask", val, sizeof(val)))
		printf("  %-18s %s\n", "cpumask", *val ? val : "(empty: no encoder has a sink)");
	if (!read_sys(PMU_DIR "/nr_addr_filters", val, sizeof(val)))
		printf("  %-18s %s\n", "nr_addr_filters", val);
	print_lines("topology");
	print_lines("drains");
	pathf(path, "%s/" PMU_DIR "/format", root);
	n = scandir(path, &names, NULL, alphasort);
	if (n <= 0)
		return;
	printf("  %-18s", "config terms");
	for (i = 0; i < n; i++) {
		pathf(path, PMU_DIR "/format/%s", names[i]->d_name);
		if (names[i]->d_name[0] != '.' && !read_sys(path, val, sizeof(val)))
			printf(" %s=%s", names[i]->d_name, val);
		free(names[i]);
	}
	free(names);
	printf("\n");
}

/* Hart id of the cpu node whose phandle is ph, or -1. */
static long hart_of_phandle(uint32_t ph)
{
	char path[PATH_LEN];
	struct dirent *de;
	uint32_t c[2];
	long hart = -1;
	DIR *d;

	pathf(path, "%s/" DT_BASE "/cpus", root);
	d = opendir(path);
	while (d && hart < 0 && (de = readdir(d))) {
		if (strncmp(de->d_name, "cpu@", 4))
			continue;
		pathf(path, "%s/" DT_BASE "/cpus/%s/phandle", root, de->d_name);
		if (read_cells(path, c, 1) != 1 || c[0] != ph)
			continue;
		pathf(path, "%s/" DT_BASE "/cpus/%s/reg", root, de->d_name);
		if (read_cells(path, c, 2) >= 1)
			hart = c[0];
	}
	if (d)
		closedir(d);
	return hart;
}

/* Name of the bound RAM sink whose input endpoint has phandle ph, or NULL. */
static const char *sink_with_endpoint(uint32_t ph, char *name, size_t size)
{
	char dir[PATH_LEN], path[PATH_LEN];
	struct dirent *de;
	const char *found = NULL;
	uint32_t c;
	DIR *d;

	d = opendir(pathf(dir, "%s/bus/platform/drivers/ntrace-ramsink", root));
	while (d && !found && (de = readdir(d))) {
		if (!strchr(de->d_name, '.') || de->d_name[0] == '.')
			continue;
		pathf(path, "%s/%s/of_node/in-ports/port/endpoint/phandle", dir, de->d_name);
		if (read_cells(path, &c, 1) == 1 && c == ph) {
			snprintf(name, size, "%s", de->d_name);
			found = name;
		}
	}
	if (d)
		closedir(d);
	return found;
}

/* Print one bound component; its of_node describes it. */
static void print_component(const char *kind, const char *drvdir, const char *dev)
{
	char node[PATH_LEN], path[PATH_LEN], compat[256];
	uint32_t c[8];
	int n;

	pathf(node, "%s/%s/of_node", drvdir, dev);
	printf("  %-8s %s\n", kind, dev);
	pathf(path, "%s/compatible", node);
	n = 0;
	{
		FILE *f = fopen(path, "rb");

		if (f) {
			n = (int)fread(compat, 1, sizeof(compat) - 1, f);
			fclose(f);
		}
	}
	if (n > 0) {
		int i;

		compat[n] = 0;
		for (i = 0; i < n - 1; i++)
			if (!compat[i])
				compat[i] = ',';
		printf("    compatible  %s\n", compat);
	}
	pathf(path, "%s/reg", node);
	n = read_cells(path, c, 4);
	if (n == 4)
		printf("    registers   0x%" PRIx64 ", %" PRIu64 " bytes\n",
		       (uint64_t)c[0] << 32 | c[1], (uint64_t)c[2] << 32 | c[3]);
	else if (n == 2)
		printf("    registers   0x%" PRIx32 ", %" PRIu32 " bytes\n", c[0], c[1]);
	pathf(path, "%s/cpus", node);
	n = read_cells(path, c, 1);
	if (n != 1) {
		/* early versions of the upstream binding said "cpu" */
		pathf(path, "%s/cpu", node);
		n = read_cells(path, c, 1);
	}
	if (n == 1)
		printf("    hart        %ld\n", hart_of_phandle(c[0]));
	pathf(path, "%s/out-ports/port/endpoint/remote-endpoint", node);
	if (read_cells(path, c, 1) == 1) {
		char sink[256];

		if (sink_with_endpoint(c[0], sink, sizeof(sink)))
			printf("    output      %s\n", sink);
		else
			printf("    output      endpoint phandle %u (no bound sink has it)\n", c[0]);
	}
}

static void print_components(void)
{
	static const char *const drivers[][2] = {
		{ "encoder", "ntrace-encoder" },
		{ "ramsink", "ntrace-ramsink" },
	};
	char dir[PATH_LEN];
	struct dirent **names;
	size_t k;
	int n, i, found = 0;

	printf("trace components bound to the driver:\n");
	for (k = 0; k < 2; k++) {
		pathf(dir, "%s/bus/platform/drivers/%s", root, drivers[k][1]);
		n = scandir(dir, &names, NULL, alphasort);
		for (i = 0; i < n; i++) {
			/* devices are the links whose name has a unit address */
			if (strchr(names[i]->d_name, '.') && names[i]->d_name[0] != '.') {
				print_component(drivers[k][0], dir, names[i]->d_name);
				found++;
			}
			free(names[i]);
		}
		if (n > 0)
			free(names);
	}
	if (!found)
		printf("  (none)\n");
}

int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sysfs", required_argument, NULL, 's' },
		{ "caps-only", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct capvals cv;
	bool caps_only = false;
	char val[64];
	int o;

	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case 's':
			root = optarg;
			break;
		case 'c':
			caps_only = true;
			break;
		case 'h':
			fputs(info_help, stdout);
			return 0;
		default:
			fputs(info_help, stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fputs(info_help, stderr);
		return 2;
	}
	if (read_sys(PMU_DIR "/type", val, sizeof(val))) {
		fprintf(stderr, "perf-ntrace info: no ntrace PMU at %s/%s: %s "
			"(is ntrace.ko loaded and a trace encoder in the device tree?)\n",
			root, PMU_DIR, strerror(errno));
		return 1;
	}
	memset(&cv, 0, sizeof(cv));
	if (!caps_only) {
		print_pmu();
		print_components();
	}
	print_caps(&cv);
	print_etrace(&cv);
	return 0;
}
