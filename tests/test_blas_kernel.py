"""The OpenBLAS kernel is chosen from the CPU's flags before numpy loads, and run.json names it."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mlhidden.blas_kernel import CPUINFO, KERNEL_FLAGS, choose_kernel, cpu_flags, widest_kernel
from mlhidden.runs.provenance import provenance_line, read_run_json

ROOT = Path(__file__).resolve().parents[1]
# The flags Linux lists for four CPUs (the relevant ones, plus neighbours that are not enough).
SANDY_BRIDGE = frozenset("sse4_1 sse4_2 popcnt aes avx xsave".split())
ZEN_3 = SANDY_BRIDGE | frozenset("avx2 fma bmi1 bmi2 f16c sha_ni vaes".split())
ICE_LAKE = ZEN_3 | frozenset("avx512f avx512cd avx512bw avx512dq avx512vl avx512ifma avx512vbmi".split())
KNIGHTS_LANDING = ZEN_3 | frozenset("avx512f avx512cd avx512er avx512pf".split())  # no bw, dq, vl


@pytest.mark.parametrize(
    ("flags", "kernel"),
    [(ICE_LAKE, "SkylakeX"), (KNIGHTS_LANDING, "Haswell"), (ZEN_3, "Haswell"), (SANDY_BRIDGE, "Sandybridge")],
)
def test_auto_picks_the_widest_family_whose_every_flag_the_cpu_has(flags, kernel):
    assert choose_kernel({}, flags, numpy_loaded=False) == {
        "kernel": kernel, "chosen_by": "auto, the widest family this CPU's flags allow"
    }


def test_a_cpu_without_every_avx512_flag_never_gets_an_avx512_kernel():
    avx512 = dict(KERNEL_FLAGS)["SkylakeX"]
    for flag in avx512:
        assert widest_kernel(ICE_LAKE - {flag}) == "Haswell"
    assert widest_kernel(SANDY_BRIDGE - {"avx"}) is None
    assert choose_kernel({}, frozenset({"sse2"}), numpy_loaded=False)["kernel"] is None
    with pytest.warns(UserWarning, match=r"MLHIDDEN_BLAS_KERNEL=SkylakeX needs CPU flags .*avx512bw"):
        refused = choose_kernel({"MLHIDDEN_BLAS_KERNEL": "SkylakeX"}, KNIGHTS_LANDING, numpy_loaded=False)
    assert refused["kernel"] is None


def test_a_coretype_already_set_and_numpy_loaded_first_are_left_alone():
    set_by_user = {"OPENBLAS_CORETYPE": "Haswell", "MLHIDDEN_BLAS_KERNEL": "SkylakeX"}
    assert choose_kernel(set_by_user, ICE_LAKE, numpy_loaded=False)["kernel"] == "Haswell"
    assert choose_kernel({}, ICE_LAKE, numpy_loaded=True)["kernel"] is None
    assert choose_kernel({"MLHIDDEN_BLAS_KERNEL": "openblas"}, ICE_LAKE, numpy_loaded=False)["kernel"] is None


@pytest.mark.skipif(platform.machine() != "x86_64" or not CPUINFO.exists(), reason="x86-64 Linux lists its flags")
def test_the_flags_read_are_this_machines():
    flags = cpu_flags()
    assert flags is not None and {"fpu", "sse2"} <= flags


def _run_in_a_fresh_python(tmp_path: Path, kernel: str) -> dict[str, Any]:
    """``mlhidden run`` in a new process with ``MLHIDDEN_BLAS_KERNEL=kernel``; its run.json."""
    env = {key: value for key, value in os.environ.items() if key != "OPENBLAS_CORETYPE"}
    env["MLHIDDEN_BLAS_KERNEL"] = kernel
    subprocess.run(
        [sys.executable, "-m", "mlhidden", "run", "-d", "Logical", "-m", "BR", "--splits", "1", "--n-jobs", "1",
         "-q", "--out", str(tmp_path / kernel)],
        cwd=ROOT, env=env, check=True, capture_output=True, timeout=300,
    )
    return read_run_json(tmp_path / kernel)


def test_run_json_names_the_kernel_mlhidden_set_and_the_kernel_openblas_ran(tmp_path):
    if "avx" not in (cpu_flags() or ()):
        pytest.skip("the Sandybridge kernels need AVX")
    record = _run_in_a_fresh_python(tmp_path, "Sandybridge")
    blas = record["backend"]["blas"]
    assert blas["kernel"] == {"kernel": "Sandybridge", "chosen_by": "MLHIDDEN_BLAS_KERNEL"}
    openblas = [lib for lib in blas["libraries"] if lib.get("internal_api") == "openblas"]
    assert openblas and {lib["architecture"] for lib in openblas} == {"Sandybridge"}
    assert "BLAS kernels Sandybridge (chosen by MLHIDDEN_BLAS_KERNEL)" in provenance_line(record)
