"""Where the sensitivity study's settings and their runs are: each setting's folder of run directories (its
study runs, or the multiverse's seed-0 pieces of the same computation), which settings finished, and the run
folders a reproduction decides claims on."""

from __future__ import annotations

import json
from pathlib import Path

from mlhidden.claims import StoredRuns
from mlhidden.paper.multiverse_runs import MULTIVERSE_DIR
from mlhidden.paper.multiverse_runs import read_manifest as read_multiverse_manifest
from mlhidden.paper.settings import SENSITIVITY_DIR, read_manifest
from mlhidden.runs import read_run_json, results_exist

SETTINGS_FILE = "settings.json"


def read_settings(folder) -> dict:
    """The sensitivity study's settings: name -> (folder of that setting's run directories, description).

    ``<folder>/settings.json`` names the settings, as ``{"settings": [{"name": ..., "about": ...}]}``
    (what ``mlhidden sensitivity`` writes), ``{"settings": {name: parameters}}`` or ``{name: parameters}``;
    each setting's runs are ``<folder>/<name>/<experiment>/``. Without the
    file, every subfolder is a setting with no description. An empty dict when nothing was run.
    """
    folder = Path(folder)
    manifest = folder / SETTINGS_FILE
    if manifest.is_file():
        data = json.loads(manifest.read_text(encoding="utf-8"))
        settings = data.get("settings", data) if isinstance(data, dict) else data
        if isinstance(settings, list):
            settings = {entry["name"]: entry for entry in settings}
        return {
            name: (folder / name, describe(parameters))
            for name, parameters in settings.items()
            if (folder / name).is_dir()
        }
    if not folder.is_dir():
        return {}
    return {path.name: (path, "") for path in sorted(folder.iterdir()) if path.is_dir()}


def setting_runs(folder) -> list[Path]:
    """The run directories of a setting's ``folder`` (``<out>/sensitivity/<setting>/``): each run stored there,
    else the seed-0 piece of ``<out>/multiverse/`` that stands for this setting, which is the same computation
    (its config hash is checked against the run.json the study left, where there is one). A clone holds the
    multiverse's compact copies but not the study's stores, so this is how a reproduction reads the settings there.
    """
    folder = Path(folder)
    out_dir, setting = folder.parent.parent, folder.name
    manifest = read_multiverse_manifest(out_dir / MULTIVERSE_DIR) or {"pieces": []}
    pieces = {
        piece["run"]: out_dir / MULTIVERSE_DIR / piece["dir"] for piece in manifest["pieces"]
        if piece.get("seed") == 0 and setting in piece.get("stands_for", ()) and piece.get("status") == "finished"
    }
    runs = {path.name: path for path in sorted(folder.iterdir()) if results_exist(path)} if folder.is_dir() else {}
    for run, piece_dir in pieces.items():
        if run not in runs and _same_computation(folder / run, piece_dir):
            runs[run] = piece_dir
    return list(runs.values())


def _same_computation(study_dir: Path, piece_dir: Path) -> bool:
    study, piece = read_run_json(study_dir), read_run_json(piece_dir)
    if not results_exist(piece_dir) or piece is None:
        return False
    return study is None or study.get("config_hash") == piece.get("config_hash")


def describe(parameters) -> str:
    """A setting's parameters in one line: its description if it has one, else its keys and values."""
    if isinstance(parameters, str):
        return parameters
    if isinstance(parameters, dict):
        for key in ("description", "about"):
            if key in parameters:
                return str(parameters[key])
        return ", ".join(
            f"{key}={json.dumps(value, sort_keys=True)}" for key, value in parameters.items() if key != "name"
        )
    return json.dumps(parameters, sort_keys=True)


def unfinished(runs: StoredRuns, run_names) -> str:
    """What a setting's runs still lack, in a few words ("" when every run is stored in full)."""
    stored = {name: runs[name] for name in run_names}
    not_started = [name for name, run in stored.items() if run is None]
    missing = sum(run.missing for run in stored.values() if run is not None)
    parts = ([f"not started: {', '.join(not_started)}"] if not_started else []) + (
        [f"{missing} units not stored yet"] if missing else []
    )
    return "; ".join(parts)


def study_settings(out_dir) -> tuple[dict, dict, dict, dict | None]:
    """The sensitivity study under ``out_dir``: each setting's folder of runs and its description, by name;
    the finished settings' runs (name -> StoredRuns); what each planned setting still lacks (:func:`unfinished`;
    "" when finished); and the manifest, None for settings written by hand (no plan to check, no rule to apply)."""
    folder = Path(out_dir) / SENSITIVITY_DIR
    settings, manifest = read_settings(folder), read_manifest(folder)
    if not isinstance(manifest, dict) or not isinstance(manifest.get("settings"), list):
        manifest = None
    planned = (
        {entry["name"]: entry.get("runs", manifest["runs"]) for entry in manifest["settings"]}
        if manifest is not None
        else {}
    )
    order = manifest.get("order", list(planned)) if manifest is not None else []
    runs_by_setting = {name: StoredRuns(setting_runs(path)) for name, (path, _) in settings.items()}
    lacking = {
        name: unfinished(runs_by_setting[name], planned[name]) if name in runs_by_setting else "not started"
        for name in order
    }
    finished = {name: runs for name, runs in runs_by_setting.items() if not lacking.get(name)}
    return settings, finished, lacking, manifest


def finished_settings(out_dir) -> dict[str, Path]:
    """Each finished setting's folder of runs under ``out_dir``, by name: those whose planned runs are
    all stored in full (every setting, for settings written by hand)."""
    settings, finished, _, _ = study_settings(out_dir)
    return {name: settings[name][0] for name in finished}


def folder_runs(folder) -> list[Path]:
    """The run directories claims are decided on in ``folder``: a setting's (:func:`setting_runs`) for a folder
    of the sensitivity study, else the folder itself (its runs are its subfolders)."""
    folder = Path(folder)
    return setting_runs(folder) if folder.parent.name == SENSITIVITY_DIR else [folder]


def claim_folders(out_dir) -> list[Path]:
    """The run folders a reproduction under ``out_dir`` decides claims on: its own and each finished setting's."""
    return [Path(out_dir), *finished_settings(out_dir).values()]


