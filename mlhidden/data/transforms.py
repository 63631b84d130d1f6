"""Dataset transforms a config can apply (and sweep over), e.g. keeping only the first L labels."""

from __future__ import annotations

import dataclasses
from typing import Any

from mlhidden.data.dataset import Dataset
from mlhidden.errors import UserError, did_you_mean


def first_labels(dataset: Dataset, n_labels: int) -> Dataset:
    """Keep the first ``n_labels`` labels (paper Fig. 'labup': Scene with L = 1..6)."""
    if isinstance(n_labels, bool) or not isinstance(n_labels, int) or not 1 <= n_labels <= dataset.n_labels:
        raise UserError(
            f"first_labels must be an integer from 1 to {dataset.n_labels} for {dataset.name}, got {n_labels!r}"
        )
    return dataclasses.replace(dataset, Y=dataset.Y[:, :n_labels], label_names=tuple(dataset.label_names[:n_labels]))


TRANSFORMS = {"first_labels": first_labels}


def apply_transforms(dataset: Dataset, transforms: dict[str, Any]) -> Dataset:
    """Apply ``{transform name: argument}`` in order; unknown names list the valid ones."""
    for name, argument in transforms.items():
        if name not in TRANSFORMS:
            raise UserError(
                f"unknown dataset transform '{name}'",
                hint=f"{did_you_mean(name, TRANSFORMS)}valid: {', '.join(TRANSFORMS)}",
            )
        dataset = TRANSFORMS[name](dataset, argument)
    return dataset
