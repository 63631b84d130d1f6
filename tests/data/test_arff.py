"""MEKA ARFF reading and writing: header conventions, encodings, sparse data and every user error."""

from __future__ import annotations

import bz2
import gzip
import hashlib

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mlhidden.data import Dataset, read_arff, write_arff
from mlhidden.data.arff import read as arff_read
from mlhidden.data.arff.stream import TextStream
from mlhidden.errors import UserError
from mlhidden.shipped import shipped_folder

DENSE = """\
% a comment before the relation
@relation 'Tiny: -C 2'

@attribute a {0,1}
@attribute b {0,1}
@attribute x numeric
@attribute y real

@data
1,0,0.5,-1
0,1,1.5,2e3
% a comment between rows

1,1,?,0
"""

SPARSE = """\
@relation "Sparse: -C -2 -split-percentage 50"
@attribute x1 numeric
@attribute x2 numeric
@attribute x3 numeric
@attribute l1 {0,1}
@attribute l2 {0,1}
@data
{0 0.5,3 1}
{}
{1 ?,2 7,4 1}
{2 0,3 1,4 1}
"""


def write(tmp_path, text, name="data.arff"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def error_of(path, **kwargs) -> UserError:
    with pytest.raises(UserError) as caught:
        read_arff(path, **kwargs)
    return caught.value


def test_dense_labels_first(tmp_path):
    path = write(tmp_path, DENSE)
    data = read_arff(path)
    assert data.name == "Tiny"
    assert data.label_names == ("a", "b") and data.feature_names == ("x", "y")
    np.testing.assert_array_equal(data.Y, [[1, 0], [0, 1], [1, 1]])
    assert data.Y.dtype == np.int8
    np.testing.assert_array_equal(data.X, [[0.5, -1.0], [1.5, 2000.0], [np.nan, 0.0]])
    assert isinstance(data.X, np.ndarray) and data.X.dtype == np.float64
    assert data.source == str(path)
    assert data.identity == hashlib.sha256(path.read_bytes()).hexdigest()


def test_sparse_labels_last_stays_sparse(tmp_path):
    data = read_arff(write(tmp_path, SPARSE))
    assert data.name == "Sparse"
    assert data.label_names == ("l1", "l2")
    assert isinstance(data.X, sp.csr_matrix) and data.X.dtype == np.float64
    np.testing.assert_array_equal(data.X.toarray(), [[0.5, 0, 0], [0, 0, 0], [0, np.nan, 7], [0, 0, 0]])
    assert data.X.nnz == 3  # explicit zeros are not stored
    np.testing.assert_array_equal(data.Y, [[1, 0], [0, 0], [0, 1], [1, 1]])


@pytest.mark.parametrize("x2", ["numeric", "{a,b,c}"])
def test_sparse_labels_between_the_features_are_picked_out_of_every_row(x2, tmp_path):
    """Labels that a Mulan XML file names between the features are no run of columns: each matrix is picked
    column by column, sorted within each row, without explicit zeros, whether its values stand as read or are
    encoded (a one-hot nominal)."""
    header = (
        "@relation s\n@attribute x1 numeric\n@attribute l1 {0,1}\n@attribute x2 " + x2 + "\n@attribute l2 {0,1}\n"
        "@attribute x3 numeric\n@attribute l3 {0,1}\n@data\n"
    )
    second = "a" if x2 != "numeric" else "2"
    path = write(tmp_path, header + f"{{0 0.5,1 1,3 1,5 0}}\n{{}}\n{{2 {second},4 7,5 1}}\n{{0 0,1 1,4 -0,5 1}}\n")
    xml = tmp_path / "labels.xml"
    xml.write_text('<labels xmlns="http://mulan.sourceforge.net/labels">'
                   '<label name="l3"/><label name="l1"/><label name="l2"/></labels>')
    data = read_arff(path, labels_xml=xml)
    np.testing.assert_array_equal(data.Y, [[1, 1, 0], [0, 0, 0], [0, 0, 1], [1, 0, 1]])
    middle = [[0.0], [0.0], [2.0], [0.0]] if x2 == "numeric" else [[1, 0, 0], [1, 0, 0], [1, 0, 0], [1, 0, 0]]
    np.testing.assert_array_equal(
        data.X.toarray(), np.hstack([[[0.5], [0], [0], [0]], middle, [[0], [0], [7], [0]]])
    )
    assert data.X.has_sorted_indices and np.all(data.X.data != 0)


@pytest.mark.parametrize("quote", ["'", '"'])
def test_relation_quotes_and_extra_options(tmp_path, quote):
    text = DENSE.replace("@relation 'Tiny: -C 2'", f"@relation {quote}My data: -R -C 2 -split-percentage 50{quote}")
    data = read_arff(write(tmp_path, text))
    assert data.name == "My data" and data.n_labels == 2


@pytest.mark.parametrize("suffix, compress", [(".arff.gz", gzip.compress), (".arff.bz2", bz2.compress)])
def test_compressed_files(tmp_path, suffix, compress):
    plain = read_arff(write(tmp_path, SPARSE))
    path = tmp_path / f"data{suffix}"
    path.write_bytes(compress(SPARSE.encode()))
    data = read_arff(path)
    np.testing.assert_array_equal(data.X.toarray(), plain.X.toarray())
    np.testing.assert_array_equal(data.Y, plain.Y)
    assert data.identity == hashlib.sha256(path.read_bytes()).hexdigest() != plain.identity


def test_nominal_features_one_hot_and_binary_by_name(tmp_path):
    text = """@relation 'N: -C 1'
@attribute label {1,0}
@attribute colour {red,green,blue}
@attribute flag {1,0}
@attribute bit {0,1}
@data
1,green,1,0
0,blue,0,1
0,?,?,1
"""
    data = read_arff(write(tmp_path, text))
    assert data.feature_names == ("colour=red", "colour=green", "colour=blue", "flag", "bit")
    np.testing.assert_array_equal(data.X, [[0, 1, 0, 1, 0], [0, 0, 1, 0, 1], [np.nan, np.nan, np.nan, np.nan, 1]])
    np.testing.assert_array_equal(data.Y, [[1], [0], [0]])


def test_sparse_omitted_nominal_is_first_declared_value(tmp_path):
    text = """@relation 'W: -C 1'
@attribute label {1,0}
@attribute colour {red,green}
@attribute flag {1,0}
@attribute x numeric
@data
{3 2}
{0 0,1 green,2 0}
"""
    data = read_arff(write(tmp_path, text))
    assert data.is_sparse
    np.testing.assert_array_equal(data.Y, [[1], [0]])
    np.testing.assert_array_equal(data.X.toarray(), [[1, 0, 1, 2], [0, 1, 0, 0]])


def test_numeric_labels_with_0_1_values(tmp_path):
    text = "@relation 'R: -C 1'\n@attribute l numeric\n@attribute x numeric\n@data\n1,3\n0.0,4\n"
    np.testing.assert_array_equal(read_arff(write(tmp_path, text)).Y, [[1], [0]])


def test_labels_argument_supplies_and_overrides(tmp_path):
    no_option = write(tmp_path, DENSE.replace("'Tiny: -C 2'", "Tiny"), "plain.arff")
    error = error_of(no_option)
    assert error.path == str(no_option) and error.line == 2 and error.hint == "add -C N to @relation or pass --labels N"
    data = read_arff(no_option, labels=1)
    assert data.name == "Tiny" and data.label_names == ("a",)
    first = read_arff(write(tmp_path, DENSE), labels=1)
    assert first.label_names == ("a",) and first.feature_names == ("b", "x", "y")
    last = read_arff(write(tmp_path, SPARSE), labels=-1)
    assert last.label_names == ("l2",) and last.feature_names == ("x1", "x2", "x3", "l1")
    with pytest.raises(UserError, match="label count 5 does not fit 5 attributes"):
        read_arff(write(tmp_path, SPARSE), labels=5)


@pytest.mark.parametrize("count", ["0", "4", "-4", "9", "two"])
def test_label_count_must_fit_attributes(tmp_path, count):
    path = write(tmp_path, DENSE.replace("-C 2", f"-C {count}"))
    error = error_of(path)
    assert error.path == str(path) and error.line == 2


def test_numeric_label_value_2_is_refused_with_its_line(tmp_path):
    text = "@relation 'R: -C 1'\n@attribute lab numeric\n@attribute x numeric\n@data\n1,3\n\n2,4\n"
    error = error_of(write(tmp_path, text))
    assert "lab" in error.message and "2" in error.message and error.line == 7


def test_missing_label_is_refused(tmp_path):
    text = "@relation 'R: -C -1'\n@attribute x numeric\n@attribute lab {0,1}\n@data\n{0 1}\n{1 ?}\n"
    error = error_of(write(tmp_path, text))
    assert "lab" in error.message and "missing" in error.message and error.line == 6


def test_undeclared_nominal_label_value_names_the_attribute(tmp_path):
    header = "@relation 'R: -C 2'\n@attribute first {0,1}\n@attribute second {0,1}\n@attribute x numeric\n"
    text = header + "@data\n1,0,3\n0,2,4\n"
    error = error_of(write(tmp_path, text))
    assert "'second'" in error.message and "'2'" in error.message and error.line == 7


def test_non_binary_nominal_label_is_refused_at_its_declaration(tmp_path):
    text = "@relation 'R: -C 1'\n@attribute colour {a,b}\n@attribute x numeric\n@data\na,1\n"
    error = error_of(write(tmp_path, text))
    assert "colour" in error.message and error.line == 2


@pytest.mark.parametrize("declaration", ["@attribute when date 'yyyy-MM-dd'", "@attribute note string"])
def test_unsupported_attribute_types(tmp_path, declaration):
    text = f"@relation 'R: -C 1'\n@attribute l {{0,1}}\n{declaration}\n@data\n1,'2020-01-01'\n"
    error = error_of(write(tmp_path, text))
    assert "not supported" in error.message and error.line == 3
    assert ("when" in error.message) or ("note" in error.message)


def test_duplicate_attribute_names(tmp_path):
    text = "@relation 'R: -C 1'\n@attribute l {0,1}\n@attribute x numeric\n@attribute x numeric\n@data\n1,2,3\n"
    error = error_of(write(tmp_path, text))
    assert "duplicate" in error.message and error.line == 4


def test_wrong_number_of_values_names_the_line(tmp_path):
    text = "@relation 'R: -C 1'\n@attribute l {0,1}\n@attribute x numeric\n@data\n1,2\n0,3,4\n"
    error = error_of(write(tmp_path, text))
    assert error.line == 6 and "malformed" in error.message


def test_sparse_index_beyond_the_attributes(tmp_path):
    error = error_of(write(tmp_path, SPARSE.replace("{1 ?,2 7,4 1}", "{9 ?,2 7,4 1}")))
    assert "index 9" in error.message and error.line == 10


@pytest.mark.parametrize("source, old, new, line", [(DENSE, "2e3", "-1e999", 11), (SPARSE, "2 7", "2 Infinity", 10)])
def test_infinite_feature_values_are_refused(tmp_path, source, old, new, line):
    error = error_of(write(tmp_path, source.replace(old, new)))
    assert "infinite" in error.message and error.line == line


def test_non_numeric_value(tmp_path):
    text = "@relation 'R: -C 1'\n@attribute l {0,1}\n@attribute x numeric\n@data\n1,abc\n"
    assert error_of(write(tmp_path, text)).line == 5


@pytest.mark.parametrize(
    "name, content",
    [
        ("empty.arff", b""),
        ("latin1.arff", "@relation 'R: -C 1'\n@attribute caf\u00e9 {0,1}\n".encode("latin-1")),
        ("garbage.arff", bytes(range(256)) * 4),
        ("truncated.arff.bz2", bz2.compress(SPARSE.encode())[:-20]),
        ("truncated.arff.gz", gzip.compress(SPARSE.encode())[:-20]),
        ("notgzip.arff.gz", SPARSE.encode()),
        ("nodata.arff", b"@relation 'R: -C 1'\n@attribute l {0,1}\n@attribute x numeric\n"),
        ("norows.arff", b"@relation 'R: -C 1'\n@attribute l {0,1}\n@attribute x numeric\n@data\n"),
    ],
)
def test_bad_files_give_user_errors_naming_the_file(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content)
    assert error_of(path).path == str(path)


def test_missing_file_and_bad_labels_argument(tmp_path):
    assert "cannot read" in error_of(tmp_path / "absent.arff").message
    assert "integer" in error_of(write(tmp_path, DENSE), labels="2").message


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_damaged_text_never_escapes_as_a_traceback(tmp_path, data):
    """Any edit of a valid file either still reads or raises UserError, never anything else."""
    source = data.draw(st.sampled_from([DENSE, SPARSE]))
    start = data.draw(st.integers(0, len(source)))
    stop = data.draw(st.integers(start, min(len(source), start + 12)))
    insert = data.draw(st.text(alphabet="{}',\" ?%@-0123456789abC\n", max_size=6))
    path = write(tmp_path, source[:start] + insert + source[stop:], "fuzz.arff")
    try:
        read_arff(path)
    except UserError:
        pass


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=200))
def test_random_bytes_give_user_errors(tmp_path, content):
    path = tmp_path / "random.arff.bz2"
    path.write_bytes(content)
    with pytest.raises(UserError):
        read_arff(path)


