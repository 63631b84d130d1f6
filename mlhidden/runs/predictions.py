"""Stored test predictions: every metric, including one added later, is computed from these.

Each unit keeps its binary predictions (bit-packed) and, when the method has ``predict_proba``,
its label probabilities (float32, zlib-compressed). The true test labels are stored once per
(dataset, data checksum, split, seed), bit-packed, rather than re-derived from the dataset file:
a report then needs the store alone, as every other table does, and cannot silently pair
predictions with a different version of the data.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from mlhidden.runs.metrics import get_metric

COMPRESSION_LEVEL = 6


@dataclass(frozen=True)
class UnitPredictions:
    """One unit's test part: ``truth`` and ``predicted`` (n, L) 0/1, ``scores`` (n, L) float32 or None."""

    truth: np.ndarray
    predicted: np.ndarray
    scores: np.ndarray | None = None

    def metric(self, name: str) -> float:
        """A metric of the catalogue or a plug-in; NaN for a metric of scores without scores."""
        return get_metric(name)(self.truth, self.predicted, self.scores)


def stored_predictions(shape: tuple[int, ...], truth: bytes, predicted: bytes, scores: bytes | None) -> UnitPredictions:
    """A unit's predictions from its stored blobs; ValueError for a blob that does not hold ``shape``'s values."""
    return UnitPredictions(
        unpack_bits(truth, shape),
        unpack_bits(predicted, shape),
        None if scores is None else unpack_scores(scores, shape),
    )


def pack_bits(matrix: ArrayLike) -> bytes:
    """A 0/1 matrix as compressed bits (its shape is stored beside it)."""
    return zlib.compress(np.packbits(np.asarray(matrix).astype(bool), axis=None).tobytes(), COMPRESSION_LEVEL)


def unpack_bits(blob: bytes, shape: tuple[int, ...]) -> np.ndarray:
    bits = np.unpackbits(
        np.frombuffer(_decompressed(blob, (int(np.prod(shape)) + 7) // 8), dtype=np.uint8), count=int(np.prod(shape))
    )
    return bits.reshape(shape).astype(np.int8)


def pack_scores(scores: ArrayLike) -> bytes:
    """Probabilities as compressed little-endian float32."""
    return zlib.compress(np.ascontiguousarray(scores, dtype="<f4").tobytes(), COMPRESSION_LEVEL)


def unpack_scores(blob: bytes, shape: tuple[int, ...]) -> np.ndarray:
    return np.frombuffer(_decompressed(blob, 4 * int(np.prod(shape))), dtype="<f4").reshape(shape)


def _decompressed(blob: bytes, size: int) -> bytes:
    """The ``size`` bytes a stored blob holds; ValueError for a damaged one (never more than ``size`` bytes are
    made)."""
    try:
        inflater = zlib.decompressobj()
        data = inflater.decompress(blob, size)
    except (zlib.error, TypeError) as exc:
        raise ValueError(f"not a compressed array: {exc}") from None
    if len(data) != size or not inflater.eof or inflater.unconsumed_tail:
        raise ValueError(
            f"it holds {'more' if inflater.unconsumed_tail else 'fewer'} than the {size} bytes its shape needs"
        )
    return data
