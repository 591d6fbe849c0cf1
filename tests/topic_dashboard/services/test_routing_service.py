"""The routing service: rule vectors stored with the rule change, read back by routing; health's mode."""

from __future__ import annotations

import numpy as np
from sqlmodel import Session, select

from topic_dashboard.models import RuleVector
from topic_dashboard.routing import RouteRequest
from topic_dashboard.routing.semantic import digest
from topic_dashboard.services import routing_service
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.topics import TopicCreate, TopicUpdate, create_topic, update_topic


def _digests(session: Session) -> set[str]:
    session.expire_all()
    found = set(session.exec(select(RuleVector.digest)))
    session.commit()
    return found


def test_a_rule_change_stores_its_texts_vectors_and_routing_reads_them(session: Session) -> None:
    bot, _ = create_bot(session=session, name="landlord", write_config=False)
    create_topic(
        session=session,
        bot_id=bot.bot_id,
        actor="test",
        data=TopicCreate(topic_key="rent", name="Rent", routing_json={"include_when": ["a tenant paid rent"]}),
    )
    assert {digest("Rent"), digest("a tenant paid rent")} <= _digests(session)
    update_topic(
        session=session,
        bot_id=bot.bot_id,
        topic_key="rent",
        actor="test",
        data=TopicUpdate(routing_json={"include_when": ["rent arrived", "rent is late"]}),
    )
    assert {digest("rent arrived"), digest("rent is late")} <= _digests(session)

    store = routing_service.DatabaseVectorStore(session, writable=False)
    model_id = session.exec(select(RuleVector.model_id)).first()
    assert model_id
    served = store.get_many(model_id, [digest("rent arrived")])
    assert served[digest("rent arrived")].dtype == np.float32 and served[digest("rent arrived")].shape == (384,)
    decision = routing_service.route_for_bot(
        session=session, bot_id=bot.bot_id, request=RouteRequest(content="Flat 3's rent came in today.")
    )
    assert (decision.evidence, decision.topic_key) == ("rules+meaning", "rent")


def test_start_up_warm_up_stores_what_is_missing(session: Session) -> None:
    bot, _ = create_bot(session=session, name="warm", write_config=False)
    create_topic(
        session=session,
        bot_id=bot.bot_id,
        actor="test",
        data=TopicCreate(topic_key="rent", name="Rent", routing_json={"include_when": ["a tenant paid rent"]}),
    )
    session.exec(RuleVector.__table__.delete())  # type: ignore[attr-defined]  # as after an upgrade
    session.commit()
    assert _digests(session) == set()
    assert routing_service.warm_rule_vectors() >= 1
    assert digest("a tenant paid rent") in _digests(session)


def test_health_mode_names_the_model() -> None:
    mode, detail = routing_service.routing_mode()
    assert mode == "rules+meaning" and "e5" in detail
