# modsign: build-time, strip-then-sign kernel module signing with GnuPG
# keys, for Debian's linux-source-6.1 and linux-source-6.12.
#
#   make              install what is missing, patch the tree, build the
#                     signed kernel and modules (small config) in build/linux
#   make KVER=6.12    the same for 6.12 (kbuild-patches/6.12), in build/6.12
#   make check        every test, on both versions; ends with
#                     "N passed, N failed"
#   make check-full   the same with what does not fit make check's time
#   make KCONFIG=debian   Debian's full config (hours here)
#   make rpm | deb    packages (see packaging/)
#   make fuzz | bench
#   make check-series   build the kernel after each patch of the series
#
# Variables given here (MODSECKEY, MODPUBKEY, MODKEYNAME, KEYFLAGS, ...)
# reach the kernel's make unchanged.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c

BUILD    ?= $(CURDIR)/build
KVER     ?= 6.1
KCONFIG  ?= small
JOBS     ?= $(shell nproc)
# The kernel versions make check tests, the default first.
KVERS    := 6.1 6.12

ifeq ($(filter $(KVER),$(KVERS)),)
$(error KVER=$(KVER): the series exists for $(KVERS))
endif

# One build directory per version: 6.1's is BUILD itself, as it has
# always been, the others' a directory under it.
kver-build = $(if $(filter 6.1,$(1)),$(BUILD),$(BUILD)/$(1))
VBUILD   ?= $(call kver-build,$(KVER))
TARBALL  ?= /usr/src/linux-source-$(KVER).tar.xz
PATCHES  := $(CURDIR)/kbuild-patches/$(KVER)

KSRC     := $(VBUILD)/src/linux
ifeq ($(KCONFIG),small)
KOBJ     ?= $(VBUILD)/linux
else
KOBJ     ?= $(VBUILD)/linux-$(KCONFIG)
endif
FRAGMENT := $(CURDIR)/scripts/default-build.config

config-fragments-small  := $(FRAGMENT)
config-fragments-debian :=

.PHONY: all deps test-deps tree config kernel kernels check check-full check-series clean
all: kernel

deps:
	scripts/install-deps.sh build $(KVER)

test-deps:
	scripts/install-deps.sh test

# The tree is rebuilt only when the patch series changes; the series
# carries everything the tree needs (the ephemeral key template too).
tree: deps
	scripts/prepare-tree.sh $(TARBALL) $(PATCHES) $(KSRC)

config: tree
	if [ ! -f $(KOBJ)/.config ] || [ $(KOBJ)/.config -ot $(KSRC)/.git/modsign-series ] || \
	   [ $(KOBJ)/.config -ot $(FRAGMENT) ]; then \
		scripts/configure-kernel.sh $(KSRC) $(KOBJ) $(KCONFIG) $(config-fragments-$(KCONFIG)); \
	fi

kernel: config
	$(MAKE) -C $(KSRC) O=$(KOBJ) -j$(JOBS) bzImage modules

# Every version's kernel, each built once and shared by its tests.
kernels:
	$(foreach v,$(KVERS),$(MAKE) KVER=$(v) KCONFIG=small kernel &&) :

check-suites = $(foreach v,$(KVERS),$(v)=$(call kver-build,$(v)))

check: test-deps kernels
	JOBS=$(JOBS) tests/run-all.sh $(check-suites)

check-full: test-deps kernels
	MODSIGN_FULL=1 JOBS=$(JOBS) tests/run-all.sh $(check-suites)

# Every patch of the series builds on its own: the kernel is built after
# each one, incrementally, in $(BUILD)/series (not part of check: it
# takes about as long as two kernel builds).
check-series: kernel
	scripts/check-series.sh $(KSRC) $(KOBJ)/.config $(VBUILD)/series $(KOBJ)

clean:
	rm -rf $(BUILD)

# Packaging, fuzzing and benchmark targets live next to their code.
include packaging/packaging.mk
include tests/fuzz/fuzz.mk
include tests/bench/bench.mk