def test_write_then_read_dense_with_missing(tmp_path):
    data = Dataset(
        name="Round trip",
        X=np.array([[0.1, np.nan], [1e-300, -2.5]]),
        Y=np.array([[1, 0, 1], [0, 0, 1]], dtype=np.int8),
        feature_names=("f one", "f,2"),
        label_names=("A", "B", "C"),
    )
    path = tmp_path / "out.arff"
    write_arff(data, path)
    back = read_arff(path)
    assert (back.name, back.feature_names, back.label_names) == (data.name, data.feature_names, data.label_names)
    np.testing.assert_array_equal(back.X, data.X)
    np.testing.assert_array_equal(back.Y, data.Y)


def test_write_then_read_sparse(tmp_path):
    X = sp.random(30, 12, density=0.2, format="csr", random_state=np.random.RandomState(1))
    Y = (np.random.RandomState(2).rand(30, 4) < 0.3).astype(np.int8)
    data = Dataset(
        name="S",
        X=X,
        Y=Y,
        feature_names=tuple(f"x{i}" for i in range(12)),
        label_names=tuple(f"y{i}" for i in range(4)),
    )
    path = tmp_path / "sparse.arff"
    write_arff(data, path)
    back = read_arff(path)
    assert back.is_sparse
    np.testing.assert_array_equal(back.X.toarray(), X.toarray())
    np.testing.assert_array_equal(back.Y, Y)


