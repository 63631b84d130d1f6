"""A headless Chromium driven over the DevTools protocol on a pipe: no driver, no Python package.

Chromium's ``--remote-debugging-pipe`` reads protocol commands on its fd 3 and writes replies
and events on its fd 4, each message JSON ended by a NUL byte. That is enough to open a page,
collect its console errors and uncaught exceptions, click at a point with a real mouse event,
evaluate JavaScript and take a screenshot.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import time

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
)
TIMEOUT = 60.0


def _above_4(fd: int) -> int:
    """``fd`` moved to a number above 4, so that the shell's ``3<&N 4>&M`` cannot overwrite one with the other."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD, 5)
    os.close(fd)
    return moved


class Browser:
    """One Chromium with one page; ``errors`` collects console errors and uncaught exceptions."""

    def __init__(self, width: int = 1300, height: int = 900):
        if CHROMIUM is None:
            raise RuntimeError("chromium is not installed")
        self._profile = tempfile.mkdtemp(prefix="mlhidden-chromium-")
        to_browser, self._commands = os.pipe()
        self._replies, from_browser = os.pipe()
        to_browser, from_browser = _above_4(to_browser), _above_4(from_browser)  # the shell moves them to 3 and 4
        self._process = subprocess.Popen(
            [
                "/bin/bash",
                "-c",
                f'exec "$0" "$@" 3<&{to_browser} 4>&{from_browser}',
                CHROMIUM,
                *FLAGS,
                f"--user-data-dir={self._profile}",
                f"--window-size={width},{height}",
                "about:blank",
            ],
            pass_fds=(to_browser, from_browser),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_browser)
        os.close(from_browser)
        self._buffer, self._next_id, self._events, self.errors = b"", 0, [], []
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        self._session = self.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable", session=True)
        self.send(
            "Emulation.setDeviceMetricsOverride",
            session=True,
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )

    def _message(self) -> dict:
        while b"\0" not in self._buffer:
            chunk = os.read(self._replies, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self._buffer += chunk
        text, self._buffer = self._buffer.split(b"\0", 1)
        message = json.loads(text)
        if message.get("method") == "Runtime.exceptionThrown":
            details = message["params"]["exceptionDetails"]
            self.errors.append(details.get("exception", {}).get("description") or details.get("text"))
        elif message.get("method") == "Runtime.consoleAPICalled" and message["params"]["type"] == "error":
            self.errors.append(
                " ".join(str(arg.get("value", arg.get("description"))) for arg in message["params"]["args"])
            )
        elif message.get("method") == "Log.entryAdded" and message["params"]["entry"]["level"] == "error":
            self.errors.append(message["params"]["entry"]["text"])
        return message

    def send(self, method: str, session: bool = False, **params) -> dict:
        """Run one protocol command and return its result (events that arrive meanwhile are kept)."""
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self._session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._message()
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]
            self._events.append(reply)

    def open(self, url: str) -> None:
        """Load ``url`` and wait for its load event."""
        self._events.clear()
        self.send("Page.navigate", session=True, url=url)
        deadline = time.monotonic() + TIMEOUT
        while not any(event.get("method") == "Page.loadEventFired" for event in self._events):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{url} did not load in {TIMEOUT} s")
            self._events.append(self._message())

    def evaluate(self, expression: str):
        """The value of a JavaScript expression in the page."""
        result = self.send("Runtime.evaluate", session=True, expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def click(self, selector: str) -> None:
        """A real left click (press and release) at the middle of the first element matching ``selector``."""
        box = self.evaluate(
            f"(function(){{var e=document.querySelector({json.dumps(selector)});e.scrollIntoView({{block:'center'}});"
            "var r=e.getBoundingClientRect();return [r.left+r.width/2,r.top+r.height/2];})()"
        )
        for kind in ("mousePressed", "mouseReleased"):
            self.send(
                "Input.dispatchMouseEvent", session=True, type=kind, x=box[0], y=box[1], button="left", clickCount=1
            )

    def choose(self, selector: str, value: str) -> None:
        """Choose ``value`` in the ``<select>`` matching ``selector``, as a user does: its change event fires."""
        self.evaluate(
            f"(function(){{var s=document.querySelector({json.dumps(selector)});s.value={json.dumps(value)};"
            "s.dispatchEvent(new Event('change'));})()"
        )

    def screenshot(self) -> bytes:
        """A PNG of the whole page, beyond the window too."""
        data = self.send("Page.captureScreenshot", session=True, format="png", captureBeyondViewport=True)["data"]
        return base64.b64decode(data)

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (RuntimeError, OSError):
            pass
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        os.close(self._commands)
        os.close(self._replies)
        shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
