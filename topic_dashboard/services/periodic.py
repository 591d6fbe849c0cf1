"""A task the backend runs on its own every few seconds or minutes (retention, alert checks)."""

from __future__ import annotations

import logging
import threading

logger = logging.getLogger(__name__)


class PeriodicTask:
    """Runs `run_once` every `interval` seconds on a daemon thread until `stop`; the first run waits one
    interval. A failed run is logged and the next one tries again (no database yet, or it is away)."""

    def __init__(self, interval: float, *, name: str) -> None:
        self.interval = interval
        self.name = name
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def run_once(self) -> None:
        raise NotImplementedError

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.run_once()
            except Exception:  # the task's top level: no failure may end it; the next round tries again
                logger.exception("%s: the run failed", self.name)
