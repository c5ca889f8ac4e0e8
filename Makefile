# SPDX-License-Identifier: GPL-2.0-only
#
# ntrace top level. Kernel modules build through Kbuild against the cached
# riscv64 kernel (scripts/kernel.sh); userspace lives in tools/perf-ntrace.

KVARIANT ?= guest
ARCH := riscv
CROSS_COMPILE ?= riscv64-linux-gnu-
export CROSS_COMPILE

.PHONY: all deps tools kernel modules modules-check checkpatch clean test bench run autofdo

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

# CTR branch stacks -> AutoFDO profiles -> profile-guided rebuild, checked
# against the benchmark's true call counts (scripts/autofdo.sh).
autofdo: deps
	@bash scripts/autofdo.sh

clean: modules-clean
	$(MAKE) -C tools/perf-ntrace clean
	rm -rf build
