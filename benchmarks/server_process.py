"""Start a ``duyun serve`` process for a benchmark (load.py, pace.py): on a free loopback
port, from the sources of the ``duyun`` the benchmark itself imports, its output in a log
file, returned once ``/healthz`` answers -- or a clear exit with the log's tail when it dies
or never becomes healthy.

The sources follow the benchmark's own ``duyun``, so ``PYTHONPATH=/other/checkout/src python
benchmarks/load.py`` measures that checkout's server, as it reads. Until 6 December 2026 this
file put its own checkout's ``src`` on the server's ``PYTHONPATH`` whatever the caller's was,
and comparisons run that way measured the same server twice (docs/deploy.md, "The seventh
round")."""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx


def _duyun_sources() -> Path:
    spec = importlib.util.find_spec("duyun")
    if spec is None or spec.origin is None:
        raise SystemExit("benchmarks need the duyun package: make build, or PYTHONPATH=src")
    return Path(spec.origin).resolve().parents[1]


#: the folder holding the ``duyun`` package this benchmark runs on
SRC = _duyun_sources()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def server_environment() -> dict[str, str]:
    """The server's environment: this one, with SRC first on ``PYTHONPATH`` and the caller's
    own entries kept behind it (a folder that hides a module, say)."""
    inherited = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), *inherited])}


def start_server(
    database_url: str, log_path: Path, extra: list[str] | None = None, port: int | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    """The server and its base URL; ``extra`` are more ``duyun serve`` options."""
    port = port or free_port()
    env = server_environment()
    command = [
        sys.executable,
        "-c",
        "from duyun.cli.main import main; main()",
        "serve",
        "--port",
        str(port),
        "--database-url",
        database_url,
        "--log-level",
        "warning",
        *(extra or []),
    ]
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    end = time.monotonic() + 60
    while time.monotonic() < end:
        if process.poll() is not None:
            raise SystemExit(f"server exited: {log_path.read_text()[-2000:]}")
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return process, url
        except httpx.TransportError:
            pass
        time.sleep(0.05)  # polling the readiness endpoint of a separate process
    process.kill()
    raise SystemExit("server did not become healthy within 60 s")
