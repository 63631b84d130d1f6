"""Which OpenBLAS kernels numpy and scipy compute with: a choice made from the CPU's flags before numpy loads.

The OpenBLAS in numpy's and scipy's wheels picks its kernels when it loads, from the CPU model,
and falls back to narrower ones on models it does not know: a Zen 5, which has AVX-512, gets the
Haswell (AVX2) kernels. Kernels differ in the order of their floating-point sums, so two runs
are bit-identical only on the same kernel, and the narrower ones are slower.
``OPENBLAS_CORETYPE`` overrides OpenBLAS's choice when it is set before OpenBLAS loads; child
processes (loky's workers) inherit it. So mlhidden sets it as the package loads, to the widest
kernel family the CPU's flags allow: every AVX-512 machine then computes with the SkylakeX
kernels, every AVX2 one with Haswell's, whatever OpenBLAS makes of its model.

``MLHIDDEN_BLAS_KERNEL`` chooses otherwise: ``auto`` (the default), ``openblas`` (OpenBLAS's own
choice) or a kernel name. A ``OPENBLAS_CORETYPE`` already set is left as it is. Where numpy was
loaded before mlhidden (mlhidden used as a library), its kernels are already fixed: the choice
only records that. This module imports nothing but the standard library, as it runs before numpy.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Mapping, MutableMapping
from pathlib import Path

KERNEL_ENV = "MLHIDDEN_BLAS_KERNEL"
CORETYPE_ENV = "OPENBLAS_CORETYPE"
CPUINFO = Path("/proc/cpuinfo")
KERNEL_FLAGS = (
    ("SkylakeX", frozenset({"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"})),
    ("Haswell", frozenset({"avx2", "fma"})),
    ("Sandybridge", frozenset({"avx"})),
)
"""OpenBLAS's x86-64 kernel families, widest first, with the CPU flags (Linux's names) each needs."""

_choice: dict[str, str | None] = {"kernel": None, "chosen_by": "not chosen: mlhidden's start-up did not run"}


def cpu_flags(cpuinfo: Path = CPUINFO) -> frozenset[str] | None:
    """The CPU's feature flags as Linux lists them (those the kernel enabled), or None where unknown."""
    try:
        text = cpuinfo.read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        name, _, value = line.partition(":")
        if name.strip() == "flags":
            return frozenset(value.split())
    return None


def widest_kernel(flags: frozenset[str]) -> str | None:
    """The widest kernel family in :data:`KERNEL_FLAGS` whose every flag the CPU has, else None."""
    return next((kernel for kernel, needed in KERNEL_FLAGS if needed <= flags), None)


def _missing_flags(kernel: str, flags: frozenset[str] | None) -> frozenset[str]:
    """The flags ``kernel`` needs that the CPU lacks (none for kernels not in :data:`KERNEL_FLAGS`)."""
    needed = dict(KERNEL_FLAGS).get(kernel, frozenset())
    return frozenset() if flags is None else needed - flags


def choose_kernel(
    environ: Mapping[str, str], flags: frozenset[str] | None, numpy_loaded: bool
) -> dict[str, str | None]:
    """The kernel to set as ``OPENBLAS_CORETYPE`` (None: set nothing) and why, as run.json records it.

    A kernel named in ``MLHIDDEN_BLAS_KERNEL`` that the CPU cannot run is refused with a warning:
    OpenBLAS would crash on its first instruction, or quietly pick another.
    """
    requested = environ.get(KERNEL_ENV, "auto").strip() or "auto"
    if environ.get(CORETYPE_ENV):
        return {"kernel": environ[CORETYPE_ENV], "chosen_by": f"{CORETYPE_ENV}, set before mlhidden started"}
    if numpy_loaded:
        return {"kernel": None, "chosen_by": "OpenBLAS itself: numpy was loaded before mlhidden, too late to choose"}
    if requested.lower() == "openblas":
        return {"kernel": None, "chosen_by": f"OpenBLAS itself ({KERNEL_ENV}=openblas)"}
    if requested.lower() != "auto":
        lacking = ", ".join(sorted(_missing_flags(requested, flags)))
        if lacking:
            why = f"{KERNEL_ENV}={requested} needs CPU flags this CPU lacks ({lacking})"
            warnings.warn(f"{why}; OpenBLAS chooses its kernels itself", stacklevel=3)
            return {"kernel": None, "chosen_by": f"OpenBLAS itself: {why}"}
        return {"kernel": requested, "chosen_by": KERNEL_ENV}
    kernel = widest_kernel(flags) if flags is not None else None
    if kernel is None:
        return {"kernel": None, "chosen_by": "OpenBLAS itself: no AVX kernel family fits this CPU's flags"}
    return {"kernel": kernel, "chosen_by": "auto, the widest family this CPU's flags allow"}


def set_blas_kernel(environ: MutableMapping[str, str] = os.environ) -> dict[str, str | None]:
    """Choose the kernel (:func:`choose_kernel`), set it in ``environ`` and keep the choice for :func:`blas_kernel`."""
    global _choice
    numpy_loaded = "numpy" in sys.modules
    _choice = choose_kernel(environ, cpu_flags(), numpy_loaded)
    if _choice["kernel"] is not None:
        environ[CORETYPE_ENV] = _choice["kernel"]
    elif numpy_loaded:
        environ[KERNEL_ENV] = "openblas"  # worker processes: the kernel OpenBLAS chose here, not another
    return dict(_choice)


def blas_kernel() -> dict[str, str | None]:
    """The kernel chosen when mlhidden started (None: OpenBLAS's own) and why."""
    return dict(_choice)
