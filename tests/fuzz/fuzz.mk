# `make fuzz`: the libFuzzer targets of tests/fuzz (see README.md there),
# included by the top-level Makefile.
#
#   make fuzz [FUZZ_TIME=seconds]   build, seed, replay the regression
#                                   inputs, then fuzz the targets for
#                                   FUZZ_TIME seconds in all (default 300),
#                                   printing executions and coverage each
#                                   (pgp-key, pgp-sig, modsig, elf-name);
#                                   every crash input found is copied to
#                                   tests/fuzz/regressions/<target>/, which
#                                   the tests replay from then on
#
# KSRC (the patched source) comes from the top-level Makefile; point it and
# MODSIGN_SRC elsewhere to fuzz another tree: make fuzz KSRC=/path/to/linux.

FUZZ_TIME   ?= 300
FUZZ_OUT    ?= $(BUILD)/fuzz
MODSIGN_SRC ?= $(KSRC)/scripts/modsign
# Only the project's own tree is prepared first: a tree given on the
# command line is fuzzed as it is.
FUZZ_DEPS   ?= $(if $(filter $(BUILD)/src/linux,$(KSRC)),tree)
# The elf-name target needs the kernel's unverified-name reader; fuzz.sh
# build stops with "elf-name harness: source ... missing" without it.
FUZZ_ELFNAME_SRC ?= $(KSRC)/kernel/module/unverified_name.c
fuzz-env     = KSRC=$(KSRC) MODSIGN_SRC=$(MODSIGN_SRC) FUZZ_OUT=$(FUZZ_OUT) BUILD=$(BUILD) \
	       KDIR=$(KOBJ) FUZZ_ELFNAME_SRC=$(FUZZ_ELFNAME_SRC)
fuzz-targets = 4

.PHONY: fuzz fuzz-build
fuzz-build: $(FUZZ_DEPS)
	$(fuzz-env) tests/fuzz/fuzz.sh build
	$(fuzz-env) tests/fuzz/fuzz.sh seeds
	$(fuzz-env) tests/fuzz/fuzz.sh check-seeds

fuzz: fuzz-build
	$(fuzz-env) tests/fuzz/fuzz.sh replay
	$(fuzz-env) FUZZ_SAVE_CRASHES=1 tests/fuzz/fuzz.sh run $$(( $(FUZZ_TIME) / $(fuzz-targets) > 0 ? $(FUZZ_TIME) / $(fuzz-targets) : 1 ))
