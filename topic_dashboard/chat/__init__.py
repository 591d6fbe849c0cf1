"""The dashboard channel's HTTP side: relaying a conversation to a bot's `nanobot serve` and
checking that endpoint. Storage and decisions live in `topic_dashboard.services.chat`."""