def test_real_dense_music_file(mirror_dir):
    data = read_arff(mirror_dir / "Music.arff")
    assert (data.name, data.n_samples, data.n_labels, data.n_features) == ("Music", 592, 6, 71)
    assert data.label_names[0] == "amazed-suprised" and not data.is_sparse
    assert not np.isnan(data.X).any()


def test_quotes_and_braces_inside_quoted_names_and_values_are_valid(tmp_path):
    """The structure checks count only quotes and braces outside complete quoted strings."""
    text = (
        "@relation 'R {x}: -C 1'\n@attribute l {0,1}\n@attribute 'a}b' numeric\n"
        "@attribute c {'x{','y\\'s'}\n@data\n1,0.5,'x{'\n{0 1,1 2,2 'y\\'s'}\n"
    )
    data = read_arff(write(tmp_path, text))
    assert data.feature_names == ("a}b", "c=x{", "c=y's")
    assert data.X.tolist() == [[0.5, 1.0, 0.0], [2.0, 0.0, 1.0]]



def _outcome(path, plain=True) -> Dataset | str:
    """What reading ``path`` gives, the dataset or the error; with ``plain`` false, by the careful line-by-line
    path alone (the C-speed parse of plain blocks switched off)."""
    with pytest.MonkeyPatch.context() as patch:
        if not plain:
            patch.setattr("mlhidden.data.arff.rows.dense_values", lambda *_: None)
            patch.setattr("mlhidden.data.arff.rows.sparse_values", lambda *_: None)
        try:
            return read_arff(path)
        except UserError as error:
            return str(error)


