# Everything runs inside a project-local virtual environment created on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# The paper's datasets ship in datasets/; BENCH_ARGS="--data-dir D" benchmarks another copy.
N_JOBS ?= -1

.PHONY: venv test test-all test-lowest fuzz smoke reproduce sensitivity multiverse bench docs clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

venv: $(VENV)/.installed

## make test: lint (ruff), type check (mypy), then the default test suite on every core with coverage per package (what CI runs)
test: venv
	$(BIN)/ruff check .
	$(BIN)/mypy mlhidden
	$(BIN)/python -m pytest -q -n auto --durations=20 --cov --cov-report=term:skip-covered
	$(BIN)/python tests/coverage_by_package.py

## make docs: the documentation site (mkdocs.yml, pages in docs/) into site/, warnings as errors: a broken link or anchor fails; the CLI reference is generated from the commands
$(VENV)/.docs-installed: $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e '.[docs]'
	touch $@

docs: $(VENV)/.docs-installed
	$(BIN)/mkdocs build --strict --quiet

## make test-all: also the slow tests (every method on every mirror dataset, ...)
test-all: venv
	$(BIN)/python -m pytest -q -m ''

## make test-lowest: the method, solver and store tests on the lowest releases pyproject.toml admits (.ci/lowest-constraints.txt), in .venv-lowest
LOWEST_VENV ?= .venv-lowest
LOWEST_TESTS := tests/methods/test_sklearn_api.py tests/methods/test_methods.py tests/methods/test_batched_logistic.py \
	tests/methods/test_batched_tron.py tests/methods/test_batched_logistic_cv.py tests/methods/test_sklearn_parity.py \
	tests/methods/test_compact_forest.py tests/runs/test_store_faults.py tests/runs/test_stored_predictions.py \
	tests/data/test_arff.py tests/data/test_arff_faults.py tests/data/test_arff_weka_reading.py
$(LOWEST_VENV)/.installed: pyproject.toml .ci/lowest-constraints.txt
	$(PYTHON) -m venv $(LOWEST_VENV)
	$(LOWEST_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(LOWEST_VENV)/bin/python -m pip install --quiet -c .ci/lowest-constraints.txt -e . pytest hypothesis
	touch $@

test-lowest: $(LOWEST_VENV)/.installed
	$(LOWEST_VENV)/bin/python -m pytest -q -p no:cacheprovider $(LOWEST_TESTS)

## make fuzz: the ARFF reader fuzz tests with FUZZ_EXAMPLES examples each (the default suite runs 120)
FUZZ_EXAMPLES ?= 20000
fuzz: venv
	MLHIDDEN_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/python -m pytest -q tests/data/test_fuzz_arff.py --hypothesis-show-statistics

## make smoke: the Logical smoke run, tables under results/smoke/ (which git ignores)
smoke: venv
	$(BIN)/mlhidden run --config configs/smoke.yaml --out results/smoke --n-jobs $(N_JOBS) --quiet

## make reproduce: every table and figure of the paper and results/REPORT.md (QUICK=1: a few minutes, under results/quick/; SETTING=name: under that setting of configs/sensitivity.yaml, not its primary one)
reproduce: venv
	$(BIN)/mlhidden reproduce $(if $(QUICK),--quick) $(if $(SETTING),--setting $(SETTING)) --n-jobs $(N_JOBS) --quiet

## make sensitivity: the claim-bearing runs once per base-learner setting (configs/sensitivity.yaml) -> results/sensitivity/ (QUICK=1: a small slice, results/quick/sensitivity/)
sensitivity: venv
	$(BIN)/mlhidden sensitivity $(if $(QUICK),--quick) --n-jobs $(N_JOBS) --quiet

## make multiverse: the claim-bearing runs once per distinct setting and split seed (configs/multiverse.yaml) -> results/multiverse/<setting>/seed<k>/<run>/, resumable (QUICK=1: the quick slice, results/quick/multiverse/; DRY_RUN=1: its cost in CPU-hours, nothing run)
multiverse: venv
	$(BIN)/mlhidden multiverse $(if $(QUICK),--quick) $(if $(DRY_RUN),--dry-run) --n-jobs $(N_JOBS) --quiet

## make bench: speed vs scikit-learn on split 0 of the real datasets, each part of a run against its floor at this
## core's peak, dispatch simulated, shared fits at 1 and all workers, cost priors against the committed runs,
## the ARFF reader against its old row path and pandas' C parser
## -> benchmarks/results.md (BENCH_ARGS=--quick: a check that they run, a small slice of each -> results/quick/benchmarks.md)
BENCH_ARGS ?=
BENCH_QUICK := $(filter --quick,$(BENCH_ARGS))
bench: venv
	$(BIN)/python -m benchmarks.run $(BENCH_ARGS)
	$(BIN)/python -m benchmarks.dispatch $(BENCH_QUICK)
	$(BIN)/python -m benchmarks.arff_read $(BENCH_QUICK)
	$(BIN)/python -m benchmarks.shared_fits $(BENCH_QUICK)
	$(BIN)/python -m benchmarks.cost_priors $(BENCH_QUICK)
	$(BIN)/python -m benchmarks.single_exp $(BENCH_QUICK)

clean:
	rm -rf $(VENV) $(LOWEST_VENV) .pytest_cache site
