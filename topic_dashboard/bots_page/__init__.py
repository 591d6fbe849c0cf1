"""The Bots page: create, list, rotate, delete bots and edit their locked MCP config."""
