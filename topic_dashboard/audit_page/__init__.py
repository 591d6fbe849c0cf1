"""The Audit page: every MCP tool call, filterable, with a chart of calls and refusals."""
