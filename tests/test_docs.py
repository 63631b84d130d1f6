"""The README's Python example runs as printed (a paper method in a Pipeline inside cross_validate)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_python_example_runs(mirror_dir, monkeypatch, capsys):
    readme = README.read_text(encoding="utf-8")
    section = readme.split("## Benchmark your own method against the paper", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)
    monkeypatch.setenv("MLHIDDEN_DATA", str(mirror_dir))
    namespace = {}
    exec(compile(code, "README.md", "exec"), namespace)
    scores = namespace["scores"]
    assert len(scores["test_accuracy"]) == 3 and np.all(
        (0.15 < scores["test_accuracy"]) & (scores["test_accuracy"] < 0.5)
    )
    assert np.all(scores["test_f1_micro"] > scores["test_accuracy"])
    assert capsys.readouterr().out.count("[") == 2