def _assert_same(path) -> None:
    ours, careful = _outcome(path), _outcome(path, plain=False)
    if isinstance(careful, str):
        assert ours == careful
        return
    assert isinstance(ours, Dataset) and ours.is_sparse == careful.is_sparse
    assert ours.X.dtype == careful.X.dtype == np.float64 and ours.Y.dtype == careful.Y.dtype == np.int8
    parts = (lambda X: (X.data, X.indices, X.indptr)) if careful.is_sparse else (lambda X: (X,))
    assert [part.tobytes() for part in parts(ours.X)] == [part.tobytes() for part in parts(careful.X)]
    assert ours.X.shape == careful.X.shape
    assert ours.Y.tobytes() == careful.Y.tobytes() and ours.Y.shape == careful.Y.shape
    assert (ours.feature_names, ours.label_names) == (careful.feature_names, careful.label_names)


@pytest.mark.parametrize("name", ["Logical.arff", "Music.arff.bz2", "Yeast.arff.bz2", "Scene.arff.bz2"])
def test_plain_dense_blocks_read_the_shipped_files_to_the_bit(name, monkeypatch):
    from mlhidden.data.arff import plain as plain_blocks
    from mlhidden.data.arff import rows

    plain = []
    monkeypatch.setattr(rows, "dense_values", lambda *args: plain.append(plain_blocks.dense_values(*args)) or plain[-1])
    _assert_same(shipped_folder("datasets") / name)
    assert any(block is not None for block in plain)


