"""The backend's periodic tasks keep running through a failed round and stop when asked."""

from __future__ import annotations

import threading

from topic_dashboard.services.periodic import PeriodicTask


class Flaky(PeriodicTask):
    def __init__(self) -> None:
        super().__init__(0.01, name="flaky")
        self.runs = 0
        self.third = threading.Event()

    def run_once(self) -> None:
        self.runs += 1
        if self.runs == 3:
            self.third.set()
        if self.runs == 1:
            raise RuntimeError("the database is away")


def test_a_failed_round_is_logged_and_the_next_one_runs() -> None:
    task = Flaky()
    task.start()
    try:
        assert task.third.wait(timeout=10)
    finally:
        task.stop()
    task._thread.join(timeout=10)
    assert not task._thread.is_alive()
    assert task.runs >= 3
