"""Fits shared between methods on a split: really reused, and the results bit-identical to fitting alone."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from mlhidden.data import load_dataset
from mlhidden.experiment.config import parse_config
from mlhidden.experiment.parallel_units import run_unit
from mlhidden.experiment.runner import SHARED_FITS_DIR, run_experiment
from mlhidden.methods.shared_fits import SharedFits, digest
from mlhidden.runs.metrics import SCORES
from mlhidden.runs.splits import SplitRecipe
from mlhidden.runs.store import KEY_COLUMNS, load_results

# (method that fits the piece first, method that reuses it)
SHARING_PAIRS = [("CC", "PCC"), ("CCASL", "CCASL+BR"), ("CCASL", "CCASL+AML"), ("CCASL", "PCCASL"), ("BR", "MBR")]


@pytest.fixture(scope="module")
def music_split(mirror_dir):
    music = load_dataset("Music", data_dir=mirror_dir)
    return music, SplitRecipe(0, 1).splits("Music", music.Y)[0]


def _unit(data, split, name, shared_dir=None):
    method = parse_config({"name": "t", "datasets": ["Logical"], "methods": [name]}).methods[0]
    result = run_unit(data.X, data.Y, split, method, None if shared_dir is None else SharedFits(shared_dir))
    assert result.status == "ok", result.error
    return result


@pytest.mark.parametrize(("first", "reuser"), SHARING_PAIRS)
def test_a_reused_fit_gives_the_same_results_as_fitting_alone(first, reuser, music_split, tmp_path):
    data, split = music_split
    alone = _unit(data, split, reuser)
    _unit(data, split, first, tmp_path)
    shared = _unit(data, split, reuser, tmp_path)
    assert alone.reused_seconds == 0 and shared.reused_seconds is not None and shared.reused_seconds > 0
    assert {k: getattr(shared, k) for k in SCORES} == {k: getattr(alone, k) for k in SCORES}


def test_methods_that_fit_different_pieces_share_nothing(music_split, tmp_path):
    data, split = music_split
    _unit(data, split, "CC", tmp_path)
    assert _unit(data, split, "BR", tmp_path).reused_seconds == 0
    assert _unit(data, split, "ELM", tmp_path).reused_seconds == 0


def test_a_run_with_shared_fits_stores_what_a_run_without_them_stores(tmp_path, mirror_dir):
    config = parse_config({
        "name": "shared", "datasets": ["Logical", "Music", "Medical"], "splits": 2, "seed": 5,
        "methods": ["BR", "CC", "PCC", "CCASL", "CCASL+BR", "CCASL+AML", "MBR"],
    }, data_dir=mirror_dir)
    summaries = {
        share: run_experiment(config, tmp_path / str(share), n_jobs=2, share_fits=share)
        for share in (True, False)
    }
    assert summaries[True].reused_seconds > 0 and summaries[False].reused_seconds == 0
    assert not (tmp_path / "True" / SHARED_FITS_DIR).exists()
    scores = [
        load_results(tmp_path / str(share))
        .units[[*KEY_COLUMNS, "status", *SCORES]]
        .sort_values(list(KEY_COLUMNS))
        .reset_index(drop=True)
        for share in (True, False)
    ]
    assert (scores[0]["status"] == "ok").all()
    pd.testing.assert_frame_equal(scores[0], scores[1], check_exact=True)


def test_the_digest_tells_arrays_apart_by_content_shape_and_type():
    a = np.arange(6, dtype=float).reshape(2, 3)
    assert digest(a) == digest(a.copy()) == digest(np.asfortranarray(a))
    assert digest(a) != digest(a.reshape(3, 2))
    assert digest(a) != digest(a.astype(np.float32))
    assert digest(a) != digest(sp.csr_matrix(a))
    assert digest(sp.csr_matrix(a)) == digest(sp.csc_matrix(a))
    assert digest(a, None) != digest(None, a)
    changed = a.copy()
    changed[1, 2] += 1e-12
    assert digest(a) != digest(changed)


def _fit_in_another_process(folder, log, started):
    """A worker of the same run needing the same fit: it records each time it really computes."""
    import time

    from mlhidden.methods.shared_fits import SharedFits

    def compute():
        with open(log, "a") as file:
            file.write("computed\n")
        time.sleep(0.5)
        return np.arange(3)

    started.set()
    return SharedFits(folder).get_or_compute("chain", "k" * 40, compute)


def test_a_fit_being_computed_by_another_process_is_waited_for_not_computed_again(tmp_path):
    """Two processes asking for one fit at once: the second waits for the first's and reuses it."""
    import multiprocessing

    from mlhidden.methods.shared_fits import SharedFits

    log = tmp_path / "log.txt"
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    started = context.Event()
    other = context.Process(target=_fit_in_another_process, args=(tmp_path / "fits", log, started))
    other.start()
    try:
        assert started.wait(30)
        while not log.exists():  # the other process is inside its fit now
            assert other.is_alive()
        here = SharedFits(tmp_path / "fits")
        value = here.get_or_compute("chain", "k" * 40, lambda: (log.open("a").write("computed\n"), np.arange(3))[1])
    finally:
        other.join(30)
    assert log.read_text().splitlines() == ["computed"]
    assert value.tolist() == [0, 1, 2] and here.n_reused == 1 and here.reused_seconds >= 0.5
