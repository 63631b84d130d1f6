"""Copying dataset files from a mirror folder or an http(s) server into the data path, verified.

The paper's datasets ship with the project (``datasets/``); fetching is for the others: a file
no copy of which is distributed (MediaMill), a mirror kept elsewhere, or a user's own ARFF files
(with their Mulan XML), which have no manifest entry: those are copied as they are, and the
sha256 each got is reported so a config or a paper can quote it.
"""

from __future__ import annotations

import errno
import functools
import hashlib
import http.client
import os
import socket
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable
from pathlib import Path
from types import TracebackType
from typing import IO

from mlhidden.data.arff import read_arff
from mlhidden.data.arff.mulan import ARFF_SUFFIXES, read_label_names, xml_names
from mlhidden.data.catalog import dataset_kind, resolve_data_dir, select_entries
from mlhidden.errors import UserError
from mlhidden.io import PathLike, sha256_of, write_atomically

HTTP_TIMEOUT_SECONDS = 60
"""The longest wait for any one read from the server, the status line and headers included."""
FETCH_DEADLINE_SECONDS = 3600.0
"""The longest a file may take to arrive in all, headers included (a server trickling bytes meets no per-read
timeout)."""
_CHUNK = 1 << 20
# A mirror's file opened: its binary stream and where it is (a URL or a path).
Source = tuple[IO[bytes], str | Path]


class _Deadline:
    """One file's time limit, kept while any read waits: when it passes, a timer shuts the connection.

    Checking the clock between reads cannot stop a server that sends its headers one byte at a
    time, each within the per-read timeout; shutting the socket ends the read it is waiting in.
    """

    def __init__(self, seconds: float, label: str) -> None:
        self.seconds = seconds
        self.label = label
        self.passed = False
        self._socket: socket.socket | None = None
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def __enter__(self) -> _Deadline:
        self._timer.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self._timer.cancel()

    def watch(self, connection: socket.socket) -> None:
        with self._lock:
            self._socket = connection
            if self.passed:
                self._shut()

    def _expire(self) -> None:
        with self._lock:
            self.passed = True
            self._shut()

    def _shut(self) -> None:
        if self._socket is not None:
            try:
                self._socket.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # already closed

    def error(self, origin: str | Path) -> UserError:
        return UserError(f"{self.label}: the download took longer than {self.seconds:g} s; not written", path=origin,
                         hint="try again, or give it longer with --deadline")


Connection = type[http.client.HTTPConnection]


def _watched(deadline: _Deadline, connection_class: Connection) -> Connection:
    """``connection_class`` whose socket ``deadline`` can shut."""

    class Watched(connection_class):  # type: ignore[valid-type,misc]
        def connect(self) -> None:
            super().connect()
            deadline.watch(self.sock)

    return Watched


class _WatchedHandler(urllib.request.HTTPHandler, urllib.request.HTTPSHandler):
    """Opens http and https connections whose socket ``deadline`` can shut."""

    def __init__(self, deadline: _Deadline) -> None:
        super().__init__()
        self._deadline = deadline

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_watched(self._deadline, http.client.HTTPConnection), req)

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_watched(self._deadline, http.client.HTTPSConnection), req)


