# SPDX-License-Identifier: GPL-2.0-only
#
# dm-eagerwrite: the module, its userspace tools and every test suite.
#
#   make              module (against Debian's headers) and userspace tools
#   make check        every suite: unit, kunit, vmtest (non-zero on failure)
#   make demo         36 emulated disks: the three layouts against md raid10
#
# Other targets: module, userspace, check-unit, kunit, vmtest, check-crash,
# sim-figures, bench, sparse, checkpatch, clean.

SHELL := /bin/bash
TOP := $(CURDIR)
BUILD := $(TOP)/build
KVER ?= $(shell $(TOP)/scripts/kver 2>/dev/null)
KDIR ?= /lib/modules/$(KVER)/build
MODDIR := $(TOP)/dm-eagerwrite
MODULE := $(MODDIR)/dm-eagerwrite.ko
KMAKE = $(MAKE) -C $(KDIR) M=$(TOP) CONFIG_DM_EAGERWRITE=m W=1 KCFLAGS=-Werror

.PHONY: all deps module userspace check check-unit kunit vmtest check-crash \
	demo sim-figures bench sparse checkpatch clean

all: module userspace

# Install what is missing (a no-op when everything is there).
deps:
	@$(TOP)/scripts/install-deps

module: deps
	@test -n "$(KVER)" || { echo "make: no Debian kernel found" >&2; exit 1; }
	$(KMAKE) modules

# The module with sparse (C=2: check every file, built or not).
sparse: deps
	$(KMAKE) C=2 modules

checkpatch: deps
	$(TOP)/scripts/checkpatch

userspace: deps
	$(MAKE) -C userspace BUILD=$(BUILD)

check-unit: deps
	$(MAKE) -C tests/unit BUILD=$(BUILD)/unit run

kunit: deps
	$(TOP)/scripts/kunit

vmtest: module userspace
	$(TOP)/scripts/vmtest

check-crash: module userspace
	$(TOP)/scripts/vmtest --crash

# Every suite the project has; totals are printed by each suite and the
# summary line by scripts/check-summary.
check: deps
	$(TOP)/scripts/check

# scripts/demo installs, builds and says plainly what failed.
demo:
	$(TOP)/scripts/demo

sim-figures: userspace
	$(TOP)/scripts/sim-figures

bench: module userspace
	$(TOP)/scripts/bench

clean:
	-$(KMAKE) clean 2>/dev/null
	rm -rf $(BUILD)

# The emulated rotating disk the tests run on (tests/hddsim/, not shipped).
.PHONY: hddsim
hddsim: deps
	$(MAKE) -C tests/hddsim KVER=$(KVER)
