# SPDX-License-Identifier: GPL-2.0-only
#
# ntrace top level. Kernel modules build through Kbuild against the cached
# riscv64 kernel (scripts/kernel.sh); userspace lives in tools/perf-ntrace.

KVARIANT ?= guest
ARCH := riscv
CROSS_COMPILE ?= riscv64-linux-gnu-
export CROSS_COMPILE

.PHONY: all deps tools kernel modules modules-check checkpatch clean test bench run autofdo harden soak \
	perf-asan guest-progs autofdo-tools

all: tools modules

deps:
	@bash scripts/deps.sh

tools: deps
	$(MAKE) -C tools/perf-ntrace

kernel: deps
	@bash scripts/kernel.sh $(KVARIANT)

# Extra Kbuild flags, e.g. make modules KBUILD_EXTRA="W=1 C=1".
modules: deps
	@KDIR=$$(bash scripts/kernel.sh $(KVARIANT)) && \
	$(MAKE) -C $$KDIR M=$(CURDIR) ARCH=$(ARCH) CROSS_COMPILE=$(CROSS_COMPILE) \
		CHECK=$(CURDIR)/scripts/sparse-riscv.sh $(KBUILD_EXTRA) modules

modules-clean:
	@KDIR=$$(bash scripts/kernel.sh $(KVARIANT)) && \
	$(MAKE) -C $$KDIR M=$(CURDIR) ARCH=$(ARCH) clean

test:
	@bash scripts/test.sh

bench: deps
	@bash scripts/bench.sh

run:
	@bash scripts/demo.sh

# The long version of the harden suite: more seeds and operations, on the
# KASAN + lockdep kernel (scripts/harden.sh --long); then perf-asan and the soak.
harden: deps
	@bash scripts/harden.sh --long
	@$(MAKE) -s perf-asan
	@$(MAKE) -s soak

# The host perf built with ASan and UBSan on every perf.data recording kept
# under build/perf-e2e/ (NTRACE_E2E_KEEP=1 scripts/perf-e2e.sh) and the
# demo's, then on 1000 mutated copies (scripts/perf-asan.sh).
perf-asan:
	@bash scripts/perf-asan.sh

# Minutes of CPU-wide recording with hotplug, unbind/bind and a forced
# overflow, every instruction decoded or reported lost (scripts/soak.sh).
soak: deps
	@bash scripts/soak.sh

# CTR branch stacks -> AutoFDO profiles -> profile-guided rebuild, checked
# against the benchmark's true call counts (scripts/autofdo.sh); then every
# profile source (CTR, perf inject from N-Trace, the exact trace, clang's
# instrumented PGO) on fdo_bench, lua and zstd against QEMU's exact count
# (scripts/autofdo-compare.sh).
autofdo: deps
	@bash scripts/autofdo.sh
	@bash scripts/autofdo-compare.sh

# riscv64 programs the scripts put into the guest (build/guest-progs/):
# fdo_bench (demo.sh, perf-bench.sh), callsys static and as a dynamically
# linked PIE (perf-e2e.sh), ntcpuwide (perf-e2e-cpuwide.sh), ntsoak (soak.sh), ntrace_bench
# (ntrace-bench.sh).
GP := $(CURDIR)/build/guest-progs
GUEST_CC := $(CROSS_COMPILE)gcc
HOSTCC ?= gcc
E2E := $(CURDIR)/tools/perf-ntrace/tests
guest-progs: $(GP)/fdo_bench $(GP)/callsys $(GP)/callsys-dyn $(GP)/ntcpuwide $(GP)/ntsoak $(GP)/ntrace_bench

$(GP)/fdo_bench: $(CURDIR)/tools/autofdo/fdo_bench.c
	@mkdir -p $(@D)
	$(GUEST_CC) -O2 -g -static -o $@ $<

$(GP)/callsys: $(E2E)/e2e/callsys.c
	@mkdir -p $(@D)
	$(GUEST_CC) -static -O2 -g -Wall -Wextra -o $@ $<

$(GP)/callsys-dyn: $(E2E)/e2e/callsys.c
	@mkdir -p $(@D)
	$(GUEST_CC) -fPIE -pie -O2 -g -o $@ $<

$(GP)/ntcpuwide: $(E2E)/cpuwide/ntcpuwide.c $(E2E)/cpuwide/loop.h
	@mkdir -p $(@D)
	$(GUEST_CC) -O2 -static -Wall -Wextra -o $@ $<

SLIB := $(CURDIR)/selftests/lib
$(GP)/ntsoak: $(E2E)/cpuwide/ntsoak.c $(E2E)/cpuwide/loop.h $(SLIB)/cpu.c $(SLIB)/cpu.h \
		$(SLIB)/sysfs.c $(SLIB)/sysfs.h
	@mkdir -p $(@D)
	$(GUEST_CC) -O2 -static -Wall -Wextra -D_GNU_SOURCE -I$(SLIB) -o $@ $(filter %.c,$^)

NTU := $(CURDIR)/selftests/ntrace
$(GP)/ntrace_bench: $(CURDIR)/tools/ntrace-bench/ntrace_bench.c $(NTU)/ntrace_util.c $(NTU)/ntrace_util.h \
		$(SLIB)/sysfs.c $(SLIB)/sysfs.h
	@mkdir -p $(@D)
	$(GUEST_CC) -static -O2 -Wall -Wextra -I$(NTU) -I$(SLIB) -I$(CURDIR)/include/uapi -o $@ $(filter %.c,$^)

# afdo_gcc12 (host): create_gcov's profile in GCC 12's layout (autofdo.sh);
# count-log: exact range and branch counts from qemu-riscv64's log (the truth)
autofdo-tools: $(CURDIR)/build/autofdo/afdo_gcc12 $(CURDIR)/build/autofdo/count-log
$(CURDIR)/build/autofdo/afdo_gcc12: $(CURDIR)/tools/autofdo/afdo_gcc12.c
	@mkdir -p $(@D)
	$(HOSTCC) -O2 -std=c11 -Wall -Wextra -o $@ $<
$(CURDIR)/build/autofdo/count-log: $(CURDIR)/tools/autofdo/count-log.c
	@mkdir -p $(@D)
	$(HOSTCC) -O2 -std=c11 -Wall -Wextra -o $@ $<

clean: modules-clean
	$(MAKE) -C tools/perf-ntrace clean
	rm -rf build
