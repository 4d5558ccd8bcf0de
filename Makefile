# Inside the Transformer MLP: the two commands are `make lab` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Stored outputs and nbval both use the CPU (COURSE_DEVICE=cpu), so they match everywhere.
NBVAL := --nbval --nbval-current-env --nbval-sanitize-with tests/sanitize.cfg
JOBS ?= 2
# The venv's Python, or the machine's where there is no venv (a GPU machine with the course
# installed from a wheel and no package index): for targets that need no install.
RUN_PYTHON = $(if $(wildcard $(BIN)/python),$(BIN)/python,$(PYTHON))

.PHONY: help lab test unit nbval lint notebooks sync claims bench gpu-check release-check slides clean \
	train-model slide-layout

# Create the environment (once, and again when pyproject.toml changes).
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[test,lab]"
	touch $(STAMP)

## Open the course: JupyterLab on notebooks/, with RISE (Alt+R: live slides) in a theme that needs no network
lab: $(STAMP)
	$(BIN)/jupyter lab notebooks/ --LabApp.app_settings_dir=$(CURDIR)/tools/lab_settings $$([ "$$(id -u)" = 0 ] && echo --allow-root)

## Every test: lint, unit tests and nbval (strict) on every notebook
test: $(STAMP)
	$(BIN)/ruff check helpers tests tools notebooks
	COURSE_DEVICE=cpu $(BIN)/python -m pytest -n $(JOBS) --dist loadscope --durations=10 tests notebooks $(NBVAL)

## Only the unit tests (quick)
unit: $(STAMP)
	$(BIN)/python -m pytest -n $(JOBS) tests

## Only nbval on the notebooks
nbval: $(STAMP)
	COURSE_DEVICE=cpu $(BIN)/python -m pytest -n $(JOBS) --dist loadscope notebooks $(NBVAL)

## Only the linter (ruff) on helpers, tests, tools and notebooks
lint: $(STAMP)
	$(BIN)/ruff check helpers tests tools notebooks

## Write the Colab badge and setup cell into every notebook, then re-execute them all
notebooks: $(STAMP)
	$(BIN)/python tools/sync_notebooks.py
	$(BIN)/python tools/run_notebooks.py $(NB)
	$(BIN)/python tools/claims.py

## Rewrite docs/CLAIMS.md, the ledger of the source posts' claims and the cells that check them
claims: $(STAMP)
	$(BIN)/python tools/claims.py

## Only rewrite badges and setup cells (no execution)
sync: $(STAMP)
	$(BIN)/python tools/sync_notebooks.py

## Benchmarks: ratios from one run, demo redraws, the time to re-execute every notebook
bench: $(STAMP)
	$(BIN)/python tools/bench_all.py

## On a CUDA GPU: every notebook (asserts only) and the benchmark there; report in build/gpu-check/
gpu-check:
	@$(RUN_PYTHON) tools/gpu_check.py

## Build the sdist and wheel into dist/ and run the Colab simulation on that wheel (before a release)
release-check: $(STAMP)
	rm -rf dist
	$(BIN)/python -m build -q --outdir dist .
	$(BIN)/python tools/colab_check.py dist/*.whl

## One reveal.js deck per notebook in slides/, opening from disk with no network (npm fetches reveal.js and MathJax once)
slides: $(STAMP)
	$(BIN)/python tools/build_slides.py

## Set every cell's slide type from its content (NB=05 for one notebook), so that each slide fits 1280x720
slide-layout: $(STAMP)
	$(BIN)/python tools/slide_layout.py $(NB)

## Retrain notebook 12's fact model from scratch (a few minutes on CPU) into data/fact_model/
train-model: $(STAMP)
	$(BIN)/python tools/train_fact_model.py

## Remove what builds leave behind (build/, dist/, slides/, caches)
clean:
	rm -rf build dist *.egg-info .pytest_cache slides

## List the targets and what each does
help:
	@echo "Inside the Transformer MLP: \`make lab\` opens the course, \`make test\` runs every test."
	@echo "(\`make\` alone creates the environment, .venv.)"
	@echo
	@awk '/^## /{doc = substr($$0, 4); next} \
	      /^[a-z][a-z-]*:/ && doc {sub(/:.*/, "", $$1); printf "  make %-15s %s\n", $$1, doc} \
	      {doc = ""}' $(firstword $(MAKEFILE_LIST))
