# The README's quick start: `make demo`, `make check` and `make test`.
VENV ?= .venv
PYTHON ?= python3
STAMP := $(VENV)/.installed
# The demo's own environment: floord with the extras the demo uses, `console` (the
# `floord watch` its first lines offer), `demo` (the embedded broker) and `web` (the
# browser console it starts), not the tests'.
DEMO_VENV ?= .venv-demo
DEMO_STAMP := $(DEMO_VENV)/.installed
# `make deb`'s build environment: pip alone (the wheel is built in isolation). Under
# build/, which the package's source copy leaves out.
BUILD_VENV ?= build/venv
BUILD_STAMP := $(BUILD_VENV)/.installed
# --durations: the slowest tests in every run, so the suite's time budget stays in sight.
# -n 2 --dist loadfile: two workers, each test file in one of them (its fixtures built once).
PYTEST_ARGS ?= -q --durations=25 -n 2 --dist loadfile
# `make check`: the unit tier alone (tests marked `unit`: no broker, pty, subprocess or
# daemon), the minute-long loop while editing; `make test` runs every tier, as CI does.
CHECK_ARGS ?= -q --durations=10 -n 2 --dist loadfile
# The unit tier's tmp_path (its journals, SQLite with synchronous=FULL) on tmpfs where the
# box has one: the unit tier checks what is written, not that it survives a power cut (the
# system tier's restart and kill tests do that on disk), and an fsync per commit would be
# a third of its minute.
CHECK_TMPDIR ?= $(firstword $(wildcard /dev/shm) $(TMPDIR) /tmp)
# The tests' bytecode, kept under the venv: each xdist worker collects every test file,
# and pytest rewrites a file's asserts on every import unless it may keep the result (a
# worker's collection of the unit tier: 13 s where PYTHONDONTWRITEBYTECODE is set, 3.5 s
# where not); every daemon and CLI a system test starts compiles floord again unless it
# may. A shell that sets PYTHONDONTWRITEBYTECODE to keep .pyc files out of the tree still
# gets none there.
PYCACHE_ENV := PYTHONDONTWRITEBYTECODE= PYTHONPYCACHEPREFIX=$(abspath $(VENV))/pycache

.PHONY: demo check test lint bench clean deb

$(STAMP): pyproject.toml scripts/bootstrap-venv.sh
	PYTHON=$(PYTHON) VENV=$(VENV) bash scripts/bootstrap-venv.sh
	touch $(STAMP)

$(DEMO_STAMP): pyproject.toml scripts/bootstrap-venv.sh
	PYTHON=$(PYTHON) VENV=$(DEMO_VENV) EXTRAS=console,demo,web bash scripts/bootstrap-venv.sh
	touch $(DEMO_STAMP)

$(BUILD_STAMP): scripts/bootstrap-venv.sh
	PYTHON=$(PYTHON) VENV=$(BUILD_VENV) EXTRAS=none bash scripts/bootstrap-venv.sh
	touch $(BUILD_STAMP)

demo: $(DEMO_STAMP)
	$(DEMO_VENV)/bin/floord demo $(DEMO_ARGS)

check: $(STAMP)
	$(PYCACHE_ENV) TMPDIR=$(CHECK_TMPDIR) $(VENV)/bin/python -m pytest -m unit $(CHECK_ARGS)

test: $(STAMP)
	bash scripts/ensure-test-tools.sh
	$(PYCACHE_ENV) $(VENV)/bin/python -m pytest $(PYTEST_ARGS)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy

bench: $(STAMP)
	bash scripts/ensure-test-tools.sh
	$(VENV)/bin/python -m bench.latency $(BENCH_ARGS)

# The same on a slow disk: every fsync of the daemon takes 5 ms more (an eMMC or SD card).
.PHONY: bench-slow
bench-slow: $(STAMP)
	bash scripts/ensure-test-tools.sh
	$(VENV)/bin/python -m bench.latency --slow-fsync-ms 5 $(BENCH_ARGS)

# 200 simulated roulette tables, 4 daemons, one Mosquitto, 180 s (LOAD_ARGS="--tables 20
# --seconds 30" for a short run; "--speed 4 --seconds 60 --browsers 5" adds floord web and
# 5 headless Chromium pages on its floor); prints a report, writes JSON to bench/results/.
.PHONY: bench-load
bench-load: $(STAMP)
	bash scripts/ensure-test-tools.sh
	$(VENV)/bin/python -m bench.load_tables $(LOAD_ARGS)

# The browser console under 200 tables at 4x real time with 5 headless Chromium pages open
# (docs/benchmarks.md; WEB_ARGS="--seconds 20" for a short run).
.PHONY: bench-web
bench-web: $(STAMP)
	bash scripts/ensure-test-tools.sh
	$(VENV)/bin/python -m bench.web_console $(WEB_ARGS)

# A box of 8 roulette tables from start to every wheel online, and its peak memory, beside
# an interpreter's start (docs/benchmarks.md, "Start-up").
.PHONY: bench-startup
bench-startup: $(STAMP)
	bash scripts/ensure-test-tools.sh
	$(VENV)/bin/python -m bench.startup

# The table box's Debian package and a rig's (docs/deployment.md, "The .deb"):
# dist/floord_*.deb and dist/floord-rig_*.deb.
deb: $(BUILD_STAMP)
	VENV=$(BUILD_VENV) bash scripts/build-deb.sh

clean:
	rm -rf $(VENV) $(DEMO_VENV) .pytest_cache .ruff_cache build dist
