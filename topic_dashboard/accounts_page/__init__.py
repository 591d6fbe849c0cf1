"""The Accounts page: people (roles, disable, reset, delete) and API tokens, for admins."""
