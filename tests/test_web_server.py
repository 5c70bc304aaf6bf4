"""The browser console's server over real sockets: TLS, the password file, client
certificates, the sign-in limit, the headers, and requests from another origin refused.

Certificates are made here with the `openssl` command line; no broker is needed (the
console keeps trying to reach one while it serves).
"""

from __future__ import annotations

import asyncio
import shutil
import ssl
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import yaml
from support import free_port

from floord.web.app import CSP
from floord.web.passwords import set_password
from floord.web.server import WebConsole, build
from floord.web.settings import load_web_config

pytestmark = [
    pytest.mark.system,
    pytest.mark.skipif(not shutil.which("openssl"), reason="needs the openssl CLI"),
]
LEAF = "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n"


def openssl(folder: Path, *args: str) -> None:
    subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True)


def make_cert(folder: Path, name: str, ca: str | None, extensions: str) -> None:
    """A P-256 key and certificate `name`, signed by `ca` (None: a CA of its own)."""
    key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    out = ["-keyout", f"{name}.key", "-subj", f"/CN={name}"]
    if ca is None:
        ca_ext = ["-addext", "basicConstraints=critical,CA:TRUE"]
        ca_ext += ["-addext", "keyUsage=critical,keyCertSign,cRLSign"]
        openssl(folder, "req", "-x509", *key, *out, "-out", f"{name}.pem", "-days", "2", *ca_ext)
        return
    (folder / f"{name}.ext").write_text(extensions)
    openssl(folder, "req", "-new", *key, *out, "-out", f"{name}.csr")
    signer = ["-CA", f"{ca}.pem", "-CAkey", f"{ca}.key", "-CAcreateserial"]
    made = ["-out", f"{name}.pem", "-days", "2", "-extfile", f"{name}.ext"]
    openssl(folder, "x509", "-req", "-in", f"{name}.csr", *signer, *made)


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("web-pki")
    make_cert(folder, "floor-ca", None, "")
    server = f"{LEAF}extendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1\n"
    make_cert(folder, "console", "floor-ca", server)
    make_cert(folder, "desk-7", "floor-ca", f"{LEAF}extendedKeyUsage=clientAuth\n")
    return folder


@asynccontextmanager
async def serving(tmp_path: Path, settings: dict[str, Any]) -> AsyncIterator[WebConsole]:
    path = tmp_path / "web.yaml"
    broker = {"url": f"mqtt://127.0.0.1:{free_port()}"}  # nobody there: it keeps trying
    path.write_text(yaml.safe_dump({"broker": broker, **settings}))
    console = WebConsole(build(load_web_config(path)))
    await console.start()
    task = asyncio.create_task(console.run())
    try:
        yield console
    finally:
        console.stop()
        await task


def client_context(pki: Path, cert: str | None = None) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=pki / "floor-ca.pem")
    if cert is not None:
        context.load_cert_chain(pki / f"{cert}.pem", pki / f"{cert}.key")
    return context


def test_a_password_console_behind_tls(tmp_path: Path, pki: Path) -> None:
    set_password(tmp_path / "web.passwd", "ops", "the ops desk secret")
    settings = {
        "listen": "127.0.0.1:0",
        "passwords": "web.passwd",
        "tls": {"cert_file": str(pki / "console.pem"), "key_file": str(pki / "console.key")},
    }

    async def run() -> None:
        async with serving(tmp_path, settings) as console:
            url = console.url
            origin = {"Origin": url.rstrip("/")}
            connector = aiohttp.TCPConnector(ssl=client_context(pki))
            jar = aiohttp.CookieJar(unsafe=True)  # a cookie of an IP address's site
            async with aiohttp.ClientSession(connector=connector, cookie_jar=jar) as http:
                page = await http.get(url, allow_redirects=False)
                assert page.status == 303 and page.headers["Location"] == "/login"
                assert page.headers["Content-Security-Policy"] == CSP
                assert "max-age" in page.headers["Strict-Transport-Security"]
                assert (await http.get(f"{url}live", headers=origin)).status == 401
                login = await http.get(f"{url}login")
                assert (
                    login.status == 200
                    and "<script"
                    not in (await login.text()).split(
                        '<script type="module" src="/static/login.js">'
                    )[1]
                )
                form = {"user": "ops", "password": "wrong password"}
                foreign = {"Origin": "https://evil.example"}
                sent = await http.post(
                    f"{url}login", data=form, headers=foreign, allow_redirects=False
                )
                assert sent.status == 403
                sent = await http.post(
                    f"{url}login", data=form, headers=origin, allow_redirects=False
                )
                assert sent.headers["Location"] == "/login?failed=wrong"
                form["password"] = "the ops desk secret"
                sent = await http.post(
                    f"{url}login", data=form, headers=origin, allow_redirects=False
                )
                assert sent.status == 303 and sent.headers["Location"] == "/"
                cookie = sent.headers["Set-Cookie"]
                assert "HttpOnly" in cookie and "Secure" in cookie and "SameSite=Strict" in cookie
                who = await (await http.get(f"{url}api/whoami")).json()
                assert who == {"viewer": "ops", "login": True, "archive": False}
                assert (await http.get(f"{url}live")).status == 403  # not from its page
                ack = await http.post(f"{url}api/command", json={}, headers=foreign)
                assert ack.status == 403
                ack = await http.post(f"{url}api/command", json={"site": "x"}, headers=origin)
                assert ack.status == 400
                assert (await http.get(f"{url}static/..%2Fapp.py")).status == 404
            # Five attempts a minute from one address; the sixth is refused unread.
            async with aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(ssl=client_context(pki))
            ) as http:
                answers = []
                for _ in range(4):
                    wrong = {"user": "ops", "password": "guess"}
                    sent = await http.post(
                        f"{url}login", data=wrong, headers=origin, allow_redirects=False
                    )
                    answers.append(sent.status)
                assert answers == [303, 303, 303, 429]

    asyncio.run(run())


def test_client_certificates_name_the_viewer(tmp_path: Path, pki: Path) -> None:
    settings = {
        "listen": "127.0.0.1:0",
        "tls": {
            "cert_file": str(pki / "console.pem"),
            "key_file": str(pki / "console.key"),
            "client_ca_file": str(pki / "floor-ca.pem"),
        },
    }

    async def run() -> None:
        async with serving(tmp_path, settings) as console:
            connector = aiohttp.TCPConnector(ssl=client_context(pki, "desk-7"))
            async with aiohttp.ClientSession(connector=connector) as http:
                who = await (await http.get(f"{console.url}api/whoami")).json()
                assert who == {"viewer": "desk-7", "login": False, "archive": False}
            connector = aiohttp.TCPConnector(ssl=client_context(pki))
            async with aiohttp.ClientSession(connector=connector) as http:
                with pytest.raises(aiohttp.ClientError):
                    await (await http.get(f"{console.url}api/whoami")).read()

    asyncio.run(run())
