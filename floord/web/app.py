"""The web console's HTTP side: pages, the live socket, sign-in, the forwarded command.

Every response carries a strict Content-Security-Policy (scripts and styles from the
console itself, none inline, no frames) and is not cached. Every page but the sign-in
page needs a viewer (`floord.web.auth`); a request that changes something must come from
the console's own origin.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

from aiohttp import WSMsgType, web

from floord.untrusted import read_json
from floord.web.auth import COOKIE, Access, certificate_user
from floord.web.commands import MAX_BODY, command_problem
from floord.web.history import History
from floord.web.history_api import HISTORY, add_history
from floord.web.hub import Hub, Viewer

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; object-src 'none'; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)
PAGES = {
    "/": "floor.html",
    "/table": "table.html",
    "/alerts": "alerts.html",
    "/history": "history.html",
}
OPEN = frozenset({"/login", "/static/login.js", "/static/style.css"})
COMMAND_TIMEOUT_S = 12.0
HUB: web.AppKey[Hub] = web.AppKey("hub", Hub)
ACCESS: web.AppKey[Access] = web.AppKey("access", Access)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def static_text(name: str) -> bytes:
    return resources.files("floord.web").joinpath("static", name).read_bytes()


TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css"}


@web.middleware
async def headers(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        response = await handler(request)
    except web.HTTPException as exc:
        response = exc
    response.headers["Content-Security-Policy"] = CSP
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["Cache-Control"] = "no-store"
    if request.secure:
        response.headers["Strict-Transport-Security"] = "max-age=31536000"
    if isinstance(response, web.HTTPException):
        raise response
    return response


def same_origin(request: web.Request) -> bool:
    """The request came from a page of this console (the browser's `Origin`)."""
    origin = request.headers.get("Origin")
    if not origin:
        return False
    parts = urlsplit(origin)
    return parts.scheme == request.scheme and parts.netloc == request.host


@web.middleware
async def viewers(request: web.Request, handler: Handler) -> web.StreamResponse:
    access = request.app[ACCESS]
    user = viewer_of(request, access)
    if (
        request.method not in ("GET", "HEAD")
        and request.path != "/login"
        and not same_origin(request)
    ):
        raise web.HTTPForbidden(text="a request from the console's own page expected")
    if user is None and request.path not in OPEN:
        if request.path in PAGES:
            raise web.HTTPSeeOther("/login")
        raise web.HTTPUnauthorized(text="sign in first")
    return await handler(request)


def viewer_of(request: web.Request, access: Access) -> str | None:
    """Who is looking, by the console's rules; None: nobody it lets in."""
    cert_user = None
    if access.client_certs and request.transport is not None:
        cert_user = certificate_user(request.transport.get_extra_info("peercert"))
        if cert_user is None:
            return None
    if access.needs_login:
        return access.session_user(request.cookies.get(COOKIE))
    if cert_user is not None:
        return cert_user
    return "anonymous" if access.anonymous else None


def viewer_name(request: web.Request) -> str:
    """The viewer the middleware let in (it refused the request otherwise)."""
    return viewer_of(request, request.app[ACCESS]) or ""


async def page(request: web.Request) -> web.Response:
    return web.Response(body=static_text(PAGES[request.path]), content_type="text/html")


async def static(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    suffix = name[name.rfind(".") :] if "." in name else ""
    if "/" in name or name.startswith(".") or suffix not in TYPES:
        raise web.HTTPNotFound()
    try:
        body = static_text(name)
    except (FileNotFoundError, IsADirectoryError):
        raise web.HTTPNotFound() from None
    return web.Response(body=body, content_type=TYPES[suffix])


async def login_page(request: web.Request) -> web.Response:
    return web.Response(body=static_text("login.html"), content_type="text/html")


async def login(request: web.Request) -> web.StreamResponse:
    access = request.app[ACCESS]
    if not access.needs_login:
        raise web.HTTPSeeOther("/")
    if not same_origin(request):
        raise web.HTTPForbidden(text="a sign-in from the console's own page expected")
    form = await request.post()
    user, password = form.get("user"), form.get("password")
    if not isinstance(user, str) or not isinstance(password, str):
        raise web.HTTPSeeOther("/login?failed=form")
    token, why = await access.sign_in(request.remote or "?", user, password)
    if token is None:
        code = "limit" if why.startswith("too many") else "wrong"
        if code == "limit":
            raise web.HTTPTooManyRequests(text=why)
        raise web.HTTPSeeOther(f"/login?failed={code}")
    response = web.HTTPSeeOther("/")
    response.set_cookie(COOKIE, token, **access.cookie_options())
    raise response


async def logout(request: web.Request) -> web.StreamResponse:
    request.app[ACCESS].end(request.cookies.get(COOKIE))
    response = web.HTTPSeeOther("/login")
    response.del_cookie(COOKIE, path="/")
    raise response


async def live(request: web.Request) -> web.StreamResponse:
    """The page's live socket: its snapshot first, then what changes."""
    if not same_origin(request):
        raise web.HTTPForbidden(text="a socket from the console's own page expected")
    hub = request.app[HUB]
    page_name = request.query.get("page", "floor")
    if page_name not in ("floor", "table", "alerts"):
        raise web.HTTPBadRequest(text="page: floor, table or alerts expected")
    key = None
    if page_name == "table":
        key = (request.query.get("site", ""), request.query.get("table", ""))
    ws = web.WebSocketResponse(heartbeat=20.0, max_msg_size=4096)
    await ws.prepare(request)

    async def send(body: dict[str, Any]) -> None:
        await ws.send_str(json.dumps(body, separators=(",", ":"), ensure_ascii=False))

    viewer = Viewer(send=send, close=ws.close, page=page_name, key=key, user=viewer_name(request))
    hub.join(viewer)
    pump = asyncio.create_task(hub.pump(viewer))
    try:
        async for message in ws:
            if message.type != WSMsgType.TEXT:
                break  # the browser says nothing but its page; anything else ends it
            if message.data == "snapshot":
                hub.push(viewer, hub.snapshot(viewer))
    finally:
        hub.leave(viewer)
        pump.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await pump
    return ws


async def command(request: web.Request) -> web.Response:
    """Forward a command the browser signed; answer with the table's reply."""
    if request.content_type != "application/json":
        raise web.HTTPUnsupportedMediaType(text="application/json expected")
    raw = await request.content.read(MAX_BODY + 1)
    if len(raw) > MAX_BODY:
        raise web.HTTPRequestEntityTooLarge(max_size=MAX_BODY, actual_size=len(raw))
    try:
        body = read_json(raw)
    except ValueError:
        return web.json_response({"ok": False, "error": "JSON expected"}, status=400)
    problem = command_problem(body)
    hub = request.app[HUB]
    key = (body.get("site"), body.get("table")) if isinstance(body, dict) else None
    if problem is None and (key not in hub.model.tables or not hub.shown(key)):
        problem = "a table this console shows expected"
    if problem is not None:
        return web.json_response({"ok": False, "error": problem}, status=400)
    ok, error = await hub.forward(
        viewer_name(request), body["site"], body["table"], body["command"], COMMAND_TIMEOUT_S
    )
    return web.json_response({"ok": ok, "error": error, "id": body["command"]["id"]})


async def whoami(request: web.Request) -> web.Response:
    access = request.app[ACCESS]
    return web.json_response(
        {
            "viewer": viewer_name(request),
            "login": access.needs_login,
            "archive": HISTORY in request.app,
        }
    )


async def close_viewers(app: web.Application) -> None:
    """The server is stopping: end every live socket now (its handler returns), rather
    than wait out aiohttp's grace period; each page says it is not current and
    reconnects."""
    for viewer in list(app[HUB].viewers):
        if viewer.close is not None:
            with contextlib.suppress(Exception):
                await viewer.close()


def build_app(hub: Hub, access: Access, history: History | None = None) -> web.Application:
    """The console's routes; the History page and its API only with an archive."""
    app = web.Application(middlewares=[headers, viewers], client_max_size=MAX_BODY)
    app.on_shutdown.append(close_viewers)
    app[HUB] = hub
    app[ACCESS] = access
    for path in PAGES:
        if path != "/history" or history is not None:
            app.router.add_get(path, page)
    if history is not None:
        add_history(app, history)
    app.router.add_get("/static/{name}", static)
    app.router.add_get("/login", login_page)
    app.router.add_post("/login", login)
    app.router.add_post("/logout", logout)
    app.router.add_get("/live", live)
    app.router.add_get("/api/whoami", whoami)
    app.router.add_post("/api/command", command)
    return app
