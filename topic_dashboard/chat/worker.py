"""The relay worker: takes queued chat runs from the database and relays each to its bot.

One worker runs in every dashboard process (started by the app's lifespan). Runs are claimed
through the database, so several processes share the queue and a bot still answers one run at a
time (services/chat.py). Database work runs in threads; the HTTP relay is async.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

from sqlalchemy.exc import SQLAlchemyError

from topic_dashboard.chat.relay import stream_answer
from topic_dashboard.db import read_session, write_session
from topic_dashboard.errors import AppError
from topic_dashboard.services import chat as chat_service
from topic_dashboard.settings import get_settings

logger = logging.getLogger(__name__)

POLL_SECONDS = 0.25  # how soon a queued message is picked up
WRITE_EVERY_SECONDS = 0.2  # streamed text is stored at most this often (pages poll the revision)
STOP_CHECK_SECONDS = 0.5
FAILING_POLL_SECONDS = 5.0  # while the database cannot be read
STORAGE_ERRORS = (SQLAlchemyError, AppError, OSError)  # what a database round trip can raise


class ChatWorker:
    def __init__(self, *, poll_seconds: float = POLL_SECONDS, enabled: Callable[[], bool] = lambda: True) -> None:
        """`enabled` is asked before each look at the queue (the app passes its `chat_relay` setting)."""
        self.poll_seconds = poll_seconds
        self._enabled = enabled
        self.name = chat_service.worker_name()
        self._task: asyncio.Task[None] | None = None
        self._runs: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        with contextlib.suppress(*STORAGE_ERRORS):  # a database not reachable yet: the loop retries
            await asyncio.to_thread(self._fail_orphans)
        self._task = asyncio.create_task(self._loop(), name="chat-relay-worker")

    async def stop(self) -> None:
        for task in [self._task, *self._runs]:
            if task is not None:
                task.cancel()
        for task in [self._task, *self._runs]:
            if task is not None:
                with contextlib.suppress(asyncio.CancelledError):  # both tasks catch their own errors
                    await task

    def _fail_orphans(self) -> None:
        with write_session() as session:
            failed = chat_service.fail_stale_runs(session=session, worker=self.name)
        if failed:
            logger.warning("chat: %d run(s) left running by an earlier process were failed", failed)

    def _claim(self) -> chat_service.RunJob | None:
        if not self._enabled():
            return None
        # A read first: an idle dashboard must not take SQLite's write lock four times a second.
        with read_session() as session:
            if not chat_service.has_queued_runs(session=session):
                return None
        with write_session() as session:
            return chat_service.claim_next_run(session=session, worker=self.name)

    async def _loop(self) -> None:
        last_sweep = 0.0
        failing = False
        while True:
            delay = self.poll_seconds
            try:
                job = await asyncio.to_thread(self._claim)
                if job is not None:
                    task = asyncio.create_task(self._relay(job), name=f"chat-run-{job.run_id}")
                    self._runs.add(task)
                    task.add_done_callback(self._runs.discard)
                    continue  # there may be more
                if time.monotonic() - last_sweep > 60:
                    last_sweep = time.monotonic()
                    await asyncio.to_thread(self._sweep)
                if failing:
                    logger.info("chat: the run queue is readable again")
                failing = False
            except asyncio.CancelledError:
                raise
            except Exception:  # the worker's top level: no failure (mostly the database being
                # briefly unavailable) may end the queue for this process; say it once
                if not failing:
                    logger.exception("chat: reading the run queue failed; retrying every %.0f s", FAILING_POLL_SECONDS)
                failing, delay = True, FAILING_POLL_SECONDS
            await asyncio.sleep(delay)

    def _sweep(self) -> None:
        with write_session() as session:
            chat_service.fail_stale_runs(session=session)

    async def _relay(self, job: chat_service.RunJob) -> None:
        last_write = 0.0
        last_check = time.monotonic()
        pending: str | None = None
        stopped = False

        def record(text: str) -> bool:
            with write_session() as session:
                return chat_service.record_answer(session=session, run_id=job.run_id, text=text)

        def asked_to_stop() -> bool:
            with write_session() as session:
                return chat_service.stop_requested(session=session, run_id=job.run_id)

        async def on_text(text: str) -> bool:
            nonlocal last_write, last_check, pending, stopped
            now = time.monotonic()
            pending = text
            if now - last_write >= WRITE_EVERY_SECONDS:
                last_write, pending = now, None
                stopped = await asyncio.to_thread(record, text)
                last_check = now
            elif now - last_check >= STOP_CHECK_SECONDS:
                last_check = now
                stopped = await asyncio.to_thread(asked_to_stop)
            return stopped

        try:
            answer = await stream_answer(
                job.chat_url,
                job.chat_key,
                session_id=job.conversation_id,
                text=job.text,
                on_text=on_text,
                read_timeout=float(get_settings().chat_timeout_seconds),
            )
            if pending is not None:
                await asyncio.to_thread(record, answer)
            if stopped or await asyncio.to_thread(asked_to_stop):
                await asyncio.to_thread(self._finish_failed, job, "bot_error", "stopped by a person", True)
            else:
                await asyncio.to_thread(self._finish_done, job, answer)
        except AppError as error:
            await asyncio.to_thread(self._finish_failed, job, error.code, error.message, False)
        except asyncio.CancelledError:
            with contextlib.suppress(*STORAGE_ERRORS):
                await asyncio.to_thread(
                    self._finish_failed, job, "bot_error", "the dashboard stopped while the bot was answering", False
                )
            raise
        except Exception as exc:  # the run's top level: whatever broke, never leave the run "running"
            logger.exception("chat: run %s failed", job.run_id)
            await asyncio.to_thread(self._finish_failed, job, "bot_error", f"relay failed: {type(exc).__name__}", False)

    @staticmethod
    def _finish_done(job: chat_service.RunJob, answer: str) -> None:
        with write_session() as session:
            chat_service.finish_done(session=session, run_id=job.run_id, text=answer)

    @staticmethod
    def _finish_failed(job: chat_service.RunJob, code: str, message: str, stopped: bool) -> None:
        with write_session() as session:
            chat_service.finish_failed(session=session, run_id=job.run_id, code=code, error=message, stopped=stopped)
