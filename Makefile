# Inside the Transformer MLP: the two commands are `make lab` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# What each command needs: `make lab` the course and JupyterLab, `make test` the test stack too.
LAB_STAMP := $(VENV)/.lab-installed
TEST_STAMP := $(VENV)/.test-installed
TORCH_STAMP := $(VENV)/.torch-installed
# Stored outputs and nbval both use the CPU (COURSE_DEVICE=cpu) and notebook 13's offline tiny GPT-2
# (COURSE_GPT2=tiny), so they match everywhere.
NBVAL := --nbval --nbval-current-env --nbval-sanitize-with tests/sanitize.cfg
JOBS ?= 2
# The venv's Python, or the machine's where there is no venv (a GPU machine with the course
# installed from a wheel and no package index): for targets that need no install.
RUN_PYTHON = $(if $(wildcard $(BIN)/python),$(BIN)/python,$(PYTHON))
# The course's notebooks (NN_name.ipynb, editions in subfolders too), never JupyterLab's copies.
NOTEBOOKS = $(shell $(RUN_PYTHON) tools/course_paths.py)

# PyTorch: TORCH=cpu or TORCH=cuda, else found out. On Linux (WSL too) without a working NVIDIA driver
# (no nvidia-smi, or one that finds no GPU) the CPU build comes from PyTorch's CPU index: PyPI's Linux
# wheel is the CUDA build, gigabytes larger. On macOS PyPI's wheel is the CPU and MPS build already.
# Another build (ROCm) is installed into the venv by hand first: make keeps a torch it finds.
TORCH ?= auto
TORCH_CPU_INDEX ?= https://download.pytorch.org/whl/cpu
$(if $(filter-out auto cpu cuda,$(TORCH)),$(error TORCH=$(TORCH) is not a build make installs: \
	TORCH=cpu, TORCH=cuda or TORCH=auto (the default); for another one (ROCm) pip install torch \
	into $(VENV) first, and make keeps it))
NVIDIA_GPU = $(shell nvidia-smi -L >/dev/null 2>&1 && echo yes)
TORCH_BUILD = $(if $(filter cpu cuda,$(TORCH)),$(TORCH),$(if $(filter Darwin,$(shell uname -s)),macos,$(if $(NVIDIA_GPU),cuda,cpu)))

# The checks' Korean catalog, compiled from its .po for the package (built, never committed).
CHECKS_MO := helpers/locale/ko/LC_MESSAGES/checks.mo

.DEFAULT_GOAL := $(LAB_STAMP)

.PHONY: help lab test unit nbval lint notebooks sync claims bench gpu-check release-check slides clean \
	train-model reset new-notebook slide-layout ko ko-status ko-extract

# The environment: a venv, then PyTorch (skipped if one is installed), then the course.
$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# torch alone from the CPU index (--no-deps): its dependencies come from PyPI with the course's.
$(TORCH_STAMP): | $(BIN)/python
	@if $(BIN)/python -c "import importlib.metadata as m; print('torch', m.version('torch'), end='')" \
	    2>/dev/null; then echo " is installed already: left as it is."; \
	elif [ "$(TORCH_BUILD)" = cpu ]; then \
	    echo "PyTorch: the CPU build, from $(TORCH_CPU_INDEX)$(if $(filter auto,$(TORCH)), (no nvidia-smi here that finds a GPU)) - TORCH=cuda picks the CUDA build"; \
	    $(BIN)/python -m pip install -q --no-deps torch --index-url $(TORCH_CPU_INDEX); \
	    $(BIN)/python tools/torch_build.py cpu --index $(TORCH_CPU_INDEX) || exit 1; \
	else echo "PyTorch: PyPI's build, for $(TORCH_BUILD) (TORCH=cpu for the CPU build)"; fi
	@touch $@

$(LAB_STAMP): pyproject.toml $(TORCH_STAMP)
	$(BIN)/python -m pip install -q -e ".[lab]"
	@touch $@

$(TEST_STAMP): pyproject.toml $(TORCH_STAMP)
	$(BIN)/python -m pip install -q -e ".[test,lab]"
	@touch $@

## Open the course: JupyterLab on notebooks/, with RISE (Alt+R: live slides) in a theme that needs no network (TORCH=cpu|cuda picks PyTorch's build)
lab: $(LAB_STAMP) $(CHECKS_MO)
	$(BIN)/jupyter lab notebooks/ --LabApp.app_settings_dir=$(CURDIR)/tools/lab_settings $$([ "$$(id -u)" = 0 ] && echo --allow-root)

# The whole run is an AVX2 laptop's, the commonest learner machine, where this CPU can be one
# (torch's AVX2 kernels, numpy without AVX-512, OpenBLAS's Haswell core: tests/cpu_paths.py);
# the stored outputs come from `make notebooks` on the maintainer's own CPU, and the Colab
# simulation runs them again as an older CPU on one thread. COURSE_BUSY=2: the cells that time
# something run beside two CPU-bound processes (tests/busy_timing.py). Python may write bytecode
# (-u PYTHONDONTWRITEBYTECODE): the suite starts hundreds of Pythons that import torch.
## Every test: lint, unit tests and nbval (strict) on every notebook
test: $(TEST_STAMP) $(CHECKS_MO)
	$(BIN)/ruff check helpers tests tools notebooks
	env -u PYTHONDONTWRITEBYTECODE $$($(BIN)/python tests/cpu_paths.py --laptop-env) \
	COURSE_DEVICE=cpu COURSE_GPT2=tiny COURSE_RECORD=0 COURSE_BUSY=2 $(BIN)/python -m pytest -n $(JOBS) --dist loadscope --durations=10 tests $(NOTEBOOKS) $(NBVAL)

