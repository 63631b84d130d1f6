"""The cross-check against scikit-multilearn and scikit-learn: it runs on the paper's own splits,
agrees with ours where it should, and says in numbers why where it does not."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mlhidden.errors import UserError
from mlhidden.methods import BR, CC
from mlhidden.paper import crosscheck
from mlhidden.paper.crosscheck import IMPLEMENTATIONS, crosscheck_config, fit_theirs, run_crosscheck
from mlhidden.paper.crosscheck_table import (
    TOLERANCE,
    crosscheck_table,
    disagreement_reason,
    stored_blas_note,
    with_gaps,
)
from mlhidden.runs.splits import Split

PROJECT_ROOT = Path(__file__).resolve().parents[2]
CONFIGS = PROJECT_ROOT / "configs"
needs_skmultilearn = pytest.mark.skipif(
    importlib.util.find_spec("skmultilearn") is None,
    reason="scikit-multilearn is not installed (pip install -e '.[crosscheck]')",
)



def agreement_ok(frame: pd.DataFrame, methods=("BR", "CC"), tolerance: float = TOLERANCE) -> bool:
    """Whether every cell of ``methods`` is within ``tolerance`` or agrees entry for entry after the tight refit."""
    cells = with_gaps(frame)
    cells = cells[cells["method"].isin(methods)]
    return bool(np.all((cells["gap"] <= tolerance) | (cells["tight_agreement"] == 1.0)))


@needs_skmultilearn
def test_logical_agrees_entry_for_entry_on_the_paper_splits(tmp_path):
    frame = run_crosscheck(
        ("b_liblinear_C1",), ("Logical",), splits=2, config_dir=CONFIGS, stored_path=tmp_path / "none.csv"
    )
    assert len(frame) == 2 * 5  # splits x (2 BR + 2 CC + 1 LP implementations)
    assert set(frame["implementation"]) == {name for pairs in IMPLEMENTATIONS.values() for name, _ in pairs}
    assert (frame["agreement"] == 1.0).all()
    assert (with_gaps(frame)["gap"] == 0).all()
    assert frame["tight_agreement"].isna().all()  # no cell needed the tight refit


def test_the_splits_are_the_paper_runs():
    """The same splits and label orders the stored paper run recorded (results/paper/run.json's seeds)."""
    from mlhidden.experiment.runner import load_datasets

    config = crosscheck_config("b_liblinear_C1", ("Logical",), splits=2, config_dir=CONFIGS)
    plans, _ = load_datasets(config)
    assert [split.seed for split in plans[0].splits] == [532984232, 1333396798]
    assert [m.resolved.base["params"] for m in config.methods[:2]] == [{"C": 1.0, "solver": "liblinear"}] * 2
    assert config.methods[2].resolved.base["name"] == "sklearn.multiclass.OneVsRestClassifier"


@needs_skmultilearn
def test_a_label_constant_in_training_gets_the_constant_ours_gives():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(60, 4))
    Y = np.column_stack([X[:, 0] > 0, X[:, 1] > 0.3, np.zeros(60)]).astype(np.int8)
    Y[-1, 2] = 1  # positive only in a test row
    split = Split(0, 1, np.arange(40), np.arange(40, 60), np.arange(3))
    base = {"name": "logistic", "params": {"solver": "liblinear"}}
    for method, ours in (("BR", BR(base)), ("CC", CC(base))):
        predicted = ours.fit(X[:40], Y[:40]).predict(X[40:])
        for _, build in IMPLEMENTATIONS[method]:
            theirs, models, _ = fit_theirs(build, base, X, Y, split)
            np.testing.assert_array_equal(theirs, predicted)
            assert models[2] is None


def test_a_missing_scikit_multilearn_is_one_line_with_the_fix(monkeypatch):
    monkeypatch.setitem(sys.modules, "skmultilearn", None)
    build = IMPLEMENTATIONS["BR"][0][1]
    with pytest.raises(UserError, match=r"scikit-multilearn.*\[crosscheck\]"):
        build(None, False)


def _cells(gap_rows, tight):
    """Cells of one method: a 1-row flip on 237 test rows, the rest identical."""
    base = {"setting": "a", "method": "BR", "implementation": "x", "test_rows": 237, "labels": 6, "constant_labels": 0,
            "unconverged_models": 0, "boundary_margin": np.nan, "tight_agreement": np.nan}
    rows = [
        {
            **base,
            "dataset": "Music",
            "split": i,
            "ours_exact_match": 0.3,
            "theirs_exact_match": 0.3,
            "ours_hamming_score": 0.8,
            "theirs_hamming_score": 0.8,
            "agreement": 1.0,
            "rows_agreement": 1.0,
            "flipped_entries": 0,
        }
        for i in range(3)
    ]
    for i in range(gap_rows):
        rows[i].update(
            theirs_exact_match=0.3 - 1 / 237,
            agreement=1 - 1 / 1422,
            rows_agreement=1 - 1 / 237,
            flipped_entries=1,
            boundary_margin=0.0031,
            tight_agreement=tight,
        )
    return pd.DataFrame(rows).assign(
        stored_exact_match=np.nan, stored_hamming_score=np.nan, ours_seconds=0.1, theirs_seconds=0.1
    )


