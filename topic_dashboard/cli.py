"""`topic-dashboard`: admin chores from the shell."""

from __future__ import annotations

import getpass
import json
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

import click
from sqlmodel import Session

from topic_dashboard.db import write_session
from topic_dashboard.errors import AppError
from topic_dashboard.instance import adopt_instance, instance_file, record_instance
from topic_dashboard.migrate import upgrade_database
from topic_dashboard.services import accounts, bots
from topic_dashboard.services.audit import Actor
from topic_dashboard.settings import get_settings, reset_settings_cache


def _cli_actor() -> Actor:
    """Who acts from the shell, in the audit trail: the operating-system account that ran the command."""
    try:
        who = getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a bare container)
        who = "unknown"
    return Actor("system", f"cli:{who}")


def _fail(error: AppError) -> NoReturn:
    click.echo(f"error [{error.code}]: {error.message}", err=True)
    sys.exit(2)


@contextmanager
def _service() -> Iterator[Session]:
    """A write session for one command; a refusal is printed with its code and exits 2."""
    try:
        with write_session() as session:
            yield session
    except AppError as error:
        _fail(error)


@click.group()
@click.pass_context
def main(ctx: click.Context) -> None:
    """Topic Dashboard administration. Commands act on the dashboard `make run` last started from this
    checkout (its recorded data dir, database and address) unless TOPIC_DASHBOARD_* variables say otherwise."""
    if ctx.invoked_subcommand == "instance":  # recording must see only this shell's own settings
        return
    note = adopt_instance(os.environ, instance_file())
    if note is not None:
        reset_settings_cache()
        click.echo(note, err=True)


@main.group()
def instance() -> None:
    """The record of the dashboard `make run` starts, which the other commands act on."""


@instance.command("record")
def instance_record() -> None:
    """Record this shell's settings as the running dashboard's (scripts/run.sh does it at every start)."""
    path = instance_file()
    values = record_instance(get_settings(), path)
    click.echo(f"recorded the dashboard at {values['TOPIC_DASHBOARD_PUBLIC_BASE_URL']} in {path}")


@instance.command("show")
def instance_show() -> None:
    """Print which dashboard the commands act on (the recorded one, with this shell's variables over it)."""
    note = adopt_instance(os.environ, instance_file())
    reset_settings_cache()
    settings = get_settings()
    click.echo(note or f"topic-dashboard: no dashboard recorded in {instance_file()}; using this shell's settings")
    click.echo(f"address   {settings.public_base_url}")
    click.echo(f"data dir  {settings.data_dir.resolve()}")
    click.echo(f"database  {_masked(settings.effective_database_url)}")


def _masked(url: str) -> str:
    """A database URL without its password."""
    return re.sub(r"(://[^:/@]+:)[^@]*@", r"\1***@", url)


@main.group()
def db() -> None:
    """Database chores."""


@db.command("upgrade")
def db_upgrade() -> None:
    """Apply all migrations to the configured database (one clear message if it cannot be used)."""
    try:
        upgrade_database()
    except AppError as error:
        _fail(error)
        return
    click.echo("database is at the latest revision")


@main.group()
def user() -> None:
    """Accounts of people who use the dashboard."""


@user.command("create")
@click.option("--username", prompt=True)
@click.option("--admin", "role", flag_value="admin", help="Create an admin (can change everything).")
@click.option("--viewer", "role", flag_value="viewer", default=True, help="Create a viewer (reads only).")
@click.option("--password-stdin", is_flag=True, help="Read the password from standard input.")
def user_create(username: str, role: str, password_stdin: bool) -> None:
    """Create an account (there are no default accounts or passwords)."""
    if password_stdin:
        password = sys.stdin.readline().rstrip("\n")
    else:
        password = click.prompt("Password", hide_input=True, confirmation_prompt=True)
    with _service() as session:
        created = accounts.create_user(
            session=session, username=username, password=password, role=role, actor=_cli_actor()
        )
    click.echo(f"created {created.role} {created.username!r}")


@user.command("log-out-everywhere")
@click.argument("username")
def user_log_out_everywhere(username: str) -> None:
    """End every open login session of USERNAME (e.g. after a lost laptop)."""
    with _service() as session:
        ended = accounts.log_out_everywhere(session=session, username=username, actor=_cli_actor())
    click.echo(f"ended {ended} login session(s) of {username!r}")


@user.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def user_list(as_json: bool) -> None:
    """List accounts: username, role, active, must change password, created, last log-in."""
    with write_session() as session:
        users = accounts.list_users(session=session)
    if as_json:
        click.echo(json.dumps([account.model_dump() for account in users], indent=2))
        return
    rows = [("username", "role", "active", "must change password", "created", "last log-in")]
    rows += [
        (
            u.username,
            u.role,
            "yes" if u.is_active else "no",
            "yes" if u.must_change_password else "no",
            u.created_at[:16],
            (u.last_login_at or "never")[:16],
        )
        for u in users
    ]
    _echo_table(rows)


