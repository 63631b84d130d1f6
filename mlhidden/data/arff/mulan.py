"""Mulan's label files: the XML that names which ARFF attributes are labels.

Most multi-label datasets are published as an ARFF file plus ``NAME.xml``
(``<labels xmlns="http://mulan.sourceforge.net/labels"><label name="..."/>...</labels>``; labels
may nest to form a hierarchy). The XML, not the ARFF's ``@relation``, is Mulan's statement of
which attributes are labels.

A label's name is written in the XML as it is in the ARFF, escapes included (delicious declares
``@attribute TAG_m\\'usica`` and ``<label name="TAG_m\\'usica">``), while the ARFF reader resolves
escapes as Weka's tokenizer does (:mod:`.tokens`). So a label names the attribute whose name
is its text as written, else as an unquoted ARFF word reads it, else as a quoted one does.
Published pairs are named by the dataset, not by the file (``scene-train.arff`` and
``scene.xml``, ``Corel5k-sparse.arff`` and ``Corel5k.xml``, ``tmc2007-500-train.arff`` and
``tmc2007.xml``), so the XML beside an ARFF file is looked for under shorter and shorter names.
"""

from __future__ import annotations

import os
import warnings
import xml.etree.ElementTree as ElementTree
from collections.abc import Sequence
from pathlib import Path

from mlhidden.data.arff.tokens import unescape, unescape_word
from mlhidden.errors import InputWarning, UserError

ARFF_SUFFIXES = (".arff", ".arff.gz", ".arff.bz2")


class LabelsXmlWarning(InputWarning):
    """The XML label list and the ARFF's ``-C`` option disagree; the XML is used."""


def read_label_names(xml_path: str | os.PathLike[str]) -> tuple[str, ...]:
    """The label names a Mulan XML file declares, in document order (nested labels included)."""
    path = Path(xml_path)
    try:
        root = ElementTree.parse(path).getroot()
    except OSError as error:
        raise UserError(f"cannot read the label file: {error.strerror or error}", path=path) from None
    except ElementTree.ParseError as error:
        raise UserError(f"not a well-formed XML file: {error.msg}", path=path, line=error.position[0]) from None
    declared = [element.get("name") for element in root.iter() if _local(element.tag) == "label"]
    names = [name for name in declared if name is not None]
    if _local(root.tag) != "labels" or not names or len(names) < len(declared):
        raise UserError(
            "not a Mulan label file: expected <labels> holding <label name=\"...\"> elements", path=path,
            hint="give the XML file published with the ARFF file, or the label count with -C N / --labels N",
        )
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise UserError(f"label(s) named twice: {', '.join(duplicates[:5])}", path=path)
    return tuple(names)


def xml_names(arff_name: str) -> list[str]:
    """The names the Mulan XML of the ARFF file ``arff_name`` may have, most likely first.

    ``NAME.xml`` for ``NAME.arff`` (or ``.arff.gz`` / ``.arff.bz2``), then the names left by
    cutting ``NAME`` at its hyphens from the right (``tmc2007-500-train`` gives
    ``tmc2007-500.xml``, then ``tmc2007.xml``); none for a name that is not an ARFF file's.
    """
    suffix = next((suffix for suffix in ARFF_SUFFIXES if arff_name.lower().endswith(suffix)), None)
    stem = arff_name[: -len(suffix)] if suffix else ""
    names = []
    while stem:
        names.append(stem + ".xml")
        stem = stem.rpartition("-")[0]
    return names


def xml_beside(arff_path: str | os.PathLike[str]) -> Path | None:
    """The Mulan XML in the folder of an ARFF file (:func:`xml_names`), if there is one."""
    path = Path(arff_path)
    return next((path.with_name(name) for name in xml_names(path.name) if path.with_name(name).is_file()), None)


def label_index_from_xml(
    arff_path: str | os.PathLike[str], xml_path: str | os.PathLike[str], attribute_names: Sequence[str],
    relation_count: int | None,
) -> list[int]:
    """The positions of the XML's labels among the ARFF's attributes, in file order.

    ``relation_count`` is the ``@relation``'s ``-C`` value (None when absent). When it names other
    attributes than the XML, the XML wins and a :class:`LabelsXmlWarning` says so in one line.
    """
    names = read_label_names(xml_path)
    position = {name: i for i, name in enumerate(attribute_names)}
    found = {name: _attribute_named(name, position) for name in names}
    missing = [name for name, i in found.items() if i is None]
    if missing:
        raise UserError(
            f"{len(missing)} label(s) of {Path(xml_path).name} are not attributes of {Path(arff_path).name}: "
            f"{', '.join(missing[:3])}", path=xml_path, hint="give the XML file published with this ARFF file",
        )
    index = sorted({i for i in found.values() if i is not None})
    if len(index) < len(names):
        raise UserError(
            f"{Path(xml_path).name} names some attribute of {Path(arff_path).name} twice, once escaped and once not",
            path=xml_path, hint="give the XML file published with this ARFF file",
        )
    if len(index) >= len(attribute_names):
        raise UserError("the XML names every attribute as a label; no feature is left", path=xml_path)
    if relation_count is not None:
        n = len(attribute_names)
        implied = list(range(relation_count)) if relation_count > 0 else list(range(n + relation_count, n))
        if implied != index:
            warnings.warn(
                f"{arff_path}: @relation says -C {relation_count} ({_describe(implied, n)}), but {Path(xml_path).name} "
                f"names {_describe(index, n)} as labels; using the XML",
                LabelsXmlWarning, stacklevel=2,
            )
    return index


def _attribute_named(label: str, position: dict[str, int]) -> int | None:
    """The position of the attribute a label names: its text as written, else read as an ARFF word, else quoted."""
    for name in (label, unescape_word(label), unescape(label)):
        if name in position:
            return position[name]
    return None


def _describe(index: list[int], n_attributes: int) -> str:
    count = len(index)
    if index == list(range(count)):
        return f"the first {count} attributes"
    if index == list(range(n_attributes - count, n_attributes)):
        return f"the last {count} attributes"
    return f"{count} attributes"


def _local(tag: str) -> str:
    """An element's tag without its XML namespace."""
    return tag.rpartition("}")[2]
