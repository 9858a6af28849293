# modsign: build-time, strip-then-sign kernel module signing with GnuPG
# keys, for Debian's linux-source-6.1.
#
#   make              install what is missing, patch the tree, build the
#                     signed kernel and modules (small config) in build/linux
#   make check        every test; ends with "N passed, N failed"
#   make KCONFIG=debian   the same with Debian's full config (hours here)
#   make rpm | deb    packages (see packaging/)
#   make fuzz | bench
#   make check-series   build the kernel after each patch of the series
#
# Variables given here (MODSECKEY, MODPUBKEY, MODKEYNAME, KEYFLAGS, ...)
# reach the kernel's make unchanged.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c

BUILD    ?= $(CURDIR)/build
TARBALL  ?= /usr/src/linux-source-6.1.tar.xz
KCONFIG  ?= small
JOBS     ?= $(shell nproc)

KSRC     := $(BUILD)/src/linux
ifeq ($(KCONFIG),small)
KOBJ     ?= $(BUILD)/linux
else
KOBJ     ?= $(BUILD)/linux-$(KCONFIG)
endif
FRAGMENT := $(CURDIR)/scripts/default-build.config

config-fragments-small  := $(FRAGMENT)
config-fragments-debian :=

.PHONY: all deps test-deps tree config kernel check check-series clean
all: kernel

deps:
	scripts/install-deps.sh build

test-deps:
	scripts/install-deps.sh test

# The tree is rebuilt only when the patch series changes; the series
# carries everything the tree needs (the ephemeral key template too).
tree: deps
	scripts/prepare-tree.sh $(TARBALL) kbuild-patches $(KSRC)

config: tree
	if [ ! -f $(KOBJ)/.config ] || [ $(KOBJ)/.config -ot $(KSRC)/.git/modsign-series ] || \
	   [ $(KOBJ)/.config -ot $(FRAGMENT) ]; then \
		scripts/configure-kernel.sh $(KSRC) $(KOBJ) $(KCONFIG) $(config-fragments-$(KCONFIG)); \
	fi

kernel: config
	$(MAKE) -C $(KSRC) O=$(KOBJ) -j$(JOBS) bzImage modules

check: test-deps kernel
	BUILD=$(BUILD) KSRC=$(KSRC) KDIR=$(KOBJ) JOBS=$(JOBS) tests/run-all.sh

# Every patch of the series builds on its own: the kernel is built after
# each one, incrementally, in $(BUILD)/series (not part of check: it
# takes about as long as two kernel builds).
check-series: kernel
	scripts/check-series.sh $(KSRC) $(KOBJ)/.config $(BUILD)/series $(KOBJ)

clean:
	rm -rf $(BUILD)

# Packaging, fuzzing and benchmark targets live next to their code.
include packaging/packaging.mk
include tests/fuzz/fuzz.mk
include tests/bench/bench.mk