def copy_from_mirror(
    mirror: PathLike, data_dir: PathLike | None = None, names: Iterable[str] | None = None,
    deadline: float | None = None, allow_unverified: bool = False,
) -> list[dict[str, str]]:
    """Copy or download the catalog files of a mirror into the data path, verified by sha256.

    Each file is streamed into a temporary file beside its destination while it is hashed, and
    renamed into place only when the checksum is the manifest's, so an interrupted or corrupted
    transfer leaves nothing behind. Files already present with the right checksum are left alone.

    Parameters
    ----------
    mirror : str or os.PathLike
        A folder holding the dataset files (e.g. the project's shared mirror), or an http(s)
        base URL under which each file is ``<mirror>/<file name>``.
    data_dir : str or os.PathLike, optional
        The destination (see :func:`mlhidden.data.resolve_data_dir`); created if needed.
    names : iterable of str, optional
        Catalog names to fetch (default: all), or file names of a user's own ARFF files in the
        mirror (``mine.arff``, ``.arff.gz``, ``.arff.bz2``), each with its Mulan XML if the
        mirror has one (:func:`~mlhidden.data.arff.mulan.xml_names`). No checksum vouches for those.
    deadline : float, optional
        Seconds each file may take in all, from the request to its last byte (default
        ``FETCH_DEADLINE_SECONDS``).
    allow_unverified : bool
        Keep a file that no checksum vouches for even when the server does not announce its
        length (so a cut transfer looks whole): a user's ARFF file is then kept only if it loads
        completely. Without it, such a file is refused before it is downloaded.

    Returns
    -------
    list of dict
        Rows with keys name, file, status ("copied", "downloaded", "already present", "missing
        in mirror" or "not available (...)"; for a user's file, what was done and its sha256).

    Raises
    ------
    UserError
        The mirror folder does not exist, the server cannot be reached or answers with an error,
        a file takes longer than ``deadline``, a mirror file's checksum differs from the manifest,
        a file without checksum is sent without a length (unless ``allow_unverified``; then, if it
        does not load), or the data path cannot be written (disk full, read-only).
    """
    deadline = FETCH_DEADLINE_SECONDS if deadline is None else deadline
    open_source, fetched = _mirror(mirror, min(HTTP_TIMEOUT_SECONDS, deadline))
    copy = functools.partial(_fetch_one, open_source, deadline, allow_unverified)
    data_dir = resolve_data_dir(data_dir)
    own_files = [name for name in names or () if _is_own_file(name)]
    rows = []
    for entry in select_entries(None if names is None else [name for name in names if name not in own_files]):
        target = data_dir / entry.file
        if target.is_file() and entry.sha256 is not None and sha256_of(target) == entry.sha256:
            status = "already present"
        elif copy(entry.file, data_dir / entry.file, entry.name, entry.sha256) is None:
            status = entry.unavailable_status if entry.user_supplied else "missing in mirror"
        else:
            status = fetched
        rows.append({"name": entry.name, "file": entry.file, "status": status})
    for file in own_files:
        xml = None
        for name in xml_names(file):  # the XML first: it may be needed to load the ARFF
            if (found := copy(name, data_dir / name, name, None, _loads_xml)) is not None:
                xml = data_dir / name
                rows.append({"name": file, "file": name, "status": f"{fetched}, sha256 {found}"})
                break
        found = copy(file, data_dir / file, file, None, functools.partial(_loads_arff, labels_xml=xml))
        status = "missing in mirror" if found is None else f"{fetched}, sha256 {found}"
        rows.append({"name": file, "file": file, "status": status})
    return rows


def _loads_arff(path: Path, labels_xml: Path | None = None) -> None:
    read_arff(path, labels_xml=labels_xml)


def _loads_xml(path: Path) -> None:
    read_label_names(path)


def _is_own_file(name: str) -> bool:
    """A name to fetch that is an ARFF file name rather than a catalog dataset."""
    return "/" not in name and name.lower().endswith(ARFF_SUFFIXES) and dataset_kind(name) != "catalog"


def _fetch_one(
    open_source: Callable[[str, _Deadline], Source | None], seconds: float, allow_unverified: bool, file: str,
    target: Path, label: str, expected_sha256: str | None, check: Callable[[Path], None] | None = None,
) -> str | None:
    """Copy the mirror's ``file`` to ``target`` within ``seconds`` (:func:`_copy`); None if the mirror lacks it."""
    with _Deadline(seconds, label) as deadline:
        source = open_source(file, deadline)
        if source is None:
            return None
        return _copy(source, target, label, expected_sha256, deadline, check, allow_unverified)