@pytest.mark.parametrize(
    "rows",
    [
        "1,0,0.5,-0\n0,1,1e999,2e-400\n",  # -0 is 0 as before; an overflow is infinite (refused) as Python reads it
        "\n1,0,0.5,1\n   \n0,1,.5,+2.\n\n",  # blank lines keep the rows' line numbers
        "1\t0 0.5,,1\r\n0,1,1.5,2\r\n",  # tabs, doubled commas and CRLF separate as Weka's tokenizer does
        "1,0,0.5,1\n,,,\n",  # a row of commas is no blank line
        "1,0,0.5\n0,1,1.5,2\n",  # too few values
        "1,0,0.5,1,9\n",  # too many
        "1,0.0,0.5,1\n",  # not a declared name, though the same number
        "2,0,0.5,1\n",  # a label that is no declared name
        "1,0,0x10,1\n",  # what Java reads and Python does not
        "1,0,1.5f,1\n",
        "1,0,0.1234567890123456789,9007199254740993\n",  # rounded to the bit as Python's float rounds
        "1,0,5,12\n\n0 1\t999999999999999,0\r\n",  # digits alone: read as integers; b declared {1,0}
        "1,0,007,1234567890123456\n0,1,99999999999999999999999,1\n",  # digits, not integers' texts
        "01,0,1,1\n", "1,2,1,1\n", "1,0,1\n0,1,1,1,1\n", "1,0,1,1\n,,,\n",  # names, widths, commas
    ],
)
def test_plain_dense_blocks_read_as_the_careful_path_does(rows, tmp_path):
    path = tmp_path / "plain.arff"
    path.write_text(DENSE.split("@data")[0].replace("@attribute b {0,1}", "@attribute b {1,0}") + "@data\n" + rows)
    _assert_same(path)


def test_a_dense_block_of_digits_read_as_integers_gives_what_pandas_reads(monkeypatch):
    from mlhidden.data.arff import plain as plain_blocks

    rng = np.random.RandomState(0)
    table = np.column_stack([rng.randint(0, 2, (500, 2)), rng.randint(0, 10**6, 500), rng.randint(0, 10, 500)])
    data = "\n".join(",".join(map(str, row)) for row in table).encode()
    attributes = [("a", ["0", "1"]), ("b", ["1", "0"]), ("x", "NUMERIC"), ("y", "REAL")]
    taken = []
    real_table = plain_blocks._integer_table
    monkeypatch.setattr(plain_blocks, "_integer_table", lambda *args: taken.append(real_table(*args)) or taken[-1])
    as_integers = plain_blocks.dense_values(data, attributes, 0)
    assert taken and taken[0] is not None and as_integers is not None
    np.testing.assert_array_equal(as_integers[0][:, 1], 1 - table[:, 1])
    monkeypatch.setattr(plain_blocks, "_integer_table", lambda *_: None)
    as_pandas = plain_blocks.dense_values(data, attributes, 0)
    assert [part.tobytes() for part in as_integers] == [part.tobytes() for part in as_pandas]


