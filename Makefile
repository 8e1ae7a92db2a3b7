# SPDX-License-Identifier: GPL-2.0-only
#
# dm-eagerwrite: the module, its userspace tools and every test suite.
#
#   make              module and userspace tools; installs only what
#                     building needs (scripts/install-deps build)
#   make install      the module into /lib/modules/KVER/updates (depmod),
#                     the tools into $(PREFIX)/sbin, the man pages, the
#                     boot-time assembly and recalibration units (systemd/)
#   make check        every suite: build, unit, tools, fuzz, kunit, vm
#                     (non-zero on failure)
#   make demo         emulated disks: the three layouts against md raid10
#
# KVER: the kernel to build for (default: the running kernel when its
# headers are installed, else Debian's linux-headers-amd64; scripts/kver).
# The test suites, the demo and the benchmarks build for the kernel the
# guest boots (Debian's linux-image-amd64) whatever KVER says.
#
# Other targets: module, userspace, man, uninstall, check-unit, fuzz,
# kunit, vmtest, check-crash, check-debug, debug-kernel, sim-figures,
# bench, sparse, checkpatch, clean.

SHELL := /bin/bash
TOP := $(CURDIR)
BUILD := $(TOP)/build
KVER ?= $(shell $(TOP)/scripts/kver --build 2>/dev/null)
KDIR ?= /lib/modules/$(KVER)/build
GUEST_KVER = $(shell $(TOP)/scripts/kver 2>/dev/null)
PREFIX ?= /usr/local
DESTDIR ?=
# systemd's directory for units installed by the administrator
UNITDIR ?= /etc/systemd/system
MODDIR := $(TOP)/dm-eagerwrite
MODULE := $(MODDIR)/dm-eagerwrite.ko
KMAKE = $(MAKE) -C $(KDIR) M=$(TOP) CONFIG_DM_EAGERWRITE=m W=1 KCFLAGS=-Werror

.PHONY: all deps deps-build module userspace man install uninstall check \
	check-unit fuzz kunit vmtest check-crash check-debug debug-kernel demo \
	sim-figures bench sparse checkpatch clean guest-module

all: module userspace

# Install what is missing (a no-op when everything is there): deps-build
# for building, deps for everything the tests need as well.
deps-build:
	@$(TOP)/scripts/install-deps build
deps:
	@$(TOP)/scripts/install-deps

module: deps-build
	@test -n "$(KVER)" || { echo "make: no kernel headers found (scripts/kver --build)" >&2; exit 1; }
	$(KMAKE) modules

# The module for the kernel the guests boot (tests, demo, benchmarks).
guest-module: deps
	@test -n "$(GUEST_KVER)" || { echo "make: no Debian kernel found (scripts/kver)" >&2; exit 1; }
	$(MAKE) -s module KVER=$(GUEST_KVER)

MAN := $(BUILD)/man
man: deps-build
	$(TOP)/scripts/mkman $(MAN)

# modules_install signs nothing (CONFIG_MODULE_SIG_ALL=): an out-of-tree
# module has no key; Debian's kernels load it unsigned (tainted).
install: module userspace man
	$(KMAKE) CONFIG_MODULE_SIG_ALL= INSTALL_MOD_DIR=updates \
		$(if $(DESTDIR),INSTALL_MOD_PATH=$(DESTDIR)) modules_install
	$(if $(DESTDIR),,depmod -a $(KVER))
	install -d $(DESTDIR)$(PREFIX)/sbin
	install -m 755 $(addprefix $(BUILD)/userspace/bin/,ewctl ewprobe ewsim) $(DESTDIR)$(PREFIX)/sbin/
	for p in $(MAN)/*.[0-9]; do \
		s=$${p##*.}; install -D -m 644 $$p $(DESTDIR)$(PREFIX)/share/man/man$$s/$${p##*/} || exit 1; \
	done
	install -d $(DESTDIR)$(UNITDIR) $(DESTDIR)$(PREFIX)/share/doc/dm-eagerwrite
	sed 's|@SBINDIR@|$(PREFIX)/sbin|' systemd/eagerwrite-assemble.service \
		>$(DESTDIR)$(UNITDIR)/eagerwrite-assemble.service
	sed 's|@SBINDIR@|$(PREFIX)/sbin|' systemd/eagerwrite-calibrate@.service \
		>$(DESTDIR)$(UNITDIR)/eagerwrite-calibrate@.service
	install -m 644 systemd/eagerwrite.conf.example $(DESTDIR)$(PREFIX)/share/doc/dm-eagerwrite/