def _copy(
    source: Source, target: Path, label: str, expected_sha256: str | None, deadline: _Deadline,
    check: Callable[[Path], None] | None, allow_unverified: bool,
) -> str:
    """Write the mirror's ``(stream, origin)`` to ``target`` atomically; the sha256 written.

    A transfer of unknown length without a checksum is refused unless ``allow_unverified``; then
    it is written under a hidden name first and renamed into place only once ``check(path)``
    loads it (a UserError refuses it).
    """
    stream, origin = source
    copy = functools.partial(_copy_verified, stream, label, expected_sha256, origin, deadline)
    unverified = expected_sha256 is None and getattr(stream, "length", 0) is None
    if unverified and not allow_unverified:
        stream.close()
        raise UserError(
            f"{label}: the server sent no length and no checksum vouches for the file, so a cut transfer would "
            "look whole; not written", path=origin,
            hint="fetch it from a server that sends Content-Length, or pass --allow-unverified to keep it if it loads",
        )
    staged = target.with_name(f".unverified-{target.name}")
    try:
        with stream:
            target.parent.mkdir(parents=True, exist_ok=True)
            if not (unverified and check is not None):
                return write_atomically(target, copy)
            found = write_atomically(staged, copy)
        try:
            check(staged)
        except UserError as exc:
            raise UserError(
                f"{label}: the server sent no length and the file does not load completely ({exc.message}); "
                "not written",
                path=origin,
                hint="try again, or fetch it from a server that sends Content-Length",
            ) from None
        os.replace(staged, target)
        return found
    except OSError as exc:
        full = exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC))
        raise UserError(
            f"{label}: cannot write {target}: {exc.strerror or exc}; not written",
            path=origin,
            hint="free some space or choose another --data-dir"
            if full
            else "check that the data path is writable, or choose another --data-dir",
        ) from None
    finally:
        if unverified:
            try:
                staged.unlink(missing_ok=True)
            except OSError:
                pass  # a read-only data path: nothing was written there


def _mirror(mirror: PathLike, timeout: float) -> tuple[Callable[[str, _Deadline], Source | None], str]:
    """``(open, status)``: ``open(file name, deadline)`` gives ``(binary stream, location)``, or None when the mirror
    lacks the file; ``timeout`` bounds each read from a server."""
    text = str(mirror)
    if text.lower().startswith(("http://", "https://")):
        base = text.rstrip("/") + "/"

        def open_url(file: str, deadline: _Deadline) -> Source | None:
            url = base + urllib.parse.quote(file)
            opener = urllib.request.build_opener(_WatchedHandler(deadline))
            try:
                return opener.open(url, timeout=timeout), url
            except urllib.error.HTTPError as exc:
                exc.close()
                if exc.code == 404:
                    return None
                raise UserError(f"the mirror answered HTTP {exc.code} ({exc.reason})", path=url) from None
            except (OSError, http.client.HTTPException) as exc:
                if deadline.passed:
                    raise deadline.error(url) from None
                reason = getattr(exc, "reason", exc)
                raise UserError(
                    f"cannot reach the mirror: {reason}", path=url, hint="check the URL and the network"
                ) from None

        return open_url, "downloaded"
    folder = Path(mirror)
    if not folder.is_dir():
        raise UserError(
            "the dataset mirror folder does not exist", path=folder, hint="give a folder or an http(s) base URL"
        )

    def open_file(file: str, deadline: _Deadline) -> Source | None:
        path = folder / file
        return (open(path, "rb"), path) if path.is_file() else None

    return open_file, "copied"


def _copy_verified(
    stream: IO[bytes], label: str, expected_sha256: str | None, origin: str | Path, deadline: _Deadline,
    out: IO[bytes],
) -> str:
    """Copy ``stream`` to ``out`` while hashing it, within ``deadline``; refuse (UserError) a checksum other than
    ``expected_sha256`` (the manifest's; None for a user's file). The sha256 copied."""
    digest = hashlib.sha256()
    read = getattr(stream, "read1", stream.read)  # what has arrived, so that the deadline is checked between reads
    while True:
        try:
            chunk = read(_CHUNK)
        except (OSError, http.client.HTTPException) as exc:
            if deadline.passed:
                raise deadline.error(origin) from None
            raise UserError(
                f"{label}: reading the mirror's copy failed: {exc}", path=origin, hint="try again"
            ) from None
        if deadline.passed:  # the connection was shut: what arrived may look like the end of the file
            raise deadline.error(origin)
        if not chunk:
            break
        digest.update(chunk)
        out.write(chunk)
    owed = getattr(stream, "length", None)  # bytes an HTTP response announced but never sent
    if owed:
        raise UserError(f"{label}: the download ended {owed} bytes early", path=origin, hint="try again")
    found = digest.hexdigest()
    if expected_sha256 is not None and found != expected_sha256:
        raise UserError(
            f"{label}: the mirror's copy has sha256 {found}, expected {expected_sha256}; not copied",
            path=origin,
            hint="the mirror file is damaged or another version: restore it from the manifest's source",
        )
    return found
