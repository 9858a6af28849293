# Benchmarks (issue 6), included by the top-level Makefile:
#
#   make bench                  signing speed on all of Debian's modules,
#                               build overhead, guest load time
#   make bench BENCH_SAMPLE=N   the same signing only N modules (quick run)
#
# Other knobs, all optional: BENCH_PARTS (default "sign insn pass build guest"),
# BENCH_SIZES ("3072 4096"), BENCH_JOBS_LIST ("1 2"), BENCH_CHUNK (200
# modules signed by every method in turn), BENCH_BUILD_RUNS (3 timed
# builds of each kind), BENCH_ROUNDS (120 guest load rounds).  Results:
# $(BUILD)/bench/results/ (table.md, chart.png, *.tsv, run.log); the
# run's last line is "signer/floor=X.XX gpg/signer=Y.YY sign-file/signer=Z.ZZ"
# (RSA-4096, one job).  Not part of "make check": benchmarks print
# ratios, they do not pass or fail.

BENCH_DIR    ?= $(BUILD)/bench
BENCH_SAMPLE ?=
BENCH_SRC    := $(CURDIR)/tests/bench
BENCH_BIN    := $(BENCH_DIR)/bin

bench-tools := btime modbody floor gpgframe loadbench
bench-ldlibs-floor := -lcrypto -lgcrypt
bench-ldflags-loadbench := -static

$(BENCH_BIN)/%: $(BENCH_SRC)/tools/%.c
	mkdir -p $(@D)
	$(CC) -O2 -Wall -Wextra $(bench-ldflags-$*) -o $@.tmp $< $(bench-ldlibs-$*)
	mv $@.tmp $@

.PHONY: bench bench-deps bench-tools
bench-deps:
	scripts/install-deps.sh bench

bench-tools: $(addprefix $(BENCH_BIN)/,$(bench-tools))

bench: bench-deps kernel bench-tools
	BUILD=$(BUILD) KSRC=$(KSRC) KOBJ=$(KOBJ) JOBS=$(JOBS) \
		BENCH_DIR=$(BENCH_DIR) BENCH_SAMPLE=$(BENCH_SAMPLE) \
		$(BENCH_SRC)/run.sh
