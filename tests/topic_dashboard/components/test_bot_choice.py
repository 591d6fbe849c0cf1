"""The bot a page shows: the one the address names, else the one this person last chose, else the one with the
most unread items for them, else the first; never a bot that is not there."""

from __future__ import annotations

from sqlmodel import Session

from topic_dashboard.components.bot_choice import BotOption, bot_choice, pick_bot
from topic_dashboard.services import accounts
from topic_dashboard.services.bots import create_bot, delete_bot
from topic_dashboard.services.items import list_items, set_read
from topic_dashboard.services.publishing import PublishRequest, publish_item
from topic_dashboard.services.topics import TopicSettingsUpdate, update_topic_settings


def _options(*unread: tuple[str, int]) -> list[BotOption]:
    return [BotOption(id=bot_id, name=bot_id.title(), unread=count) for bot_id, count in unread]


def test_the_address_wins_then_the_remembered_bot_then_the_most_unread_then_the_first() -> None:
    options = _options(("alpha", 0), ("mid", 3), ("zeta", 5))
    assert pick_bot(options, wanted="mid", remembered="alpha") == "mid"
    assert pick_bot(options, wanted="", remembered="alpha") == "alpha"
    assert pick_bot(options, wanted="", remembered="") == "zeta"  # a first visit: the most unread
    assert pick_bot(_options(("alpha", 0), ("zeta", 0)), wanted="", remembered="") == "alpha"  # nothing unread
    assert pick_bot(_options(("alpha", 2), ("zeta", 2)), wanted="", remembered="") == "alpha"  # a tie: the first
    assert pick_bot([], wanted="alpha", remembered="alpha") == ""


def test_a_bot_that_is_not_there_is_passed_over_silently() -> None:
    options = _options(("alpha", 0), ("zeta", 1))
    # a deleted bot, a mistyped link, a value the browser made up: the next rule decides
    assert pick_bot(options, wanted="gone", remembered="alpha") == "alpha"
    assert pick_bot(options, wanted="gone", remembered="also-gone") == "zeta"
    assert pick_bot(options, wanted="*", remembered="") == "zeta"  # "All bots" is no bot
    assert pick_bot(options, wanted="", remembered="<script>") == "zeta"


def test_without_a_fallback_nothing_is_chosen_unless_named_or_remembered() -> None:
    """Insights reads all bots unless one is named or remembered: the most unread is no reason to narrow it."""
    options = _options(("alpha", 0), ("zeta", 4))
    assert pick_bot(options, wanted="", remembered="", fallback=False) == ""
    assert pick_bot(options, wanted="", remembered="gone", fallback=False) == ""
    assert pick_bot(options, wanted="", remembered="alpha", fallback=False) == "alpha"
    assert pick_bot(options, wanted="zeta", remembered="alpha", fallback=False) == "zeta"


def _publish(session: Session, bot_id: str, count: int) -> None:
    update_topic_settings(session=session, bot_id=bot_id, update=TopicSettingsUpdate(publish_rate_per_minute=1000))
    for index in range(count):
        publish_item(
            session=session,
            bot_id=bot_id,
            request=PublishRequest(topic_key="inbox", title=f"item {index}", content="x", message_type="result"),
        )


def test_a_first_visit_lands_on_the_bot_with_the_most_unread_for_this_reader(session: Session) -> None:
    alpha, _ = create_bot(session=session, name="Alpha", write_config=False)
    zeta, _ = create_bot(session=session, name="Zeta", write_config=False)
    _publish(session, alpha.bot_id, 2)
    _publish(session, zeta.bot_id, 3)
    reader = accounts.create_user(session=session, username="reader", password="long enough password", role="viewer")
    other = accounts.create_user(session=session, username="other", password="long enough password", role="viewer")

    options, chosen = bot_choice("", reader=reader.id)
    assert [option.name for option in options] == ["Alpha", "Zeta"]
    assert [option.unread for option in options] == [2, 3]
    assert chosen == zeta.bot_id

    # Zeta read by this reader: Alpha is theirs to read; another reader still lands on Zeta.
    ids = [item.id for item in list_items(session=session, bot_id=zeta.bot_id, limit=10).items]
    set_read(session=session, bot_id=zeta.bot_id, item_ids=ids, is_read=True, reader=reader.id)
    assert bot_choice("", reader=reader.id)[1] == alpha.bot_id
    assert bot_choice("", reader=other.id)[1] == zeta.bot_id

    # The address and the remembered bot come first; a remembered bot deleted since is passed over.
    assert bot_choice(alpha.bot_id, reader=other.id, remembered=zeta.bot_id)[1] == alpha.bot_id
    assert bot_choice("", reader=other.id, remembered=alpha.bot_id)[1] == alpha.bot_id
    delete_bot(session=session, bot_id=alpha.bot_id)
    options, chosen = bot_choice("", reader=reader.id, remembered=alpha.bot_id)
    assert ([option.id for option in options], chosen) == ([zeta.bot_id], zeta.bot_id)
    assert bot_choice("", reader=reader.id, remembered=alpha.bot_id, fallback=False)[1] == ""


def test_without_bots_nothing_is_chosen(session: Session) -> None:
    assert bot_choice("", reader=None) == ([], "")
    assert bot_choice("anything", reader=None, remembered="anything") == ([], "")
