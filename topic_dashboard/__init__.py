"""Topic Dashboard: read, route and trust what chat bots produce."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("topic-dashboard")  # pyproject.toml's version: the one the API and MCP servers report
except PackageNotFoundError:  # a checkout used without installing the package
    __version__ = "0.0.0+unknown"
