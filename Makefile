# Everything runs inside a project-local virtual environment created on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DATA_MIRROR ?= ../shared/datasets
DATA_DIR ?= datasets
N_JOBS ?= -1
REPRODUCE_CONFIGS ?= configs/smoke.yaml configs/paper.yaml

export MLHIDDEN_DATA := $(abspath $(DATA_DIR))

.PHONY: venv test test-all smoke datasets reproduce clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

venv: $(VENV)/.installed

## make test: the default test suite (what CI runs)
test: venv
	$(BIN)/python -m pytest -q

## make test-all: also the slow tests (every method on every mirror dataset, ...)
test-all: venv
	$(BIN)/python -m pytest -q -m ''

## make smoke: the Logical smoke run, tables under results/smoke/
smoke: venv
	$(BIN)/mlhidden run --config configs/smoke.yaml --out results/smoke --n-jobs $(N_JOBS) --quiet

## make datasets: copy and verify the real datasets from $(DATA_MIRROR) into $(DATA_DIR)
datasets: venv
	$(BIN)/mlhidden datasets fetch --mirror $(DATA_MIRROR) --data-dir $(DATA_DIR)

## make reproduce: the paper's experiments, tables under results/<config name>/
reproduce: venv datasets
	@for config in $(REPRODUCE_CONFIGS); do \
		echo "== $$config"; \
		$(BIN)/mlhidden run --config $$config --n-jobs $(N_JOBS) --quiet || exit $$?; \
	done

clean:
	rm -rf $(VENV) .pytest_cache