@pytest.mark.parametrize(
    "name", ["Bibtex.arff.bz2", "Corel5k.arff.bz2", "Enron.arff.bz2", "Medical.arff.bz2", "OHSUMED.arff.bz2",
             "Reuters-K500.arff.bz2"],
)
def test_plain_sparse_blocks_read_the_shipped_files_to_the_bit(name, monkeypatch):
    from mlhidden.data.arff import plain as plain_blocks
    from mlhidden.data.arff import rows

    read = []

    def recorded(data, *args):
        read.append((data, plain_blocks.sparse_values(data, *args)))
        return read[-1][1]

    monkeypatch.setattr(rows, "sparse_values", recorded)
    _assert_same(shipped_folder("datasets") / name)
    assert read and all(entries is not None for data, entries in read if data.strip())


PLAIN_SPARSE_ROWS = (
    "{0 0.5,3 1}\n{}\n\n{2 7,4 1}\r\n  {1\t-0 ,2 1e999}  \n",
    "{0 .5,1 5.,2 +2,3 1}\n{0 1e5,1 1E-5,2 0.1234567890123456789,4 1}\n",
    "{0 0.5,,3 1}\n{1,2,2 3}\n",
    "{000000001 1,3 1}\n",
    "{0 12,3 1,4 0}\n\n{}\n{1 999999999999999,4 1}\r\n",
    "{0 007,3 1}\n{2 1234567890123456,4 0}\n{1 99999999999999999999999}\n",
    "{0 1.0,2 20.0,3 1}\n\n{1 0.0,4 1}\n",
    "{0 1.0,1 2.5,3 1}\n",
    "{0 01.0,3 1}\n{2 1.0 ,4 1}\n",
)


@pytest.mark.parametrize(
    "rows",
    [
        "{0 0.5,3 1}\n{}\n\n{2 7,4 1}\r\n  {1\t-0 ,2 1e999}  \n",  # blank lines, CRLF, tabs; -0 and overflow
        "{0 .5,1 5.,2 +2,3 1}\n{0 1e5,1 1E-5,2 0.1234567890123456789,4 1}\n",  # spellings; a token over 8 bytes
        "{0 0.5,,3 1}\n{1,2,2 3}\n",  # doubled commas, a comma between index and value
        "{000000001 1,3 1}\n",  # an index of 9 digits; a block of one row, all numbers
        "{0 12,3 1,4 0}\n\n{}\n{1 999999999999999,4 1}\r\n",  # digits only: read as integers; l2 declared {1,0}
        "{0 007,3 1}\n{2 1234567890123456,4 0}\n{1 99999999999999999999999}\n",  # digits, not integers' texts
        "{3 01}\n", "{4 10}\n", "{0 1,3 2}\n{0 1,3 65536}\n",  # digits that are no declared name
        "{3 1.0}\n",  # a nominal's name read as a number would be the same: a block of numbers is still text
        "{0 1.0,2 20.0,3 1}\n\n{1 0.0,4 1}\n",  # numbers spelled n.0 (as write_arff spells them): integers too
        "{0 1.0,1 2.5,3 1}\n", "{0 01.0,3 1}\n{2 1.0 ,4 1}\n",  # any other dot: text
        "{0.0 1,3 1}\n", "{0 1,3 1.0}\n", "{0 1.0,3 1}\n{1 0.0,4 1.0}\n",  # n.0 as an index, as a nominal's name
        "{0 0.5,3 1}\n{0 1,3}\n",  # an index without a value
        "{2 1,1 1}\n",  # indices that decrease
        "{1 1,1 2}\n",  # a repeated index
        "{0 1,5 1}\n",  # an index past the attributes
        "{+1 1}\n{01 1}\n",  # what Python's int reads
        "{0 1,3 2}\n",  # a label that is no declared name
        "{0 e,3 1}\n", "{0 1-2,3 1}\n", "{0 .,3 1}\n", "{0 1e,3 1}\n",  # numbers neither reads
        "{0 1,3 1}\n0.5,0,0,1,0\n",  # a dense row in a sparse file
        "{0 1,3 1} {1 1}\n", "{0 1,3 1}}\n", "x{0 1}\n", "{0 1\n3 1}\n",  # braces that are no one row a line
        "{0 1,3 1}\n% a comment\n{1 ?,4 1}\n",  # what only the careful path reads
    ],
)
def test_plain_sparse_blocks_read_as_the_careful_path_does(rows, tmp_path):
    from mlhidden.data.arff import plain as plain_blocks

    path = tmp_path / "plain.arff"
    path.write_text(SPARSE.split("@data")[0].replace("@attribute l2 {0,1}", "@attribute l2 {1,0}") + "@data\n" + rows)
    _assert_same(path)
    attributes = [(name, "NUMERIC") for name in ("x1", "x2", "x3")] + [("l1", ["0", "1"]), ("l2", ["1", "0"])]
    plain = plain_blocks.sparse_values(rows.encode(), attributes, 0) is not None
    assert plain == (rows in PLAIN_SPARSE_ROWS)


