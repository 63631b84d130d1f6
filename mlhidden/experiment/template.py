"""``mlhidden init``: a commented run config that runs as written (the template, or a shipped config), to edit
rather than write from scratch."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from mlhidden.errors import UserError
from mlhidden.io import PathLike
from mlhidden.shipped import shipped_config

DEFAULT_PATH = "mlhidden.yaml"


def template_text() -> str:
    """The template config (``template.yaml`` beside this module)."""
    return resources.files("mlhidden.experiment").joinpath("template.yaml").read_text(encoding="utf-8")


def write_template(path: PathLike = DEFAULT_PATH, shipped: str | None = None) -> Path:
    """Write the template config, or the ``shipped`` config of that name (``init --from``), to ``path``,
    refusing to overwrite an existing file."""
    text = template_text() if shipped is None else shipped_config(shipped).read_text(encoding="utf-8")
    path = Path(path)
    if path.exists():
        raise UserError("the file exists already", path=path, hint="choose another path, or move the file away")
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot write the template: {exc.strerror or exc}", path=path) from None
    return path