## Only the unit tests (quick)
unit: $(TEST_STAMP) $(CHECKS_MO)
	$(BIN)/python -m pytest -n $(JOBS) --dist loadscope tests

## Only nbval on the notebooks
nbval: $(TEST_STAMP) $(CHECKS_MO)
	COURSE_DEVICE=cpu COURSE_GPT2=tiny COURSE_RECORD=0 $(BIN)/python -m pytest -n $(JOBS) --dist loadscope $(NOTEBOOKS) $(NBVAL)

## Only the linter (ruff) on helpers, tests, tools and notebooks
lint: $(TEST_STAMP)
	$(BIN)/ruff check helpers tests tools notebooks

## Re-execute notebooks in place and store their outputs (NB=03 for one; FORCE=1 rewrites one with uncommitted changes)
notebooks: $(TEST_STAMP) $(CHECKS_MO)
	$(BIN)/python tools/sync_notebooks.py $(NB)
	$(BIN)/python tools/run_notebooks.py $(NB)
	$(BIN)/python tools/slide_layout.py $(NB)
	$(BIN)/python tools/section_minutes.py
	$(BIN)/python tools/claims.py

# With Babel, which the lab's and the tests' packages hold (each target above installs them first);
# the wheel's build compiles it too (setup.py).
$(CHECKS_MO): locale/ko/LC_MESSAGES/checks.po tools/compile_catalogs.py
	$(RUN_PYTHON) tools/compile_catalogs.py
	@touch $@

## The Korean edition: notebooks/ko/ made from locale/ko/LC_MESSAGES/*.po and executed (NB=03 for one)
ko: $(TEST_STAMP) $(CHECKS_MO)
	$(BIN)/python tools/translations.py build $(NB)

## The Korean edition's missing, fuzzy and obsolete entries and changed code cells (exit 1 if any)
ko-status:
	@$(RUN_PYTHON) tools/translations.py status $(NB)

## Bring the Korean catalogs in step with the English notebooks and checks (changed English: fuzzy)
ko-extract:
	@$(RUN_PYTHON) tools/translations.py extract

## Put notebooks back as last committed (NB=03 for one): says what it discards and keeps a copy in build/reset/
reset:
	@$(RUN_PYTHON) tools/reset_notebooks.py $(NB)

## Rewrite docs/CLAIMS.md, the ledger of the source posts' claims and the cells that check them
claims: $(TEST_STAMP)
	$(BIN)/python tools/claims.py

## Only rewrite badges and setup cells (the Korean notebooks' too), no execution (NB=03 for one; FORCE=1 as for notebooks)
sync: $(TEST_STAMP)
	$(BIN)/python tools/sync_notebooks.py $(NB)
	$(BIN)/python tools/section_minutes.py

## Benchmarks: ratios from one run, demo redraws, the time to re-execute every notebook
bench: $(TEST_STAMP)
	$(BIN)/python tools/bench_all.py

## On a CUDA GPU: every notebook (asserts only) and the benchmark there; report in build/gpu-check/
gpu-check:
	@$(RUN_PYTHON) tools/gpu_check.py

## Build the sdist and wheel into dist/ and run the Colab simulation on that wheel (before a release)
release-check: $(TEST_STAMP)
	rm -rf dist
	$(BIN)/python -m build -q --outdir dist .
	$(BIN)/python tools/colab_check.py dist/*.whl

## Two reveal.js decks per notebook in slides/ (NN_name.slides.html, and .projector.slides.html: 24 px text, 18 px code for a room), the Korean edition's in slides/ko/, opening from disk with no network (npm fetches reveal.js, MathJax and the Hangul font once)
slides: $(TEST_STAMP) $(CHECKS_MO)
	$(BIN)/python tools/build_slides.py

## Set every cell's slide type from its content (NB=05 for one notebook), so that each slide fits 1280x720
slide-layout: $(TEST_STAMP)
	$(BIN)/python tools/slide_layout.py $(NB)

## Retrain notebook 12's fact model (a few minutes on CPU) into build/fact_model/; REPLACE=1 overwrites the shipped data/fact_model/
train-model: $(LAB_STAMP)
	$(BIN)/python tools/train_fact_model.py

## Start notebook NAME (my_topic; TITLE="..." POSTS=1,3): skeleton, check, demo, test, README/INSTRUCTOR/SOURCES entries
new-notebook:
	@test -n "$(NAME)" || { echo 'usage: make new-notebook NAME=my_topic [TITLE="My topic"] [POSTS=1,3]'; exit 2; }
	PYTHONPATH=$(CURDIR)$${PYTHONPATH:+:$$PYTHONPATH} $(RUN_PYTHON) tools/new_notebook.py $(NAME) \
		$(if $(TITLE),--title "$(TITLE)") --posts $(or $(POSTS),1)

## Remove what builds leave behind (build/, dist/, slides/, caches; build/reset/ too)
clean:
	rm -rf build dist *.egg-info .pytest_cache slides

## List the targets and what each does
help:
	@echo "Inside the Transformer MLP: \`make lab\` opens the course, \`make test\` runs every test."
	@echo "(\`make\` alone creates the environment for \`make lab\`, .venv.)"
	@echo
	@awk '/^## /{doc = substr($$0, 4); next} \
	      /^[a-z][a-z-]*:/ && doc {sub(/:.*/, "", $$1); printf "  make %-15s %s\n", $$1, doc} \
	      {doc = ""}' $(firstword $(MAKEFILE_LIST))
