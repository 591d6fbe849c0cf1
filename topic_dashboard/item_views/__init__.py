"""The view schema and item limits: what a bot may publish and how it is checked.

Pure domain code (no Reflex, Starlette or database); `topic_publish`, `topic_get_schema`
and the panel renderer are adapters over these functions.
"""

from topic_dashboard.item_views.item import check_level, check_payload_size, validate_item_fields
from topic_dashboard.item_views.limits import (
    DEFAULT_LEVEL,
    LEVELS,
    LIMITS,
    VIEW_TYPES,
    ItemLimits,
    json_size,
    limits_document,
)
from topic_dashboard.item_views.safety import SAFE_URL_SCHEMES, safe_url
from topic_dashboard.item_views.schema import (
    check_view_allowed,
    parse_allowed_view_types,
    schema_document,
    validate_view,
    validate_view_schema_json,
    view_json_schema,
)

__all__ = [
    "DEFAULT_LEVEL",
    "LEVELS",
    "LIMITS",
    "SAFE_URL_SCHEMES",
    "VIEW_TYPES",
    "ItemLimits",
    "check_level",
    "check_payload_size",
    "check_view_allowed",
    "json_size",
    "limits_document",
    "parse_allowed_view_types",
    "safe_url",
    "schema_document",
    "validate_item_fields",
    "validate_view",
    "validate_view_schema_json",
    "view_json_schema",
]
