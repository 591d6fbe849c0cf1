"""REST: API tokens, for admins only: list them, create one (its secret shown once), revoke one."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from mcp_service.rest.deps import Admin, ReadSession, WriteSession
from mcp_service.rest.errors import ERROR_RESPONSES
from topic_dashboard.services import accounts
from topic_dashboard.services.audit import actor_of

router = APIRouter(tags=["tokens"], responses=ERROR_RESPONSES)


class ApiTokenCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a misspelt field is an error, not a silent no-op

    name: str = Field(description="Who or what uses the token, 1-100 characters.")
    role: Literal["admin", "viewer"] = Field(description="viewer reads; admin also changes things.")
    expires_days: int = Field(
        default=accounts.DEFAULT_API_TOKEN_DAYS,
        description=f"Days until the token stops working, 1-{accounts.MAX_API_TOKEN_DAYS}.",
    )


class ApiTokenCreated(accounts.ApiTokenPublic):
    token: str = Field(description="The token: shown only now. Send it as Authorization: Bearer <token>.")


@router.get("/tokens", response_model=list[accounts.ApiTokenPublic])
def list_tokens(_: Admin, session: ReadSession) -> list[accounts.ApiTokenPublic]:
    return accounts.list_api_tokens(session=session)


@router.post("/tokens", response_model=ApiTokenCreated, status_code=201)
def create_token(body: ApiTokenCreate, who: Admin, session: WriteSession) -> ApiTokenCreated:
    created, token = accounts.issue_api_token(
        session=session, name=body.name, role=body.role, expires_days=body.expires_days, actor=actor_of(who)
    )
    return ApiTokenCreated(**created.model_dump(), token=token)


@router.delete("/tokens/{token_id}", response_model=accounts.ApiTokenPublic)
def revoke_token(token_id: int, who: Admin, session: WriteSession) -> accounts.ApiTokenPublic:
    return accounts.revoke_api_token(session=session, token_id=token_id, actor=actor_of(who))
