"""The Reflex app: pages, and the co-hosted MCP/REST service mounted into its backend."""

from __future__ import annotations

import reflex as rx
from reflex.utils.prerequisites import get_states_dir

from mcp_service.app import build_api, mcp_lifespan
from topic_dashboard.accounts_page.page import accounts_page
from topic_dashboard.accounts_page.state import AccountsState
from topic_dashboard.audit_page.page import audit_page
from topic_dashboard.audit_page.state import AuditState
from topic_dashboard.auth.guard import EventGuard, app_error_toast
from topic_dashboard.auth.page import change_password_page, login_page
from topic_dashboard.auth.state import CHANGE_PASSWORD_ROUTE, AuthState
from topic_dashboard.bots_page.page import bots_page
from topic_dashboard.bots_page.state import BotsState
from topic_dashboard.components.keyboard import SCRIPT_SRC as KEYBOARD_SCRIPT_SRC
from topic_dashboard.conversations_page.page import conversations_page
from topic_dashboard.conversations_page.state import ConversationsState
from topic_dashboard.db import exit_unless_startable
from topic_dashboard.file_modes import harden_file_modes
from topic_dashboard.insights_page.page import insights_page
from topic_dashboard.insights_page.state import InsightsState
from topic_dashboard.rules_editor.page import rules_page
from topic_dashboard.rules_editor.state import RulesState
from topic_dashboard.settings import get_settings
from topic_dashboard.topic_panel.page import topic_panel_page
from topic_dashboard.topic_panel.state import TopicPanelState

# Before anything is written: owner-only files (Reflex's state files hold login tokens), and one clear
# message instead of a traceback when the data directory or the database URL cannot work.
harden_file_modes(data_dir=get_settings().data_dir, states_dir=get_states_dir())
exit_unless_startable()

app = rx.App(
    api_transformer=build_api,
    head_components=[rx.el.meta(name="referrer", content="no-referrer"), rx.el.script(src=KEYBOARD_SCRIPT_SRC)],
    stylesheets=["/styles.css"],
    backend_exception_handler=app_error_toast,
)
app.register_lifespan_task(mcp_lifespan)
# One door for every UI event: nothing reaches a page State's handler without this check.
app.add_middleware(EventGuard())

app.add_page(login_page, route="/login", title="Log in · Topic Dashboard", on_load=AuthState.load_login_page)
app.add_page(
    change_password_page,
    route=CHANGE_PASSWORD_ROUTE,
    title="Change password · Topic Dashboard",
    on_load=AuthState.load_change_password_page,
)
app.add_page(topic_panel_page, route="/", title="Topics · Topic Dashboard", on_load=TopicPanelState.load_page)
app.add_page(rules_page, route="/rules", title="Rules · Topic Dashboard", on_load=RulesState.load_page)
app.add_page(bots_page, route="/bots", title="Bots · Topic Dashboard", on_load=BotsState.load_page)
app.add_page(
    conversations_page,
    route="/conversations",
    title="Conversations · Topic Dashboard",
    on_load=ConversationsState.load_page,
)
app.add_page(audit_page, route="/audit", title="Audit · Topic Dashboard", on_load=AuditState.load_page)
app.add_page(insights_page, route="/insights", title="Insights · Topic Dashboard", on_load=InsightsState.load_page)
app.add_page(accounts_page, route="/accounts", title="Accounts · Topic Dashboard", on_load=AccountsState.load_page)