@pytest.mark.parametrize("name", ["Bibtex.arff.bz2", "Enron.arff.bz2", "Medical.arff.bz2"])
def test_blocks_of_digits_read_as_integers_give_what_their_tokens_texts_give(name, monkeypatch):
    """The real files' blocks are digits alone: read as integers, each entry is what the path that reads each
    distinct token's text gives, to the bit."""
    from mlhidden.data.arff import plain as plain_blocks

    path = shipped_folder("datasets") / name
    with TextStream(path) as stream:
        _, _, attributes = arff_read._read_header(path, stream)
        blocks = [block.data for block in stream.blocks() if block.data.strip()]
    as_integers = [plain_blocks.sparse_values(data, attributes, 0) for data in blocks]
    assert all(plain_blocks._integers(data, len(data.translate(None, b"{} ,\t\r\n"))) is not None for data in blocks)
    monkeypatch.setattr(plain_blocks, "_integers", lambda *_: None)
    as_texts = [plain_blocks.sparse_values(data, attributes, 0) for data in blocks]
    for integers, texts in zip(as_integers, as_texts, strict=True):
        assert [part.dtype for part in integers] == [part.dtype for part in texts]
        assert [part.tobytes() for part in integers] == [part.tobytes() for part in texts]


@pytest.mark.parametrize(
    "rows, as_integers",
    [
        ("{0 1.0,2 20.0,3 1}\n\n{1 0.0,4 1}\n{}\n", True),  # numeric values spelled n.0, as write_arff spells them
        ("{0 1.0,1 2.5,3 1}\n", False), ("{2 1.0 ,4 1}\n", False), ("{0 01.0,3 1}\n", False),  # any other dot
        ("{0.0 1,3 1}\n", False), ("{0 1,3 1.0}\n", False),  # n.0 as an index, as a nominal's name
    ],
)
def test_numbers_spelled_n_point_zero_are_read_as_integers_to_the_bit(rows, as_integers, monkeypatch):
    """A block whose every dot ends a numeric value in ``.0`` is read as integers, each value what the path that
    reads each token's text gives; a dot anywhere else leaves the block to that path."""
    from mlhidden.data.arff import plain as plain_blocks

    attributes = [(name, "NUMERIC") for name in ("x1", "x2", "x3")] + [("l1", ["0", "1"]), ("l2", ["1", "0"])]
    read, original = [], plain_blocks._whole_decimals
    monkeypatch.setattr(plain_blocks, "_whole_decimals", lambda *args: read.append(original(*args)) or read[-1])
    entries = plain_blocks.sparse_values(rows.encode(), attributes, 0)
    assert (read[0] is not None) == as_integers
    monkeypatch.setattr(plain_blocks, "_integers", lambda *_: None)
    texts = plain_blocks.sparse_values(rows.encode(), attributes, 0)
    assert (entries is None) == (texts is None)
    if texts is not None:
        assert [part.dtype for part in entries] == [part.dtype for part in texts]
        assert [part.tobytes() for part in entries] == [part.tobytes() for part in texts]


