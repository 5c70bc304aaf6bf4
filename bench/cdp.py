"""A headless Chromium driven over the DevTools protocol: the web console's tests and bench.

No Selenium or Playwright: Debian's `chromium` is started with remote debugging on a free
port (read from `DevToolsActivePort` in its profile directory) and spoken to over a
WebSocket with aiohttp's client. A `Page` is one tab in its own session (flattened
`Target.attachToTarget`); it records the network traffic it sees (requests' bodies,
WebSocket frames sent), so a test can say what never left the browser.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import shutil
import subprocess
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp

from floord_demo.child_end import ends_with_this_process

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--remote-debugging-port=0",
]


BACKGROUND = [
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
]


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


class CdpError(RuntimeError):
    pass


class Browser:
    def __init__(
        self,
        proc: subprocess.Popen[bytes],
        ws: aiohttp.ClientWebSocketResponse,
        http: aiohttp.ClientSession,
    ) -> None:
        self.proc = proc
        self.ws = ws
        self.http = http
        self._next = 0
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.events: dict[str, list[tuple[str, dict[str, Any]]]] = {}
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for message in self.ws:
            body = json.loads(message.data)
            if "id" in body:
                future = self._waiting.pop(body["id"], None)
                if future is not None and not future.done():
                    future.set_result(body)
            else:
                session = body.get("sessionId", "")
                self.events.setdefault(session, []).append((body["method"], body.get("params", {})))
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(CdpError("the browser closed its DevTools socket"))

    async def send(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        session: str | None = None,
        timeout: float = 20.0,
    ) -> dict[str, Any]:
        self._next += 1
        body: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session:
            body["sessionId"] = session
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[self._next] = future
        await self.ws.send_str(json.dumps(body))
        answer = await asyncio.wait_for(future, timeout)
        if "error" in answer:
            raise CdpError(f"{method}: {answer['error']}")
        return answer.get("result", {})

    async def page(self, width: int = 1366, height: int = 768) -> Page:
        target = await self.send("Target.createTarget", {"url": "about:blank"})
        attached = await self.send(
            "Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}
        )
        page = Page(self, attached["sessionId"])
        for method in ("Page.enable", "Runtime.enable", "Network.enable"):
            await page.send(method)
        await page.size(width, height)
        return page

    async def close(self) -> None:
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._reader
        await self.ws.close()
        await self.http.close()
        self.proc.terminate()
        try:
            await asyncio.to_thread(self.proc.wait, 10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            await asyncio.to_thread(self.proc.wait, 10)


class Page:
    def __init__(self, browser: Browser, session: str) -> None:
        self.browser = browser
        self.session = session

    async def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return await self.browser.send(method, params, self.session)

    @property
    def events(self) -> list[tuple[str, dict[str, Any]]]:
        return self.browser.events.get(self.session, [])

    async def size(self, width: int, height: int) -> None:
        await self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )

    async def goto(self, url: str) -> None:
        await self.send("Page.navigate", {"url": url})
        await self.wait_for("document.readyState === 'complete'", what=f"{url} loaded")

    async def evaluate(self, expression: str) -> Any:
        result = await self.send(
            "Runtime.evaluate",
            {"expression": expression, "awaitPromise": True, "returnByValue": True},
        )
        if "exceptionDetails" in result:
            raise CdpError(f"{expression[:80]}: {result['exceptionDetails']}")
        return result.get("result", {}).get("value")

    async def wait_for(self, expression: str, timeout: float = 20.0, what: str = "") -> bool:
        """Until `expression` is true in the page (an element found is true)."""
        deadline = time.monotonic() + timeout
        last: Any = None
        while time.monotonic() < deadline:
            with contextlib.suppress(CdpError):
                last = await self.evaluate(f"Boolean({expression})")
                if last:
                    return last
            await asyncio.sleep(0.05)
        text = await self.evaluate("document.body ? document.body.innerText : ''")
        raise AssertionError(f"timed out waiting for {what or expression}; page:\n{text}")

    async def screenshot(self, path: Path) -> None:
        shot = await self.send("Page.captureScreenshot", {"format": "png"})
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(shot["data"]))

    def sent_bytes(self) -> str:
        """Everything this page sent: request URLs and bodies, WebSocket frames."""
        parts = []
        for method, params in self.events:
            if method == "Network.requestWillBeSent":
                request = params.get("request", {})
                parts.append(request.get("url", ""))
                parts.append(request.get("postData", ""))
                for entry in request.get("postDataEntries", []) or []:
                    parts.append(
                        base64.b64decode(entry.get("bytes", "")).decode("utf-8", "replace")
                    )
            elif method == "Network.webSocketFrameSent":
                parts.append(params.get("response", {}).get("payloadData", ""))
        return "\n".join(parts)


@contextlib.asynccontextmanager
async def chromium(tmp: Path, *, background: bool = False) -> AsyncIterator[Browser]:
    """A headless Chromium with its own profile under `tmp`, closed at the end;
    `background`: pages not in front keep their timers' pace (a wall of screens)."""
    path = chromium_path()
    if path is None:
        raise RuntimeError("chromium is not installed")
    profile = tmp / "chromium-profile"
    profile.mkdir()
    proc = subprocess.Popen(
        [
            path,
            *FLAGS,
            *(BACKGROUND if background else []),
            f"--user-data-dir={profile}",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        # A bench or test run killed outright takes its browser with it (the browser
        # ends its own renderers); started from a worker thread, the browser is left free.
        preexec_fn=ends_with_this_process(),
    )
    http = aiohttp.ClientSession()
    try:
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not port_file.exists() or len(port_file.read_text().splitlines()) < 2:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("chromium did not start its DevTools endpoint")
            await asyncio.sleep(0.05)
        port, ws_path = port_file.read_text().splitlines()[:2]
        ws = await http.ws_connect(f"ws://127.0.0.1:{port}{ws_path}", max_msg_size=0)
    except BaseException:
        await http.close()
        proc.kill()
        proc.wait(10)
        raise
    browser = Browser(proc, ws, http)
    try:
        yield browser
    finally:
        await browser.close()
