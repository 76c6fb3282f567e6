# autoconfig — build, test, bench, fuzz.  See README.md.
# Every src/**/*.c except src/cli/main.c goes into one static library that the
# binary, the unit tests, the benchmarks and the fuzz targets link against, so a
# new module needs no Makefile change.

CC       ?= cc
BUILD    ?= build
OPT      ?= -O2
CFLAGS   += -std=c11 $(OPT) -g -Wall -Wextra -Werror -Wshadow -Wno-missing-field-initializers \
            -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Isrc -I$(BUILD)/gen -MMD -MP $(EXTRA_CFLAGS)
# -lcjson: src/results/report.c reads summary.json back (Debian libcjson-dev)
# -lprotobuf-c: src/results/tfevents.c decodes TensorBoard event files
LDLIBS   += -lyaml -lsqlite3 -lcjson -lprotobuf-c -lm

ifeq ($(SAN),1)
BUILD    := build-san
CFLAGS   += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS  += -fsanitize=address,undefined
endif

LIB_SRC   := $(shell find src -name '*.c' ! -path 'src/cli/main.c' | sort)
LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
# data files compiled into the library (scripts/embed.sh): data/NAME.csv → ac_data_NAME
DATA_CSV  := $(sort $(wildcard data/*.csv))
DATA_OBJ  := $(DATA_CSV:data/%.csv=$(BUILD)/gen/data_%.o)
# and the family templates: base_configs/NAME.yaml → ac_base_NAME (a copy on disk overrides it)
BASE_YAML := $(sort $(wildcard base_configs/*.yaml))
DATA_OBJ  += $(BASE_YAML:base_configs/%.yaml=$(BUILD)/gen/base_%.o)
TEST_SRC  := $(sort $(wildcard tests/unit/test_*.c))
TEST_BIN  := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
FUZZ_SRC  := $(sort $(wildcard fuzz/fuzz_*.c))
REPLAY_BIN:= $(FUZZ_SRC:fuzz/%.c=$(BUILD)/replay/%)
BENCH_SRC := $(sort $(wildcard bench/bench_*.c))
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
# protobuf schemas (src/**/proto/NAME.proto) → $(BUILD)/gen/NAME.pb-c.{c,h} by protoc-c
PROTO_SRC := $(sort $(shell find src -path '*/proto/*.proto'))
PROTO_C   := $(foreach p,$(PROTO_SRC),$(BUILD)/gen/$(basename $(notdir $(p))).pb-c.c)
PROTO_OBJ := $(PROTO_C:%.c=%.o)

.PRECIOUS: $(BUILD)/gen/data_%.c $(BUILD)/gen/base_%.c $(BUILD)/gen/%.pb-c.c $(BUILD)/gen/%.pb-c.h
.PHONY: all run test test-san valgrind bench fuzz clean deps lint
all: $(BUILD)/autoconfig

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/gen/data_%.c: data/%.csv scripts/embed.sh
	@mkdir -p $(dir $@)
	scripts/embed.sh ac_data_$* $< > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/base_%.c: base_configs/%.yaml scripts/embed.sh
	@mkdir -p $(dir $@)
	scripts/embed.sh ac_base_$* $< > $@.tmp && mv $@.tmp $@

# every library object may include a generated header: generate them first
$(LIB_OBJ): | $(PROTO_C)
$(BUILD)/gen/%.pb-c.c: $(PROTO_SRC)
	@mkdir -p $(dir $@)
	protoc-c --c_out=$(BUILD)/gen $(addprefix -I,$(sort $(dir $(PROTO_SRC)))) $(filter %/$*.proto,$(PROTO_SRC))
$(BUILD)/gen/%.pb-c.h: $(BUILD)/gen/%.pb-c.c ;
# every generated source (embedded data and templates, protobuf-c) compiles alike
$(BUILD)/gen/%.o: $(BUILD)/gen/%.c
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/libautoconfig.a: $(LIB_OBJ) $(DATA_OBJ) $(PROTO_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/autoconfig: $(BUILD)/obj/src/cli/main.o $(BUILD)/libautoconfig.a
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(BUILD)/tests/%: tests/unit/%.c tests/check.h $(BUILD)/libautoconfig.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests $< $(BUILD)/libautoconfig.a $(LDFLAGS) $(LDLIBS) -o $@

$(BUILD)/replay/%: fuzz/%.c fuzz/replay_main.c $(BUILD)/libautoconfig.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< fuzz/replay_main.c $(BUILD)/libautoconfig.a $(LDFLAGS) $(LDLIBS) -o $@

$(BUILD)/bench/%: bench/%.c $(BUILD)/libautoconfig.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< $(BUILD)/libautoconfig.a $(LDFLAGS) $(LDLIBS) -o $@

# The embedded default: cluster_type sim, no cluster needed.
run: deps
	$(MAKE) $(BUILD)/autoconfig
	./$(BUILD)/autoconfig run

# Unit tests, CLI tests and the fuzz-corpus replay (the benchmarks are built, not run, so they
# cannot rot); ends with "N passed, N failed".
test: deps
	$(MAKE) $(BUILD)/autoconfig $(TEST_BIN) $(REPLAY_BIN) $(BENCH_BIN)
	@BUILD=$(BUILD) scripts/run-tests.sh

# Same suite under AddressSanitizer + UndefinedBehaviorSanitizer.
test-san:
	$(MAKE) SAN=1 test

# The unit tests and the main commands under valgrind memcheck (errors and definite leaks fail).
valgrind: deps
	$(MAKE) $(BUILD)/autoconfig $(TEST_BIN)
	@scripts/valgrind.sh $(BUILD)

bench: $(BUILD)/autoconfig $(BENCH_BIN)
	@for b in $(BENCH_BIN); do echo "== $$b"; ./$$b || exit 1; done

# libFuzzer targets (clang); run e.g. build-fuzz/fuzz_yaml fuzz/corpus/fuzz_yaml
# UB aborts (no recovery) so the fuzzer keeps the input that caused it
FUZZ_SAN := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
fuzz:
	@mkdir -p build-fuzz
	$(MAKE) BUILD=build-fuzz CC=clang EXTRA_CFLAGS="$(FUZZ_SAN) -Wno-unused-command-line-argument" build-fuzz/libautoconfig.a
	@for f in $(FUZZ_SRC); do n=$$(basename $$f .c); \
	  clang -std=c11 -g -O1 -Isrc -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	    $$f build-fuzz/libautoconfig.a $(LDLIBS) -o build-fuzz/$$n || exit 1; echo "built build-fuzz/$$n"; done

# installs the Debian packages once (a quick no-op when they are present)
deps:
	@scripts/install-deps.sh

clean:
	rm -rf build build-san build-fuzz

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
