"""The Conversations page: the dashboard channel's conversations, messages and guide cards."""
