"""A real `nanobot serve` (nanobot-ai 0.3.5, its own venv) for tests, talking to a scripted LLM.

The test brings the part of nanobot's config it cares about (the dashboard writes `tools`); this
helper adds the LLM provider, the agent defaults and the API server, writes the config into its own
directory (nanobot keeps its media and logs beside the config, and `HOME` points there too, so nothing
reaches the real ~/.nanobot), starts the server in its own process group and waits for /health.

    with ScriptedLLM(script) as llm, NanobotServe(bot_config, llm_base_url=llm.base_url) as nanobot:
        httpx.post(nanobot.url + "/v1/chat/completions", json={...}, headers=nanobot.headers)
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import IO, Any, Self

import httpx

from tests.support.scripted_llm import DEFAULT_MODEL
from tests.support.server import free_port

ROOT = Path(__file__).resolve().parents[2]
NANOBOT_VENV = ROOT / ".tools/nanobot-venv"
NANOBOT_BIN = NANOBOT_VENV / "bin/nanobot"
START_TIMEOUT_SECONDS = 60.0
STOP_TIMEOUT_SECONDS = 10.0


def nanobot_serve_available() -> bool:
    """Whether nanobot's venv is there with what `nanobot serve` needs (aiohttp)."""
    return NANOBOT_BIN.exists() and any(NANOBOT_VENV.glob("lib/python3*/site-packages/aiohttp/__init__.py"))


def serve_config(
    config: dict[str, Any], *, llm_base_url: str, workspace: Path, model: str = DEFAULT_MODEL, api_key: str = ""
) -> dict[str, Any]:
    """`config` (left untouched) plus what nanobot needs to answer over HTTP with the given LLM.

    `providers.custom` is nanobot's "any OpenAI-compatible endpoint": it posts to `{apiBase}/chat/completions`.
    `api` is read by `nanobot serve`, host and port are given on its command line; an `apiKey` there
    makes every route but /health require `Authorization: Bearer <apiKey>`.
    """
    merged = copy.deepcopy(config)
    merged.setdefault("providers", {})["custom"] = {"apiKey": "scripted", "apiBase": llm_base_url}
    defaults = merged.setdefault("agents", {}).setdefault("defaults", {})
    defaults.update({"model": model, "provider": "custom"})
    defaults.setdefault("workspace", str(workspace))  # the one the dashboard gave the bot, if it did
    api = merged.setdefault("api", {})
    api["apiKey"] = api_key
    return merged


class NanobotServe:
    """`nanobot serve` on 127.0.0.1 and a free port while the block runs.

    `workdir` holds the config, the workspace, nanobot's data and its log; a temporary directory
    (removed on stop) when not given. Raises RuntimeError (with the log's tail) when nanobot exits
    or does not answer /health within `start_timeout` seconds.
    """

    def __init__(
        self,
        config: dict[str, Any],
        *,
        llm_base_url: str,
        workdir: Path | None = None,
        model: str = DEFAULT_MODEL,
        api_key: str = "",
        request_timeout: float = 60.0,
        start_timeout: float = START_TIMEOUT_SECONDS,
    ) -> None:
        self._owns_workdir = workdir is None
        self.workdir = Path(workdir) if workdir is not None else Path(tempfile.mkdtemp(prefix="nanobot-serve-"))
        self.api_key = api_key
        self.model = model
        self.port = free_port()
        self.config_path = self.workdir / "nanobot" / "config.json"
        self.log_path = self.workdir / "nanobot-serve.log"
        self.config = serve_config(
            config, llm_base_url=llm_base_url, workspace=self.workdir / "workspace", model=model, api_key=api_key
        )
        self._request_timeout = request_timeout
        self._start_timeout = start_timeout
        self._process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None
        self._kept_log = ""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def headers(self) -> dict[str, str]:
        """The Authorization header the API key (if any) asks for."""
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    def log_tail(self, lines: int = 80) -> str:
        """The last lines nanobot wrote (stdout and stderr together), also after stop."""
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            text = self._kept_log
        return "\n".join(text.splitlines()[-lines:])

    def start(self) -> Self:
        self.config_path.parent.mkdir(parents=True, exist_ok=True)
        self.config_path.write_text(json.dumps(self.config, indent=2), encoding="utf-8")
        self._log = self.log_path.open("ab")
        command = [str(NANOBOT_BIN), "serve", "-c", str(self.config_path), "-p", str(self.port), "-H", "127.0.0.1"]
        command += ["--timeout", str(self._request_timeout), "--verbose"]
        # A clean environment: no proxy variables, no NANOBOT_* overrides, HOME inside the workdir.
        env = {"HOME": str(self.workdir), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "NO_COLOR": "1"}
        self._process = subprocess.Popen(
            command, cwd=self.workdir, env=env, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            self._wait_healthy()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_healthy(self) -> None:
        assert self._process is not None
        deadline = time.monotonic() + self._start_timeout
        with httpx.Client(timeout=2.0, trust_env=False) as client:
            while True:
                code = self._process.poll()
                if code is not None:
                    raise RuntimeError(f"nanobot serve exited with {code} while starting:\n{self.log_tail()}")
                try:
                    if client.get(self.url + "/health").status_code == 200:
                        return
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"nanobot serve did not answer /health within {self._start_timeout}s:\n{self.log_tail()}"
                    )
                time.sleep(0.05)

    def stop(self) -> None:
        """SIGTERM to nanobot's process group, SIGKILL if it lingers; then the workdir goes if it was ours."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=STOP_TIMEOUT_SECONDS)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=STOP_TIMEOUT_SECONDS)
            except ProcessLookupError:
                pass
        if process is not None:
            # The group may outlive its leader (a stdio MCP server it started, say).
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if self._log is not None:
            self._log.close()
            self._log = None
        if self._owns_workdir and self.workdir.exists():
            self._kept_log = self.log_path.read_text(encoding="utf-8", errors="replace")
            shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
