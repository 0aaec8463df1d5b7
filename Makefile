# hpcnet: `make` emits the Verilog of the default configuration; `make test` runs every test.
# Other targets: deps, lint, synth, bench, fpga, docs, clean.
CARGO  ?= cargo
CONFIG ?=
OUT    ?= verilog-out
HPCNET  = $(CARGO) run --quiet --release --bin hpcnet --
CFGARG  = $(if $(CONFIG),--config $(CONFIG),)
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Debian packages of the open-source flow (Verilator 5.006, Yosys 0.23, nextpnr-ice40 0.4).
APT_PKGS = verilator yosys nextpnr-ice40 fpga-icestorm iverilog
TOOLS    = verilator yosys nextpnr-ice40 icepack iverilog

.PHONY: all verilog docs deps test lint synth bench fpga clean

all: verilog

verilog:
	$(HPCNET) emit $(CFGARG) --out $(OUT)
	$(HPCNET) docs --out docs

docs:
	$(HPCNET) docs --out docs

# Installs the flow's tools when any is missing (a fresh Debian 12 machine has only Rust).
deps:
	@missing=""; for t in $(TOOLS); do command -v $$t >/dev/null 2>&1 || missing="$$missing $$t"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing$$missing (Debian packages: $(APT_PKGS))"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $(APT_PKGS) g++ make; \
	else echo "deps: $(TOOLS) present"; fi

test: deps
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --release --workspace --all-targets -- -D warnings
	$(CARGO) test --release --workspace
	$(HPCNET) lint --dir $(OUT)
	$(HPCNET) synth --dir $(OUT)
	$(HPCNET) fpga $(CFGARG) --dir build/fpga

lint: deps
	$(HPCNET) lint --dir $(OUT)

synth: deps
	$(HPCNET) synth --dir $(OUT)

fpga: deps
	$(HPCNET) fpga $(CFGARG) --dir build/fpga

bench: deps
	$(CARGO) run --quiet --release -p testbench --bin bench

clean:
	$(CARGO) clean
	rm -rf build
