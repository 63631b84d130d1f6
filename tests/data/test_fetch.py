"""`datasets fetch` from a mirror folder and from a real HTTP server on 127.0.0.1, checksums enforced."""

import contextlib
import functools
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner

from mlhidden.cli import cli
from mlhidden.data import catalog_entries, copy_from_mirror, load_dataset
from mlhidden.errors import UserError

SMALL = ["Music", "Medical"]


TRICKLE_SECONDS = 0.1
TRICKLE_BYTES = 300
"""``/slow/...`` sends one byte every TRICKLE_SECONDS, at most TRICKLE_BYTES of them (so a client without a deadline
ends too); ``/slow-headers/...`` sends its headers so, one byte every HEADER_TRICKLE_SECONDS."""
HEADER_TRICKLE_SECONDS = 0.5


class MirrorHandler(SimpleHTTPRequestHandler):
    """Serves a folder; ``/error/...`` answers 500, ``/truncated/...`` drops the connection half-way,
    ``/nolength/...`` sends the first half of a file with no Content-Length (an end the client
    cannot tell from the real one), ``/full-nolength/...`` the whole file without it, and
    ``/slow/...`` trickles a file's bytes, ``/slow-headers/...`` the bytes of a header."""

    def do_GET(self):
        if self.path.startswith("/slow-headers/"):
            self.wfile.write(b"HTTP/1.0 200 OK\r\n")
            with contextlib.suppress(OSError):  # the client hung up
                for byte in b"X-Trickle: " + b"x" * 60:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(HEADER_TRICKLE_SECONDS)
            self.close_connection = True
            return
        if self.path.startswith(("/nolength/", "/full-nolength/", "/slow/")):
            kind, _, file = self.path[1:].partition("/")
            if not (Path(self.directory) / file).is_file():
                self.send_error(404)
                return
            content = (Path(self.directory) / file).read_bytes()
            self.send_response(200)
            if kind == "slow":
                self.send_header("Content-Length", str(len(content)))
            self.end_headers()
            if kind == "slow":
                for byte in content[:TRICKLE_BYTES]:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(TRICKLE_SECONDS)
            else:
                self.wfile.write(content[: len(content) // 2] if kind == "nolength" else content)
            self.close_connection = True
        elif self.path.startswith("/error/"):
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


class _Server(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], OSError):  # not a client that hung up mid-answer
            super().handle_error(request, client_address)


@contextlib.contextmanager
def http_mirror(folder):
    """A real HTTP server on 127.0.0.1 (a free port) serving ``folder``; yields its base URL."""
    server = _Server(("127.0.0.1", 0), functools.partial(MirrorHandler, directory=str(folder)))
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
    return next(entry.sha256 for entry in catalog_entries() if entry.name == name)


def leftovers(folder):
    return sorted(path.name for path in folder.iterdir() if path.name.startswith("."))


def test_fetch_from_a_loopback_http_mirror(mirror_dir, tmp_path):
    data_dir = tmp_path / "data"
    with http_mirror(mirror_dir) as url:
        rows = copy_from_mirror(url + "/", data_dir, SMALL + ["MediaMill"])
        assert status_of(rows) == {
            "Music": "downloaded",
            "Medical": "downloaded",
            "MediaMill": "not available (put MediaMill.arff in the data path)",
        }
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
        with pytest.raises(
            UserError,
            match=f"Music: the mirror's copy has sha256 [0-9a-f]{{64}}, expected {expected_sha256('Music')}; "
            "not copied",
        ):
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
    (mirror / "toy.arff").write_text(
        "@relation toy\n@attribute a numeric\n@attribute b {0,1}\n@attribute c {0,1}\n"
        "@data\n0.5,1,0\n1.5,0,1\n2.5,1,1\n"
    )
    labels = '<label name="b"></label><label name="c"></label>'
    (mirror / "toy.xml").write_text(f'<?xml version="1.0"?>\n<labels xmlns="http://mulan.sourceforge.net/labels">{labels}</labels>\n')
    data_dir = tmp_path / "data"
    with http_mirror(mirror) as url:
        result = CliRunner().invoke(
            cli,
            ["datasets", "fetch", "Music", "toy.arff", "absent.arff.bz2", "--mirror", url, "--data-dir", str(data_dir)],
        )
    assert result.exit_code == 1, "Music and absent.arff.bz2 were asked for and are missing: " + result.output
    for file in ("toy.arff", "toy.xml"):
        assert (data_dir / file).read_bytes() == (mirror / file).read_bytes()
        assert f"downloaded, sha256 {sha256(mirror / file)}" in result.output
    assert "Music" in result.output and "absent.arff.bz2" in result.output and "missing in mirror" in result.output
    assert load_dataset(data_dir / "toy.arff").label_names == ("b", "c")
    assert leftovers(data_dir) == []


def test_an_own_split_file_is_fetched_with_the_xml_named_for_its_dataset(tmp_path):
    """Mulan publishes tmc2007-500-train.arff beside tmc2007.xml (here the corpus's tmc-500-train.arff and tmc.xml)."""
    corpus = Path(__file__).resolve().parents[1] / "fixtures" / "mulan"
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    for file in ("tmc-500-train.arff", "tmc.xml"):
        shutil.copy(corpus / file, mirror / file)
    with http_mirror(mirror) as url:
        rows = copy_from_mirror(url, tmp_path / "data", ["tmc-500-train.arff"])
    assert [row["file"] for row in rows] == ["tmc.xml", "tmc-500-train.arff"]
    assert load_dataset(tmp_path / "data" / "tmc-500-train.arff").label_names == ("10", "11", "12")


TOY_ROWS = "".join(f"{i}.5,{i % 2},{(i // 2) % 2}\n" for i in range(20))
TOY_ARFF = "@relation 'toy: -C -2'\n@attribute a numeric\n@attribute b {0,1}\n@attribute c {0,1}\n@data\n" + TOY_ROWS


@pytest.fixture
def own_mirror(tmp_path):
    """A mirror holding a user's own ``toy.arff`` (20 rows, labels by ``-C``), which no manifest vouches for."""
    mirror = tmp_path / "own"
    mirror.mkdir()
    (mirror / "toy.arff").write_text(TOY_ARFF)
    return mirror


def test_an_own_file_sent_without_length_is_refused_unless_allowed(own_mirror, tmp_path):
    data_dir = tmp_path / "data"
    with http_mirror(own_mirror) as url:
        fetch = ["datasets", "fetch", "toy.arff", "--mirror", url + "/full-nolength", "--data-dir", str(data_dir)]
        refused = CliRunner().invoke(cli, fetch)
        allowed = CliRunner().invoke(cli, [*fetch, "--allow-unverified"])
    assert refused.exit_code == 2 and refused.stderr == (
        f"error: {url}/full-nolength/toy.arff: toy.arff: the server sent no length and no checksum vouches for the "
        "file, so a cut transfer would look whole; not written (fetch it from a server that sends Content-Length, "
        "or pass --allow-unverified to keep it if it loads)\n"
    )
    assert allowed.exit_code == 0, allowed.output
    assert (data_dir / "toy.arff").read_bytes() == (own_mirror / "toy.arff").read_bytes()
    assert leftovers(data_dir) == []


def test_an_own_file_sent_without_length_is_kept_when_allowed_only_if_it_loads_completely(own_mirror, tmp_path):
    data_dir = tmp_path / "data"
    with http_mirror(own_mirror) as url:
        with pytest.raises(
            UserError, match="toy.arff: the server sent no length and the file does not load completely"
        ):
            copy_from_mirror(url + "/nolength", data_dir, ["toy.arff"], allow_unverified=True)
        assert not (data_dir / "toy.arff").exists() and leftovers(data_dir) == []
        rows = copy_from_mirror(url + "/full-nolength", data_dir, ["toy.arff"], allow_unverified=True)
    assert rows[0]["status"] == f"downloaded, sha256 {sha256(own_mirror / 'toy.arff')}"
    assert load_dataset(data_dir / "toy.arff").n_samples == 20
    assert leftovers(data_dir) == []


def test_a_trickling_server_meets_the_overall_deadline(mirror_dir, tmp_path):
    data_dir = tmp_path / "data"
    with http_mirror(mirror_dir) as url:
        with pytest.raises(UserError, match=r"Music: the download took longer than 1 s; not written"):
            copy_from_mirror(url + "/slow", data_dir, ["Music"], deadline=1)
    assert not (data_dir / "Music.arff").exists() and leftovers(data_dir) == []


def test_a_server_trickling_its_headers_meets_the_deadline(mirror_dir, tmp_path):
    """Each header byte comes well within the per-read timeout; the deadline still ends the wait."""
    with http_mirror(mirror_dir) as url:
        started = time.monotonic()
        result = CliRunner().invoke(
            cli, ["datasets", "fetch", "Music", "--mirror", url + "/slow-headers", "--deadline", "2",
                  "--data-dir", str(tmp_path / "data")],
        )
        took = time.monotonic() - started
    assert result.exit_code == 2 and result.stderr == (
        f"error: {url}/slow-headers/Music.arff: Music: the download took longer than 2 s; not written "
        "(try again, or give it longer with --deadline)\n"
    )
    assert took < 10


def test_a_named_dataset_the_mirror_lacks_exits_non_zero(tmp_path, mirror_dir):
    partial = tmp_path / "partial"
    partial.mkdir()
    shutil.copy(mirror_dir / "Music.arff", partial)
    with http_mirror(partial) as url:
        result = CliRunner().invoke(
            cli, ["datasets", "fetch", "Music", "Scene", "--mirror", url, "--data-dir", str(tmp_path / "data")]
        )
    assert result.exit_code == 1, result.output
    assert "missing in mirror" in result.output and (tmp_path / "data" / "Music.arff").exists()


def _fetch_command(*args):
    return [sys.executable, "-m", "mlhidden", "datasets", "fetch", *args]


def test_sigterm_mid_download_leaves_no_temporary_file(mirror_dir, tmp_path):
    data_dir = tmp_path / "data"
    with http_mirror(mirror_dir) as url:
        fetch = subprocess.Popen(
            _fetch_command("Music", "--mirror", url + "/slow", "--data-dir", str(data_dir)),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        try:
            deadline = time.monotonic() + 60
            while (
                not (data_dir.is_dir() and leftovers(data_dir)) and fetch.poll() is None and time.monotonic() < deadline
            ):
                time.sleep(0.02)
            assert fetch.poll() is None and leftovers(data_dir), "the download is under way"
            fetch.send_signal(signal.SIGTERM)
            _, stderr = fetch.communicate(timeout=60)
        finally:
            if fetch.poll() is None:
                fetch.kill()
                fetch.communicate()
    assert fetch.returncode == 128 + signal.SIGTERM, stderr
    assert leftovers(data_dir) == [] and not (data_dir / "Music.arff").exists()
    assert "Traceback" not in stderr and stderr.startswith("interrupted: ") and len(stderr.strip().splitlines()) == 1, (
        stderr
    )


@pytest.mark.skipif(
    not shutil.which("unshare") or sys.platform != "linux", reason="needs unshare to mount a small tmpfs"
)
@pytest.mark.parametrize(
    "options, expected",
    [("size=64k", "No space left on device"), ("ro", "Read-only file system")],
    ids=["full", "read-only"],
)
def test_a_full_or_read_only_disk_is_one_line_and_leaves_no_temporary_file(mirror_dir, tmp_path, options, expected):
    """The data path is a tmpfs (mounted in a private mount namespace): 64 KiB, smaller than Music.arff, or
    read-only."""
    data_dir = tmp_path / "small"
    data_dir.mkdir()
    fetch = " ".join(_fetch_command("Music", "--mirror", str(mirror_dir), "--data-dir", str(data_dir)))
    script = f"mount -t tmpfs -o {options} tmpfs {data_dir} || exit 99; {fetch}; echo exit=$?; ls -A {data_dir}"
    done = subprocess.run(["unshare", "-Urm", "sh", "-c", script], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": os.getcwd()})
    if done.returncode == 99 or "unshare:" in done.stderr:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    assert done.stdout.splitlines() == ["exit=2"], done.stdout + done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert done.stderr.startswith("error: ") and expected in done.stderr