def _echo_table(rows: list[tuple[str, ...]]) -> None:
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    for row in rows:
        click.echo("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())


@user.command("disable")
@click.argument("username")
def user_disable(username: str) -> None:
    """Disable USERNAME: they cannot log in, and their open sessions end at once (not the last admin)."""
    with _service() as session:
        accounts.set_user_active(session=session, username=username, active=False, actor=_cli_actor())
    click.echo(f"disabled {username!r}; their login sessions have ended")


@user.command("enable")
@click.argument("username")
def user_enable(username: str) -> None:
    """Enable USERNAME again: they can log in with their password."""
    with _service() as session:
        accounts.set_user_active(session=session, username=username, active=True, actor=_cli_actor())
    click.echo(f"enabled {username!r}")


@user.command("delete")
@click.argument("username")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
def user_delete(username: str, yes: bool) -> None:
    """Delete USERNAME with their login sessions and reading state (not the last admin)."""
    if not yes:
        click.confirm(f"Delete the account {username!r}, its login sessions and its reading state?", abort=True)
    with _service() as session:
        accounts.delete_user(session=session, username=username, actor=_cli_actor())
    click.echo(f"deleted {username!r}")


@user.command("set-role")
@click.argument("username")
@click.argument("role", type=click.Choice(accounts.ROLES))
def user_set_role(username: str, role: str) -> None:
    """Make USERNAME an admin or a viewer (the last active admin stays one); open sessions follow at once."""
    with _service() as session:
        changed = accounts.set_user_role(session=session, username=username, role=role, actor=_cli_actor())
    click.echo(f"{changed.username!r} is now {changed.role}")


@user.command("reset-password")
@click.argument("username")
def user_reset_password(username: str) -> None:
    """Give USERNAME a one-time password (the last line printed, not shown again); their sessions end,
    and at their next log-in they must choose a new password."""
    with _service() as session:
        password = accounts.reset_password(session=session, username=username, actor=_cli_actor())
    click.echo(
        f"reset the password of {username!r}: their sessions have ended and they must choose a new password "
        "when they log in with this one-time password; it is not shown again:"
    )
    click.echo(password)


@main.group("api-token")
def api_token() -> None:
    """Tokens for the REST API (Authorization: Bearer ...)."""


@api_token.command("create")
@click.option("--name", required=True)
@click.option("--role", type=click.Choice(accounts.ROLES), default="admin", show_default=True)
@click.option(
    "--expires-days",
    type=int,
    default=accounts.DEFAULT_API_TOKEN_DAYS,
    show_default=True,
    help=f"Days until the token stops working (1-{accounts.MAX_API_TOKEN_DAYS}).",
)
def api_token_create(name: str, role: str, expires_days: int) -> None:
    """Create an API token; the token is the last line printed (it is not shown again)."""
    with _service() as session:
        created, token = accounts.issue_api_token(
            session=session, name=name, role=role, expires_days=expires_days, actor=_cli_actor()
        )
    click.echo(
        f"created {role} API token {name!r} (id {created.id}, expires {created.expires_at}); "
        "store it now, it is not shown again:"
    )
    click.echo(token)


@api_token.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def api_token_list(as_json: bool) -> None:
    """List API tokens (never their secrets): name, role, created, last used, expires, state."""
    with write_session() as session:
        tokens = accounts.list_api_tokens(session=session)
    if as_json:
        click.echo(json.dumps([token.model_dump() for token in tokens], indent=2))
        return
    rows = [("id", "name", "role", "state", "created", "last used", "expires")]
    rows += [
        (str(t.id), t.name, t.role, t.state, t.created_at[:16], (t.last_used_at or "never")[:16], t.expires_at[:16])
        for t in tokens
    ]
    _echo_table(rows)


@api_token.command("revoke")
@click.argument("token_id", type=int)
def api_token_revoke(token_id: int) -> None:
    """Revoke the API token with id TOKEN_ID (see `api-token list`); it stops working at once."""
    with _service() as session:
        revoked = accounts.revoke_api_token(session=session, token_id=token_id, actor=_cli_actor())
    click.echo(f"revoked API token {revoked.id} ({revoked.name!r})")


@main.group()
def bot() -> None:
    """Bots that publish through topic_mcp."""


@bot.command("create")
@click.option("--name", required=True)
def bot_create(name: str) -> None:
    """Create a bot; prints JSON with bot_id and token (the token is not shown again)."""
    with _service() as session:
        created, token = bots.create_bot(session=session, name=name, actor=_cli_actor())
    settings = get_settings()
    click.echo(
        json.dumps({"bot_id": created.bot_id, "name": created.name, "token": token, "mcp_url": settings.mcp_topic_url})
    )


@main.command("demo")
@click.option("--name", default="Demo bot", show_default=True)
def demo(name: str) -> None:
    """Create a demo bot with template topics and sample items of every view type."""
    from topic_dashboard.demo import seed_demo

    with write_session() as session:
        created, token = seed_demo(session=session, name=name)
    click.echo(json.dumps({"bot_id": created.bot_id, "name": created.name, "token": token}))


@main.command("setup-token")
def setup_token() -> None:
    """Print a one-time token to create the first admin in the browser (only while no account exists)."""
    with write_session() as session:
        token = accounts.issue_setup_token(session=session)
    if token is None:
        click.echo("accounts exist already: log in, or create more with `topic-dashboard user create`")
    else:
        click.echo(token)


if __name__ == "__main__":
    main()
