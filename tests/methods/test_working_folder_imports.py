"""Import paths are read from the working folder, as pytest reads a project's own modules from its rootdir.

``mlhidden`` is a console script: Python puts the script's folder on ``sys.path``, not the folder it
is run from, so ``-m mymethods.wrap:MyBR`` with ``mymethods/`` in that folder could not be imported
without ``PYTHONPATH=.``. The tests run the real command line as the installed script does (a
launcher outside the working folder), with worker processes, so the workers must import it too.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[2]

WRAP = '''
from mlhidden.methods import BR


class MyBR(BR):
    """BR under another name: a user's own method, in their project folder."""
'''

LEARNERS = '''
from sklearn.linear_model import LogisticRegression


class MyLogistic(LogisticRegression):
    """A user's own base learner."""
'''


def console_script(tmp_path: Path) -> Path:
    """A launcher like the ``mlhidden`` script pip writes: its own folder, not the working folder, is on
    ``sys.path``."""
    launcher = tmp_path / "bin" / "mlhidden_script.py"
    launcher.parent.mkdir()
    launcher.write_text("import sys\nfrom mlhidden.cli import main\nsys.exit(main())\n")
    return launcher


def run_cli(tmp_path: Path, work: Path, *args):
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    return subprocess.run(
        [sys.executable, str(console_script(tmp_path)), *args],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def user_project(tmp_path: Path) -> Path:
    work = tmp_path / "project"
    for package, module, text in (("mymethods", "wrap", WRAP), ("mylearners", "learners", LEARNERS)):
        (work / package).mkdir(parents=True)
        (work / package / "__init__.py").write_text("")
        (work / package / f"{module}.py").write_text(text)
    return work


def test_a_method_in_the_working_folder_runs_by_import_path(tmp_path):
    work = user_project(tmp_path)
    options = ["-d", "Logical", "-m", "BR", "-m", "mymethods.wrap:MyBR", "--splits", "2", "--n-jobs", "2"]
    result = run_cli(tmp_path, work, "run", *options, "--out", "run", "-q")
    assert result.returncode == 0, result.stderr
    assert "MyBR" in (work / "run" / "tables.md").read_text()  # an import path is labelled by its class


def test_a_base_learner_in_the_working_folder_runs_by_dotted_path(tmp_path):
    work = user_project(tmp_path)
    (work / "own.yaml").write_text(textwrap.dedent("""\
        datasets: [Logical]
        methods:
          - {name: BR, base: mylearners.learners.MyLogistic}
        splits: 2
    """))
    result = run_cli(tmp_path, work, "run", "--config", "own.yaml", "--n-jobs", "2", "--out", "run", "-q")
    assert result.returncode == 0, result.stderr
    assert "0 failed" in result.stderr
