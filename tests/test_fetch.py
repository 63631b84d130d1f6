"""`datasets fetch` from a mirror folder and from a real HTTP server on 127.0.0.1, checksums enforced."""

import contextlib
import functools
import hashlib
import shutil
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest
from click.testing import CliRunner

from mlhidden.cli import cli
from mlhidden.data import copy_from_mirror, load_dataset, registry_entries
from mlhidden.errors import UserError

SMALL = ["Music", "Medical"]


class MirrorHandler(SimpleHTTPRequestHandler):
    """Serves a folder; ``/error/...`` answers 500 and ``/truncated/...`` drops the connection half-way."""

    def do_GET(self):
        if self.path.startswith("/error/"):
            self.send_error(500, "mirror broken")
        elif self.path.startswith("/truncated/"):
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b"@relation x\n" * 10)
            self.close_connection = True
        else:
            super().do_GET()

    def log_message(self, *args):
        pass


@contextlib.contextmanager
def http_mirror(folder):
    """A real HTTP server on 127.0.0.1 (a free port) serving ``folder``; yields its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(MirrorHandler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def status_of(rows):
    return {row["name"]: row["status"] for row in rows}


def sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def expected_sha256(name):
    return next(entry.sha256 for entry in registry_entries() if entry.name == name)


def leftovers(folder):
    return sorted(path.name for path in folder.iterdir() if path.name.startswith("."))


def test_fetch_from_a_loopback_http_mirror(mirror_dir, tmp_path):
    data_dir = tmp_path / "data"
    with http_mirror(mirror_dir) as url:
        rows = copy_from_mirror(url + "/", data_dir, SMALL + ["MediaMill"])
        assert status_of(rows) == {"Music": "downloaded", "Medical": "downloaded", "MediaMill": "not available (put MediaMill.arff in the data path)"}
        for name in SMALL:
            assert sha256(data_dir / f"{name}.arff") == expected_sha256(name)
        assert status_of(copy_from_mirror(url, data_dir, SMALL)) == dict.fromkeys(SMALL, "already present")
        result = CliRunner().invoke(cli, ["datasets", "fetch", "Yeast", "--mirror", url, "--data-dir", str(data_dir)])
    assert result.exit_code == 0, result.output
    assert "downloaded" in result.output
    assert (data_dir / "Yeast.arff.bz2").read_bytes() == (mirror_dir / "Yeast.arff.bz2").read_bytes()
    assert leftovers(data_dir) == []


def test_fetch_from_a_folder(mirror_dir, tmp_path):
    data_dir = tmp_path / "data"
    assert status_of(copy_from_mirror(mirror_dir, data_dir, SMALL)) == dict.fromkeys(SMALL, "copied")
    assert status_of(copy_from_mirror(mirror_dir, data_dir, SMALL)) == dict.fromkeys(SMALL, "already present")
    assert (data_dir / "Medical.arff").read_bytes() == (mirror_dir / "Medical.arff").read_bytes()


@pytest.fixture
def corrupted_mirror(mirror_dir, tmp_path):
    """A mirror folder whose Music.arff has one byte changed."""
    folder = tmp_path / "corrupted"
    folder.mkdir()
    content = bytearray((mirror_dir / "Music.arff").read_bytes())
    content[len(content) // 2] ^= 0x01
    (folder / "Music.arff").write_bytes(bytes(content))
    return folder


@pytest.mark.parametrize("over_http", [False, True], ids=["folder", "http"])
def test_a_corrupted_file_is_refused_and_nothing_is_written(corrupted_mirror, tmp_path, over_http):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    (data_dir / "Music.arff").write_text("the user's old file\n")
    with contextlib.ExitStack() as stack:
        mirror = stack.enter_context(http_mirror(corrupted_mirror)) if over_http else corrupted_mirror
        with pytest.raises(UserError, match=f"Music: the mirror's copy has sha256 [0-9a-f]{{64}}, expected {expected_sha256('Music')}; not copied"):
            copy_from_mirror(mirror, data_dir, ["Music"])
    assert (data_dir / "Music.arff").read_text() == "the user's old file\n", "the file in place is untouched"
    assert leftovers(data_dir) == [], "no temporary file is left behind"


def test_cli_refuses_a_corrupted_download_with_one_line(corrupted_mirror, tmp_path):
    with http_mirror(corrupted_mirror) as url:
        result = CliRunner().invoke(cli, ["datasets", "fetch", "Music", "--mirror", url, "--data-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert result.output.startswith(f"error: {url}/Music.arff: Music: the mirror's copy has sha256")
    assert len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "Music.arff").exists()


def test_files_missing_from_the_mirror_are_reported(tmp_path, mirror_dir):
    partial = tmp_path / "partial"
    partial.mkdir()
    shutil.copy(mirror_dir / "Music.arff", partial)
    with http_mirror(partial) as url:
        rows = copy_from_mirror(url, tmp_path / "data", ["Music", "Scene"])
    assert status_of(rows) == {"Music": "downloaded", "Scene": "missing in mirror"}


def test_server_errors_and_broken_downloads_are_user_errors(mirror_dir, tmp_path):
    data_dir = tmp_path / "data"
    with http_mirror(mirror_dir) as url:
        with pytest.raises(UserError, match="the mirror answered HTTP 500"):
            copy_from_mirror(url + "/error", data_dir, ["Music"])
        with pytest.raises(UserError, match="Music: the download ended 880 bytes early"):
            copy_from_mirror(url + "/truncated", data_dir, ["Music"])
        port = url.rsplit(":", 1)[1]
    with pytest.raises(UserError, match="cannot reach the mirror"):
        copy_from_mirror(f"http://127.0.0.1:{port}", data_dir, ["Music"])
    assert not (data_dir / "Music.arff").exists()
    with pytest.raises(UserError, match="the dataset mirror folder does not exist"):
        copy_from_mirror(tmp_path / "nowhere", data_dir, ["Music"])


def test_a_users_own_files_are_fetched_with_their_xml_and_their_sha256_printed(tmp_path):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "toy.arff").write_text("@relation toy\n@attribute a numeric\n@attribute b {0,1}\n@attribute c {0,1}\n@data\n0.5,1,0\n1.5,0,1\n2.5,1,1\n")
    labels = '<label name="b"></label><label name="c"></label>'
    (mirror / "toy.xml").write_text(f'<?xml version="1.0"?>\n<labels xmlns="http://mulan.sourceforge.net/labels">{labels}</labels>\n')
    data_dir = tmp_path / "data"
    with http_mirror(mirror) as url:
        result = CliRunner().invoke(cli, ["datasets", "fetch", "Music", "toy.arff", "absent.arff.bz2", "--mirror", url, "--data-dir", str(data_dir)])
    assert result.exit_code == 0, result.output
    for file in ("toy.arff", "toy.xml"):
        assert (data_dir / file).read_bytes() == (mirror / file).read_bytes()
        assert f"downloaded, sha256 {sha256(mirror / file)}" in result.output
    assert "Music" in result.output and "absent.arff.bz2" in result.output and "missing in mirror" in result.output
    assert load_dataset(data_dir / "toy.arff").label_names == ("b", "c")
    assert leftovers(data_dir) == []
