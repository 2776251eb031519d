"""deploy/nginx.conf, the reverse proxy of docs/deploy.md: nginx accepts it
(``nginx -t``), and with it in front of two ``marjolet serve`` processes a
game is played through the one public address; deploy/marjolet@.service,
the processes' systemd unit, starts them as the docs say."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path

import pytest

from marjolet.cli import build_parser
from services import held_port
from web_support import Browser, LiveServer, serve_process

CONF = Path(__file__).parent.parent / "deploy" / "nginx.conf"
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
needs_nginx = pytest.mark.skipif(
    NGINX is None, reason="nginx is not installed (scripts/install-services.sh installs it)"
)


def nginx(prefix: Path, conf: Path, *extra: str) -> list[str]:
    """The nginx command for ``conf`` with everything it writes in ``prefix``."""
    (prefix / "logs").mkdir(exist_ok=True)
    assert NGINX is not None
    globals_ = f"pid {prefix}/nginx.pid; error_log {prefix}/logs/error.log;"
    return [
        NGINX,
        "-p",
        str(prefix),
        "-c",
        str(conf),
        "-e",
        str(prefix / "logs/error.log"),
        "-g",
        globals_ + " ".join(extra),
    ]


def newer_than(browser: Browser, version: int) -> None:
    browser.recv_until(lambda m: m["type"] == "state" and m["version"] > version)


def test_the_proxy_config_names_every_process_and_passes_websockets() -> None:
    text = CONF.read_text()
    assert len(re.findall(r"server 127\.0\.0\.1:800\d", text)) == 4
    assert "proxy_set_header Upgrade $http_upgrade;" in text
    assert "least_conn;" in text and "ip_hash" not in text  # no sticky sessions


@needs_nginx
def test_nginx_accepts_the_proxy_config(tmp_path: Path) -> None:
    result = subprocess.run(
        [*nginx(tmp_path, CONF, ""), "-t"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "syntax is ok" in result.stderr


@needs_nginx
def test_a_game_is_played_through_nginx_over_two_processes(
    tmp_path: Path, postgres_url: str, redis_url: str
) -> None:
    with ExitStack() as stack:
        ports = []
        for _ in range(2):
            _, base = stack.enter_context(
                serve_process(postgres_url, "--broker", redis_url, "--behind-proxy", "localhost")
            )
            ports.append(int(base.rsplit(":", 1)[1]))
        public = stack.enter_context(held_port())  # nginx's, nobody else's meanwhile
        text = CONF.read_text().replace("listen 80;", f"listen 127.0.0.1:{public};")
        text = text.replace("server_name marjolet.example;", "server_name localhost;")
        upstreams = iter([*ports, *ports])
        text = re.sub(r"127\.0\.0\.1:800\d", lambda _: f"127.0.0.1:{next(upstreams)}", text)
        text = text.replace("worker_processes auto;", "worker_processes 1;")
        conf = tmp_path / "nginx.conf"
        conf.write_text(text)
        proxy = subprocess.Popen(nginx(tmp_path, conf, "daemon off;"), stderr=subprocess.PIPE)
        stack.callback(proxy.wait, 10)
        stack.callback(proxy.terminate)
        site = LiveServer(f"http://localhost:{public}", None, None)  # type: ignore[arg-type]
        deadline = time.monotonic() + 20
        while True:
            try:
                with site.http() as client:
                    if client.get("/api/options").status_code == 200:
                        break
            except Exception:
                pass
            assert time.monotonic() < deadline, "nginx did not answer"
            time.sleep(0.1)
        # as a browser does: every POST and socket carries the page's Origin,
        # whose port the proxy must pass on in Host (a site on any port)
        browser_like = {"origin": site.base}
        with site.http() as client:
            made = client.post(
                "/api/games",
                json={"mode": "friend", "name": "Ann", "rules": {"profile": "classic"}},
                headers=browser_like,
            )
            assert made.status_code == 200, made.text
            game = made.json()
            invite = game["invite_url"].split("#invite=")[1]
            joined = client.post(
                f"/api/games/{game['id']}/join", json={"invite": invite}, headers=browser_like
            )
        assert joined.status_code == 200, joined.text
        tokens = (game["token"], joined.json()["token"])
        seats = [
            stack.enter_context(
                Browser.open(site, game["id"], {"type": "hello", "token": t}, origin=True)
            )
            for t in tokens
        ]
        for seat in seats:
            seat.next_state()
        for _ in range(6):
            state = seats[0].state
            assert state is not None
            mover = seats[int(state["to_move"])]
            mine = mover.state
            assert mine is not None
            mover.act(mine["legal"][0]["action"])
            for seat in seats:
                newer_than(seat, int(state["version"]))
        assert seats[0].state is not None and seats[0].state["version"] == 7


UNIT = CONF.with_name("marjolet@.service")


def unit_command(port: int) -> list[str]:
    """The unit's ``ExecStart`` for the instance ``marjolet@PORT``."""
    lines = [line for line in UNIT.read_text().splitlines() if line.startswith("ExecStart=")]
    assert len(lines) == 1
    return shlex.split(lines[0].removeprefix("ExecStart=").replace("%i", str(port)))


def test_the_systemd_unit_starts_marjolet_serve_on_its_instance_s_port_behind_the_proxy() -> None:
    argv = unit_command(8001)
    assert Path(argv[0]).name == "marjolet" and argv[1] == "serve"
    args = build_parser("serve").parse_args(argv[1:])
    assert (args.host, args.port, args.behind_proxy) == ("127.0.0.1", 8001, "marjolet.example")
    assert args.db.startswith("postgresql://") and args.broker.startswith("redis://")
    upstream = re.findall(r"server 127\.0\.0\.1:(\d+)", CONF.read_text())
    assert "8001" in upstream  # the ports the unit's comment enables are nginx's


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze")
def test_systemd_accepts_the_unit(tmp_path: Path) -> None:
    marjolet = Path(sys.executable).with_name("marjolet")  # an executable in its place
    if not marjolet.exists():
        marjolet = Path(sys.executable)
    unit = tmp_path / "marjolet@8001.service"
    unit.write_text(UNIT.read_text().replace("/srv/marjolet/.venv/bin/marjolet", str(marjolet)))
    result = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", str(unit)],
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 0 and not result.stdout + result.stderr, result.stderr
