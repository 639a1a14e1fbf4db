# Tessera's entry point. `make run` and `make test` install what is missing,
# build everything and then boot the demo or run every test (`make run`
# quietly: the build's output goes to out/build.log).
OUT      := out
MAKEFLAGS += --no-print-directory
JOBS     ?= $(shell nproc)
CMAKE    := cmake
NP       ?= 16
BUILD_LOG := $(OUT)/build.log
DEMO     ?= fn 1 4000
# make test T=kernel runs only the tests labelled `kernel` (ctest -L).
T        ?=
# make test PLATFORM=linux64 runs the unit tests and the on-target tests of
# linux64 only (PLATFORM=qemu-riscv64: of QEMU only); no PLATFORM: both.
# On-target tests are labelled `qemu` (and `target`) or `linux64`.
PLATFORM ?=
PLATFORM_LABELS_OUT := $(if $(PLATFORM),$(or \
  $(if $(filter linux64,$(PLATFORM)),-LE '^qemu$$'),\
  $(if $(filter qemu-riscv64,$(PLATFORM)),-LE '^linux64$$'),\
  $(error PLATFORM must be qemu-riscv64 or linux64, not '$(PLATFORM)')))
# make bench QUICK=1: small sizes, a few minutes. TRACE=1: also one traced
# run of each app (out/bench/trace-*.json, docs/debugging.md, "Tracing").
QUICK    ?=
TRACE    ?=

.PHONY: all setup build quiet-build run debug test bench crosscheck format tidy clean

all: build

setup:
	@tools/setup.sh

build: setup
	@$(CMAKE) -S . -B $(OUT)/target -DCMAKE_TOOLCHAIN_FILE=build/riscv64.cmake >/dev/null
	@$(CMAKE) --build $(OUT)/target -j $(JOBS)
	@$(CMAKE) -S . -B $(OUT)/linux64 -DCMAKE_TOOLCHAIN_FILE=build/linux64.cmake >/dev/null
	@$(CMAKE) --build $(OUT)/linux64 -j $(JOBS)
	@$(CMAKE) -S . -B $(OUT)/host >/dev/null
	@$(CMAKE) --build $(OUT)/host -j $(JOBS)

# The build (and the install of what is missing) into $(BUILD_LOG), and
# one line that says how it went; when it fails, its messages (the log
# without the progress lines, the last 60 of them) and the log's path, and
# make fails.
quiet-build:
	@mkdir -p $(OUT)
	@printf 'building (log: %s)... ' $(BUILD_LOG)
	@if $(MAKE) build >$(BUILD_LOG) 2>&1; then echo done; else \
	    echo failed; grep -Ev '^\[ *[0-9]+%\] |^-- ' $(BUILD_LOG) | tail -n 60; \
	    echo "the whole build log: $(BUILD_LOG)"; exit 1; fi

# The default demo: an MPI program on all 4 compute clusters.
run: quiet-build
	@tools/mpirun -np $(NP) --map-by scatter $(DEMO)

# The default demo with rank 0 held before its main in gdb (docs/debugging.md,
# "Debugging a rank"; make debug GDB_RANK=5 for another rank).
GDB_RANK ?= 0
debug: quiet-build
	@tools/mpirun -np $(NP) --map-by scatter --gdb $(GDB_RANK) $(DEMO)

test: build
	cd $(OUT)/host && ctest --output-on-failure -j $(JOBS) $(if $(T),-L '$(T)') $(PLATFORM_LABELS_OUT)

# The LWMPI study's experiments: tables and plots in out/bench (bench/README.md).
bench: build
	PYTHONPATH=tools /usr/bin/python3 bench/run_bench.py $(if $(QUICK),--quick) $(if $(TRACE),--trace) --out $(OUT)/bench

# The CAP Bench applications on Linux with the system's Open MPI: same results?
crosscheck: build
	PYTHONPATH=tools /usr/bin/python3 userland/apps/tests/crosscheck.py

# The house style (.clang-format): formats every C and C++ source in place.
format: setup
	@tools/format.sh

# clang-tidy's checks (.clang-tidy) on the code the host build compiles
# (LWMPI, the name server's table, the name daemon), then its naming check
# on what every build compiles, tests included (also the tidy_naming test).
tidy: build
	@tools/tidy.py $(OUT)/host
	@tools/tidy.py --naming $(OUT)/host $(OUT)/linux64 $(OUT)/target

clean:
	rm -rf $(OUT)
