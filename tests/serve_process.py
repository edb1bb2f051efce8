"""``duyun serve`` as a real subprocess, for the tests that need one: a restart after SIGKILL,
several processes on one database, a process's own resource limits.

Its output (stdout and stderr) is read line by line into ``lines`` by a thread, so a failure
can show the server's last words; readiness is polled on an HTTP endpoint (never a fixed
sleep). pytest puts this folder on ``sys.path`` (``tests/conftest.py`` lives here).
"""

from __future__ import annotations

import importlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import httpx

SRC = Path(__file__).resolve().parents[1] / "src"
TESTS = Path(__file__).resolve().parent


#: the config lines every test server process shares: cheap password hashing, and none of the
#: per-address abuse limits (every client of a test comes from 127.0.0.1)
TEST_SERVER_BASICS = """
argon2_time_cost = 1
argon2_memory_cost = 8
guests_per_minute = 0
registrations_per_minute = 0
tables_per_minute = 0
code_lookups_per_minute = 0
open_tables_per_account = 0
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class ServeProcess:
    """One ``duyun serve`` on a fixed loopback port; :meth:`start` again after :meth:`kill` is
    an operator's restart (same port, same database, same ``--owner``)."""

    def __init__(
        self,
        database_url: str,
        *,
        config: Path | None = None,
        owner: str | None = None,
        public_url: bool = False,
        log_level: str = "warning",
        extra: Sequence[str] = (),
        preexec_fn: Callable[[], None] | None = None,
        deal: str | None = None,
    ) -> None:
        """``deal`` (``"module:function"``, a module of tests/) deals every hand
        through the manager's test-only hook (:func:`serve_with_deal`), for a test that must
        not depend on the luck of a random deal; as an operator runs it otherwise."""
        self.database_url = database_url
        self.config, self.owner = config, owner
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}/ws"
        self.command = [
            sys.executable,
            "-c",
            "from duyun.cli.main import main; main()"
            if deal is None
            else f"from serve_process import serve_with_deal; serve_with_deal({deal!r})",
            "serve",
            "--port",
            str(self.port),
            "--database-url",
            database_url,
            "--log-level",
            log_level,
            *(["--config", str(config)] if config is not None else []),
            *(["--owner", owner] if owner is not None else []),
            *(["--public-url", self.url] if public_url else []),
            *extra,
        ]
        self.preexec_fn = preexec_fn
        self.lines: list[str] = []
        self.process: subprocess.Popen[str] | None = None
        self._reader: threading.Thread | None = None

    def start(self) -> ServeProcess:
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(SRC), str(TESTS), os.environ.get("PYTHONPATH", "")]),
        }
        self.process = subprocess.Popen(
            self.command,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
            preexec_fn=self.preexec_fn,
        )
        self._reader = threading.Thread(target=self._read, args=(self.process,), daemon=True)
        self._reader.start()
        return self

    def _read(self, process: subprocess.Popen[str]) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            self.lines.append(line.rstrip())

    def tail(self, count: int = 30) -> str:
        return "\n".join(self.lines[-count:])

    def wait_ready(self, path: str = "/healthz", timeout: float = 60.0) -> None:
        """Poll ``path`` until it answers 200; fails at once, with the output, if the process
        exits, and after ``timeout`` seconds otherwise."""
        assert self.process is not None, "start() first"
        end = time.monotonic() + timeout
        with httpx.Client(timeout=2) as client:
            while time.monotonic() < end:
                try:
                    if client.get(f"{self.url}{path}").status_code == 200:
                        return
                except httpx.TransportError:
                    pass
                if self.process.poll() is not None:
                    raise AssertionError(f"{self.owner or 'server'} exited:\n{self.tail()}")
                time.sleep(0.02)
        raise AssertionError(f"{self.owner or 'server'} not ready in {timeout} s:\n{self.tail()}")

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL: no shutdown, no flush -- the hard way."""
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)
        self._drain()

    def stop(self) -> None:
        """SIGTERM and wait for the clean shutdown (SIGKILL after 20 s)."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self._drain()

    def _drain(self) -> None:
        """Every line the process wrote is in ``lines`` once it has exited."""
        if self._reader is not None:
            self._reader.join(timeout=10)


def serve_with_deal(spec: str) -> None:
    """``duyun serve`` (its arguments from ``sys.argv``) with every table's hands dealt by the
    function ``spec`` names (``"module:function"``): run in the subprocess, before the server
    makes its manager, so that a restart deals as the first boot did."""
    from duyun.cli.main import main
    from duyun.server.tables.manager import TableManager

    module, _, name = spec.partition(":")
    deal = getattr(importlib.import_module(module), name)
    made = TableManager.__post_init__

    def with_deal(manager: TableManager) -> None:
        made(manager)
        manager.deal = deal

    TableManager.__post_init__ = with_deal  # type: ignore[method-assign]
    main()