uninstall:
	rm -f $(DESTDIR)/lib/modules/$(KVER)/updates/dm-eagerwrite/dm-eagerwrite.ko
	$(if $(DESTDIR),,depmod -a $(KVER))
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/sbin/,ewctl ewprobe ewsim)
	rm -f $(DESTDIR)$(PREFIX)/share/man/man8/ewctl.8 $(DESTDIR)$(PREFIX)/share/man/man8/ewprobe.8 \
		$(DESTDIR)$(PREFIX)/share/man/man1/ewsim.1 $(DESTDIR)$(PREFIX)/share/man/man7/dm-eagerwrite.7 \
		$(DESTDIR)$(UNITDIR)/eagerwrite-assemble.service \
		$(DESTDIR)$(UNITDIR)/eagerwrite-calibrate@.service \
		$(DESTDIR)$(PREFIX)/share/doc/dm-eagerwrite/eagerwrite.conf.example

# The module with sparse (C=2: check every file, built or not).
sparse: deps
	$(KMAKE) C=2 modules

checkpatch: deps
	$(TOP)/scripts/checkpatch

userspace: deps-build
	$(MAKE) -C userspace BUILD=$(BUILD)

check-unit: deps
	$(MAKE) -C tests/unit BUILD=$(BUILD)/unit run

# libFuzzer over the core's parsers and on-disk readers (tests/fuzz/):
# FUZZ_SECONDS per fuzzer (default 12), FUZZ_TARGETS="table ckpt" a subset.
fuzz: deps
	FUZZ_SECONDS=$(or $(FUZZ_SECONDS),12) $(TOP)/tests/fuzz/run

kunit: deps
	$(TOP)/scripts/kunit

vmtest: guest-module userspace
	$(TOP)/scripts/vmtest

check-crash: guest-module userspace
	$(TOP)/scripts/vmtest --crash

# The guest debug kernel (KASAN, KFENCE, lockdep, ...) and the project's
# modules built for it, under build/debug-kernel/ (scripts/debug-kernel).
debug-kernel: deps
	$(TOP)/scripts/debug-kernel

# Every guest suite on the debug kernel, then the console logs scanned for
# KASAN, lockdep, might_sleep, list, ODEBUG, KFENCE reports: any fails it.
# DEBUG_PATTERN="target" runs only the suites whose name contains it.
check-debug: deps userspace
	$(TOP)/scripts/check-debug $(DEBUG_PATTERN)

# Every suite the project has; totals are printed by each suite and the
# summary line by scripts/check-summary.
check: deps
	$(TOP)/scripts/check

# scripts/demo installs, builds and says plainly what failed.
demo:
	$(TOP)/scripts/demo

sim-figures: userspace
	$(TOP)/scripts/sim-figures

bench: guest-module userspace
	$(TOP)/scripts/bench

clean:
	-$(KMAKE) clean 2>/dev/null
	rm -rf $(BUILD)

# The emulated rotating disk the tests run on (tests/hddsim/, not shipped).
.PHONY: hddsim
hddsim: deps
	$(MAKE) -C tests/hddsim KVER=$(GUEST_KVER)

# The fault-injecting test target (tests/ewfault/, not shipped); scripts/
# vmtest builds it before the guest suites.
.PHONY: ewfault
ewfault: deps
	$(MAKE) -C tests/ewfault KVER=$(GUEST_KVER)