@pytest.mark.parametrize("bad", [2.0, np.nan])
def test_sparse_labels_are_checked_without_densifying(bad, tmp_path):
    """A sparse file's labels are checked as a CSR matrix (Delicious' 983 dense float columns cost more than
    the data section): the first bad value in row order is the one a dense check names."""
    from mlhidden.data.arff.encode import check_binary
    from mlhidden.data.arff.lines import Layout, RowLines

    lines = RowLines()
    lines.add(np.array([7, 8, 10]))
    layout = Layout(1, (2, 3, 4), 6, lines)
    Y = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, bad], [bad, 1.0, 1.0]])
    errors = []
    for labels in (Y, sp.csr_matrix(Y)):
        with pytest.raises(UserError) as raised:
            check_binary(tmp_path / "x.arff", layout, labels, ("l1", "l2", "l3"))
        errors.append(str(raised.value))
    assert errors[0] == errors[1] and "label 'l3' has value" in errors[0] and ":8:" in errors[0]
    check_binary(tmp_path / "x.arff", layout, sp.csr_matrix(np.eye(3)), ("l1", "l2", "l3"))


PLAIN_HEADER = """\
@relation 'Header: -C 2'
@attribute l1 {0,1}
% a comment among the attributes

@ATTRIBUTE l2 {1,0}
@attribute x.1 NUMERIC
@Attribute x-2 real
@attribute x_3 Integer
@attribute colour {red,green,blue}
@data
0,1,0.5,2,3,red
"""


@pytest.mark.parametrize(
    "change",
    [
        None,  # every attribute plain: read without liac-arff's or Weka's tokenizer
        ("@attribute x_3 Integer", "@attribute 'x 3' Integer"),  # a quoted name
        ("@attribute x_3 Integer", "@attribute x_3  Integer"),  # two spaces before the type
        ("@attribute x_3 Integer", "@attribute x_3 {a, b}"),  # a space among the nominal names
        ("@attribute x_3 Integer", "@attribute x_3 string"),  # refused, at its line
        ("@attribute x_3 Integer", "@attribute x_3 {0,0}"),  # a name declared twice
        ("@attribute x_3 Integer", "@attribute x_3 date"),  # a type liac-arff refuses
        ("@attribute x_3 Integer", "@attribute x_3 numeric\nnot a declaration"),  # a line liac-arff refuses
        ("@attribute x_3 Integer", "@attribute x_3 numeric\n@attribute x_3 numeric"),  # a name used twice
        ("@Attribute x-2 real", "@Attribute x-2 {?,1}"),  # a '?' among the names
    ],
)
def test_plain_attribute_lines_read_as_liac_arff_reads_them(change, tmp_path):
    """The header's attributes after the first, where each line is plain, are read as liac-arff would read them,
    and any other header still goes through liac-arff whole: the same dataset or the same one-line error."""

    text = PLAIN_HEADER if change is None else PLAIN_HEADER.replace(*change)
    if change is not None and change[1].count("\n"):
        text = text.replace("0,1,0.5,2,3,red", "0,1,0.5,2,3,3,red")
    path = tmp_path / "header.arff"
    path.write_text(text)
    calls = []
    real_tail = arff_read._plain_tail

    def recorded(*args):
        calls.append(real_tail(*args))
        return calls[-1]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(arff_read, "_plain_tail", recorded)
        ours = _outcome(path)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(arff_read, "_plain_tail", lambda *_: None)
        whole = _outcome(path)
    assert any(tail is not None for tail in calls) == (change is None or change[1].endswith("{0,0}"))
    if isinstance(whole, str):
        assert ours == whole
        return
    assert isinstance(ours, Dataset)
    assert (ours.feature_names, ours.label_names) == (whole.feature_names, whole.label_names)
    assert ours.X.tobytes() == whole.X.tobytes() and ours.Y.tobytes() == whole.Y.tobytes()
