# ldagpu — build, test and sanitizer targets.
#
#   make            ./ldagpu and ./libldagpu.so, the library (include/ldagpu.h) (with the CUDA backend
#                   when nvcc is found; CUDA=0 forces CPU only)
#   make test       build and run the Criterion test suite (GPU tests skip without a GPU), then the
#                   Python package's tests (python/tests, pytest) against the library just built
#   make asan       build the CLI, the library and tests with AddressSanitizer + UBSan and run both
#   make demo       train on the bundled corpus and print its topics
#   make fuzz       build the libFuzzer targets (clang) and run each FUZZ_SECONDS on its seeds
#   make install    ldagpu, its man page ldagpu(1) and bash completion under $(DESTDIR)$(PREFIX)
#   make uninstall  removes them
#
# Variables: CUDA=0|1, MPI=0|1 (default: whether Open MPI's mpicc is found), CUDA_ARCH=sm_90, NVCC=nvcc, CC=cc, FUZZ_SECONDS=60; PREFIX=/usr/local,
# DESTDIR (staging root for packagers), BINDIR, MANDIR, BASHCOMPDIR.

CC        ?= cc
NVCC      ?= nvcc
CUDA_ARCH ?= sm_90
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(shell command -v $(NVCC) 2>/dev/null))
ifeq ($(origin CUDA), undefined)
  CUDA := $(if $(shell command -v $(NVCC) 2>/dev/null),1,0)
endif

# CPU-only and CUDA builds keep their objects apart (the flags differ).
BUILD    ?= build/$(if $(filter 1,$(CUDA)),cuda,cpu)
OPTFLAGS ?= -O3 -march=x86-64-v2
# -fPIC: the same objects make the program and libldagpu.so; hidden visibility: the library
# exports only the API (LDAGPU_EXPORT in include/ldagpu.h).
CFLAGS_COMMON = -std=c11 -g -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -fPIC -fvisibility=hidden \
                -D_GNU_SOURCE -pthread -Isrc -Iinclude -I$(BUILD)/gen
CFLAGS   += $(OPTFLAGS) $(CFLAGS_COMMON)
# PCRE2 (8-bit code units, UTF-8) runs --token-pattern (corpus/token_pattern.h).
LDLIBS   += -lpcre2-8 -lz -lm -pthread
NVFLAGS  ?= -O3 -arch=$(CUDA_ARCH) -std=c++17 -Isrc -Xcompiler -Wall,-Wextra,-Werror,-fPIC \
            -Xptxas -warn-spills --resource-usage
# NVFLAGS_EXTRA: a developer's switch, e.g. -DLDA_DRAW_STATS (cuda/zsample_sparse.cuh)
NVFLAGS  += $(NVFLAGS_EXTRA)

