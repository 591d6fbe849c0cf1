"""The Insights page: how bots behave, in charts (publishes per topic, decisions, failures, latency)."""
