"""Domain services: plain functions over a SQLModel session. They import neither Reflex nor Starlette."""