LIB_SRC  := $(filter-out src/cli/main.c src/backend/backend_cuda_absent.c,$(wildcard src/*/*.c))
CUDA_SRC := $(wildcard cuda/*.cu)
TEST_SRC := $(wildcard tests/*.c)

LIB_OBJ  := $(LIB_SRC:src/%.c=$(BUILD)/src/%.o) $(BUILD)/gen/stopwords_data.o
ifeq ($(CUDA),1)
  LIB_OBJ += $(CUDA_SRC:cuda/%.cu=$(BUILD)/cuda/%.o)
  LDLIBS  += -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lstdc++
  CFLAGS  += -DLDA_HAVE_CUDA=1
  # NCCL sums the counts of several GPUs (backend/allreduce.h); used where nccl.h is found beside
  # CUDA or in the system's headers, else the GPUs' counts go through peer copies.
  NCCL_HOME ?= $(firstword $(foreach d,$(CUDA_HOME) /usr,$(if $(wildcard $(d)/include/nccl.h),$(d))))
  ifneq ($(NCCL_HOME),)
    NVFLAGS += -DLDA_HAVE_NCCL -I$(NCCL_HOME)/include
    LDLIBS  += -L$(NCCL_HOME)/lib -L$(NCCL_HOME)/lib64 -Wl,-rpath,$(NCCL_HOME)/lib -lnccl
  endif
else
  LIB_OBJ += $(BUILD)/src/backend/backend_cuda_absent.o
endif
TEST_OBJ := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%.o)

# MPI: `mpirun -np N ldagpu train ...` runs one process a GPU (util/ranks.h); built in where Open
# MPI's mpicc is found. MPI=0 leaves it out (the sanitizer and fuzzing builds do).
MPI ?= $(if $(shell mpicc --showme:compile 2>/dev/null),1,0)
ifeq ($(MPI),1)
  CFLAGS += -DLDA_HAVE_MPI $(shell mpicc --showme:compile)
  LDLIBS += $(shell mpicc --showme:link)
endif

PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
MANDIR      ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions

.PHONY: all ldagpu lib test asan fuzz fuzz-targets demo clean deps check-criterion man completion install uninstall
all: ldagpu lib

ldagpu: $(BUILD)/ldagpu
	cp $< $@

lib: libldagpu.so
libldagpu.so: $(BUILD)/libldagpu.so
	cp $< $@

$(BUILD)/ldagpu: $(BUILD)/src/cli/main.o $(LIB_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# The library: the same objects as the program, less its main.
$(BUILD)/libldagpu.so: $(LIB_OBJ)
	$(CC) $(CFLAGS) -shared -Wl,-soname,libldagpu.so -o $@ $^ $(LDLIBS)

$(BUILD)/src/%.o: src/%.c | $(BUILD)/gen/stopwords_data.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/tests/%.o: tests/%.c | check-criterion
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests -MMD -MP -c -o $@ $<

$(BUILD)/cuda/%.o: cuda/%.cu $(wildcard cuda/*.cuh) $(wildcard src/*/*.h)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -c -o $@ $< 2> $(basename $@).resources || { cat $(basename $@).resources; exit 1; }
	@grep -E 'Used|spill|stack' $(basename $@).resources | sed 's/^/  /' | head -40 || true

# The built-in stop-word list is data/stopwords.txt compiled into the binary.
$(BUILD)/gen/stopwords_data.c: data/stopwords.txt scripts/embed-words.sh
	@mkdir -p $(dir $@)
	scripts/embed-words.sh lda_builtin_stopwords < $< > $@

$(BUILD)/gen/stopwords_data.o: $(BUILD)/gen/stopwords_data.c
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/test_ldagpu: $(TEST_OBJ) $(LIB_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS) -lcriterion

check-criterion:
	@test -f /usr/include/criterion/criterion.h || scripts/install-deps.sh --test

# The Python tests run with the system's Python (Debian's numpy, scipy and pytest:
# scripts/install-deps.sh --test); TEST_ARGS (a Criterion filter) leaves them out.
PYTHON ?= $(firstword $(wildcard /usr/bin/python3) python3)
PYTEST  = $(PYTHON) -m pytest -q -p no:cacheprovider python/tests

test: $(BUILD)/test_ldagpu ldagpu $(BUILD)/libldagpu.so
	LDAGPU_BIN=$(CURDIR)/$(BUILD)/ldagpu LDAGPU_ROOT=$(CURDIR) $(BUILD)/test_ldagpu $(TEST_ARGS)
	@if [ -z '$(TEST_ARGS)' ]; then \
	    echo "LDAGPU_LIBRARY=$(BUILD)/libldagpu.so $(PYTEST)"; \
	    LDAGPU_BIN=$(CURDIR)/$(BUILD)/ldagpu LDAGPU_LIBRARY=$(CURDIR)/$(BUILD)/libldagpu.so $(PYTEST); fi

# Sanitizer build: its own folder, CPU backend only (the CUDA runtime and ASan disagree on
# the address space), tests run with leak checking on. float-cast-overflow (not part of
# -fsanitize=undefined) catches a NaN or out-of-range double cast to an integer, e.g. from a file.
asan:
	$(MAKE) BUILD=build/asan CUDA=0 MPI=0 OPTFLAGS="-O1 -fno-omit-frame-pointer -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all" \
	    build/asan/ldagpu build/asan/test_ldagpu build/asan/libldagpu.so
	LDAGPU_BIN=$(CURDIR)/build/asan/ldagpu LDAGPU_ROOT=$(CURDIR) ASAN_OPTIONS=detect_leaks=1 \
	    UBSAN_OPTIONS=print_stacktrace=1 build/asan/test_ldagpu $(TEST_ARGS)
	@# The Python tests against the sanitized library: the interpreter loads it, so the ASan
	@# runtime is preloaded; leaks are not checked there (Python keeps what it allocates).
	@if [ -z '$(TEST_ARGS)' ]; then \
	    echo "LDAGPU_LIBRARY=build/asan/libldagpu.so LD_PRELOAD=libasan $(PYTEST)"; \
	    LD_PRELOAD="$$($(CC) -print-file-name=libasan.so) $$($(CC) -print-file-name=libubsan.so)" \
	    ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
	    LDAGPU_BIN=$(CURDIR)/build/asan/ldagpu LDAGPU_LIBRARY=$(CURDIR)/build/asan/libldagpu.so $(PYTEST); fi

# Fuzzing (fuzz/): libFuzzer targets over the readers and parsers, built with clang and
# AddressSanitizer + UBSan in their own folder. Each runs FUZZ_SECONDS from the seeds in
# fuzz/corpus/TARGET (new inputs go to build/fuzz/found/TARGET, a crash's input to
# build/fuzz/crash-*); a crash, a leak or a sanitizer report fails the target.
FUZZ_TARGETS := corpus binary config model_conf log_csv matrix model report manifest
FUZZ_SECONDS ?= 60
FUZZ_FLAGS   := -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
FUZZ_BINS    := $(FUZZ_TARGETS:%=$(BUILD)/fuzz/fuzz_%)

$(BUILD)/fuzz/%.o: fuzz/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Ifuzz -MMD -MP -c -o $@ $<

# The library without the command layer, which no target needs, but for the option parsers that
# train's settings (src/train/train_settings.c) share with it; what the targets share.
$(BUILD)/fuzz/fuzz_%: $(BUILD)/fuzz/fuzz_%.o $(BUILD)/fuzz/fuzz_input.o $(BUILD)/fuzz/model_folder.o \
                      $(filter-out $(BUILD)/src/cli/%,$(LIB_OBJ)) $(BUILD)/src/cli/cli_parse.o
	$(CC) $(CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

fuzz-targets: $(FUZZ_BINS)

fuzz:
	@command -v clang >/dev/null || scripts/install-deps.sh --fuzz
	$(MAKE) BUILD=build/fuzz CUDA=0 MPI=0 CC=clang OPTFLAGS="$(FUZZ_FLAGS)" fuzz-targets
	@for t in $(FUZZ_TARGETS); do \
	    mkdir -p build/fuzz/found/$$t; \
	    echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
	    build/fuzz/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -timeout=20 -rss_limit_mb=2048 \
	        -artifact_prefix=build/fuzz/crash-$$t- -print_final_stats=1 build/fuzz/found/$$t fuzz/corpus/$$t \
	        > build/fuzz/$$t.log 2>&1 || { tail -60 build/fuzz/$$t.log; echo "fuzz: $$t FAILED"; exit 1; }; \
	    grep -E "^stat::number_of_executed_units|^Done" build/fuzz/$$t.log | tr '\n' ' '; echo; \
	done

# The man page and the completion are generated from the binary's own --help (the option
# tables), so neither can drift from the program.
man: $(BUILD)/ldagpu.1
completion: $(BUILD)/ldagpu.bash

$(BUILD)/ldagpu.1: $(BUILD)/ldagpu scripts/gen-man.sh man/ldagpu.1.in
	scripts/gen-man.sh $(BUILD)/ldagpu > $@.tmp && mv $@.tmp $@

$(BUILD)/ldagpu.bash: $(BUILD)/ldagpu scripts/gen-completion.sh
	scripts/gen-completion.sh $(BUILD)/ldagpu > $@.tmp && mv $@.tmp $@

install: $(BUILD)/ldagpu $(BUILD)/ldagpu.1 $(BUILD)/ldagpu.bash
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR)
	install -m 755 $(BUILD)/ldagpu $(DESTDIR)$(BINDIR)/ldagpu
	install -m 644 $(BUILD)/ldagpu.1 $(DESTDIR)$(MANDIR)/man1/ldagpu.1
	install -m 644 $(BUILD)/ldagpu.bash $(DESTDIR)$(BASHCOMPDIR)/ldagpu

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/ldagpu $(DESTDIR)$(MANDIR)/man1/ldagpu.1 $(DESTDIR)$(BASHCOMPDIR)/ldagpu

demo: ldagpu
	./ldagpu train data/wiki2k.txt.gz --config configs/demo.conf --force -o demo-model
	./ldagpu topics demo-model --top 10

clean:
	rm -rf build ldagpu libldagpu.so

-include $(shell find build -name '*.d' 2>/dev/null)