def test_the_reason_is_computed_from_the_cells():
    assert disagreement_reason(with_gaps(_cells(0, np.nan))).startswith("within 0.002")
    explained = disagreement_reason(with_gaps(_cells(1, 1.0)))
    assert explained.startswith("solver tolerance") and "1 of 237 rows" in explained and "0.0031" in explained
    assert disagreement_reason(with_gaps(_cells(2, 0.9))).startswith("NOT solver tolerance: 2 cells")
    assert agreement_ok(_cells(1, 1.0)) and not agreement_ok(_cells(1, 0.9))


def test_the_table_has_a_row_per_method_and_implementation_and_no_broken_cells():
    frame = pd.concat([_cells(1, 1.0), _cells(0, np.nan).assign(method="CC")])
    table = crosscheck_table(frame, wall_seconds=12.0)
    rows = [line for line in table.splitlines() if line.startswith("| a ")]
    assert len(rows) == 2 and all(line.count("|") == 10 for line in rows)  # 9 columns: no '|' inside a cell
    assert "0.0042" in rows[0] and "Run time: 12 s wall" in table


@pytest.mark.parametrize(
    "backend", [None, [1], {"name": "loky", "blas": None}, {"name": "loky", "blas": {"libraries": 3}}]
)
def test_the_blas_note_reads_a_stored_run_json_whose_backend_is_mistyped(tmp_path, backend):
    record = json.loads((PROJECT_ROOT / "results/paper/run.json").read_text())
    (tmp_path / "run.json").write_text(json.dumps({**record, "backend": backend}))
    note = stored_blas_note(_cells(0, np.nan).assign(stored_exact_match=0.25), tmp_path)
    assert note == "Our refit vs the stored unit (results/paper/units.csv): 3 units, 3 differ, by at most 0.0500."


@needs_skmultilearn
def test_the_stored_unit_is_put_beside_the_refit(tmp_path):
    """A stored unit is matched by dataset checksum, parameters and split; a changed stored score shows as a gap."""
    frame = run_crosscheck(("b_liblinear_C1",), ("Logical",), splits=1, methods=("BR",), config_dir=CONFIGS,
                           stored_path=PROJECT_ROOT / "results/paper/units.csv")
    assert (frame["stored_exact_match"] == frame["ours_exact_match"]).all()
    units = pd.read_csv(PROJECT_ROOT / "results/paper/units.csv")
    units.loc[(units["dataset"] == "Logical") & (units["method"] == "BR") & (units["split"] == 0), "exact_match"] += (
        0.125
    )
    units.to_csv(tmp_path / "units.csv", index=False)
    changed = run_crosscheck(
        ("b_liblinear_C1",),
        ("Logical",),
        splits=1,
        methods=("BR",),
        config_dir=CONFIGS,
        stored_path=tmp_path / "units.csv",
    )
    assert np.allclose(with_gaps(changed)["stored_gap_exact_match"], 0.125)


@needs_skmultilearn
def test_the_script_writes_the_csv_and_the_table(tmp_path, monkeypatch):
    monkeypatch.chdir(PROJECT_ROOT)
    out = tmp_path / "crosscheck.csv"
    assert (
        crosscheck.main(
            [
                "--out",
                str(out),
                "--datasets",
                "Logical",
                "--splits",
                "1",
                "--settings",
                "a_lbfgs_C1",
                "--methods",
                "BR",
                "LP",
                "--quiet",
            ]
        )
        == 0
    )
    assert len(pd.read_csv(out)) == 3
    assert "| a_lbfgs_C1" in out.with_suffix(".md").read_text()


@pytest.mark.slow
@needs_skmultilearn
def test_br_and_cc_agree_with_both_libraries_on_music():
    frame = run_crosscheck(datasets=("Music",), splits=2, config_dir=CONFIGS)
    assert set(frame["setting"]) == {"a_lbfgs_C1", "j_paper_era"}
    assert agreement_ok(frame, ("BR", "CC"))
    assert frame.loc[frame["method"].isin(["BR", "CC"]), "agreement"].min() > 0.99


def test_the_report_section_shows_the_committed_cross_check_and_says_when_there_is_none(tmp_path):
    import shutil

    from mlhidden.paper.report_md import crosscheck_section

    assert "Not run for this folder" in crosscheck_section(tmp_path)
    shutil.copy("results/crosscheck.csv", tmp_path / "crosscheck.csv")
    section = crosscheck_section(tmp_path)
    assert "The largest disagreement in a cell, per method: BR " in section
    assert "skmultilearn" in section.lower() and "| j_paper_era" in section
