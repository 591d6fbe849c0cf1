"""What every MCP tool here shares: strict argument models, JSON-text results, JSON tool errors.

nanobot passes only a tool result's text to its model, so every result carries its JSON as text
and as structuredContent; every refusal is a tool error (`isError`) whose text is
`{"ok": false, "error": {"code": ..., "message": ...}}`. Nothing else ever reaches the caller: a
crash (of a tool or of the audit) is logged and answered as internal_error, never with its text.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import ConfigDict, ValidationError

from topic_dashboard.errors import AppError
from topic_dashboard.text_policy import printable

logger = logging.getLogger(__name__)


def ok_result(payload: dict[str, Any]) -> CallToolResult:
    body = {"ok": True, **payload}
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(body, ensure_ascii=False))], structured_content=body
    )


def _printable(value: Any) -> Any:
    """`value` with lone surrogates in its strings replaced, so the answer can be encoded."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {_printable(key): _printable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_printable(item) for item in value]
    return value


def error_result(error: AppError) -> CallToolResult:
    # An error may name the caller's input (a field path, an argument): it must still encode.
    body = {"ok": False, "error": _printable(error.to_dict())}
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(body, ensure_ascii=False))],
        structured_content=body,
        is_error=True,
    )


def _describe_validation_error(exc: ValidationError) -> AppError:
    first = exc.errors()[0]
    field = ".".join(str(part) for part in first.get("loc", ())) or None
    if first.get("type") == "extra_forbidden":
        message = f"unknown argument {field!r}: remove it; see the tool's input schema for the arguments it takes"
    else:
        message = f"argument {field!r}: {first.get('msg', 'is invalid')}"
    return AppError("invalid_argument", message, field=field)


Auditor = Callable[[Any, str, CallToolResult, float], None]


class StrictMCPServer(MCPServer):
    """An MCPServer whose tools reject unknown arguments and answer every failure as JSON.

    With an `auditor`, every tool call (accepted, refused, or with invalid arguments) is reported
    once to `auditor(context, tool_name, result, latency_ms)`, except the accepted calls of the
    `self_audited` tools, which write their audit row in their own transaction (no thread hop for them).
    """

    def __init__(
        self, *args: Any, auditor: Auditor | None = None, self_audited: frozenset[str] = frozenset(), **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self._auditor = auditor
        self._self_audited = self_audited
        # The SDK logs at INFO on every stateless request ("Terminating session: None", "Processing
        # request of type CallToolRequest") through the rich handler it installs: per call, that
        # rendering cost more than the tool (bench/mcp_bench.py's profile) and said nothing.
        sdk_logger = logging.getLogger("mcp")
        if sdk_logger.level == logging.NOTSET:  # a level someone set on purpose stays
            sdk_logger.setLevel(logging.WARNING)

    def strict_tool(
        self,
        fn: Callable[..., Any],
        *,
        name: str,
        description: str,
        title: str | None = None,
        read_only: bool = False,
        idempotent: bool = False,
    ) -> None:
        """Register `fn` with `additionalProperties: false` in its input schema, enforced on calls."""
        self.add_tool(
            fn,
            name=name,
            title=title,
            description=description,
            annotations=ToolAnnotations(
                title=title,
                read_only_hint=read_only,
                destructive_hint=False,
                idempotent_hint=idempotent or read_only,
                open_world_hint=False,
            ),
            structured_output=False,
        )
        tool = self._tool_manager.get_tool(name)
        assert tool is not None
        base = tool.fn_metadata.arg_model
        strict = type(
            base.__name__,
            (base,),
            {"model_config": ConfigDict(extra="forbid", arbitrary_types_allowed=True), "__module__": base.__module__},
        )
        tool.fn_metadata.arg_model = strict
        tool.parameters = strict.model_json_schema(by_alias=True)

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        # The top-level handler of every tool call. The SDK would answer an exception raised from
        # here with its text (a failed INSERT's SQL, say), so nothing but MCPError leaves it.
        started = time.perf_counter()
        result = await self._call_tool_as_json(name, arguments, context)
        if (
            self._auditor is not None
            and isinstance(result, CallToolResult)
            and (result.is_error or name not in self._self_audited)
        ):
            try:
                await anyio.to_thread.run_sync(
                    self._auditor, context, name, result, (time.perf_counter() - started) * 1000
                )
            except Exception:  # the answer stands; a lost audit row is logged, never shown to the bot
                logger.exception("auditing a call of tool %r failed", printable(name)[:100])
        return result

    async def _call_tool_as_json(self, name: str, arguments: dict[str, Any], context: Any) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, AppError):
                return error_result(cause)
            if isinstance(cause, ValidationError):
                return error_result(_describe_validation_error(cause))
            if cause is None and self._tool_manager.get_tool(name) is None:
                # The name is the caller's text: it is not echoed.
                return error_result(AppError("not_found", "no such tool; call tools/list for the tools it has"))
            logger.error("tool %r crashed", printable(name)[:100], exc_info=exc)
            return _CRASHED
        except MCPError:
            raise  # a protocol error: the SDK answers it as such
        except Exception:  # the top-level handler of a tool call: a crash becomes internal_error, logged
            logger.exception("tool %r crashed", printable(name)[:100])
            return _CRASHED


# A crash's traceback stays in the log; the caller gets this (and an audit row), never the crash's text.
_CRASHED = error_result(AppError("internal_error", "the tool failed unexpectedly; try again later"))
