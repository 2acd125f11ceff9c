"""The reference server's typing of JSON bodies: each field read as the type its operation
takes, a wrong shape refused with an `ApiError` (a 4xx) before the store is called."""

from __future__ import annotations

from boardcert.reference.records import JSON


class ApiError(Exception):
    """A request refused before it reaches the store (key, body, shape)."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def invalid(code: str, message: str) -> ApiError:
    return ApiError(422, code, message)


def string(body: JSON, key: str) -> str:
    if key not in body:
        raise invalid("missing_field", f"{key} is required")
    return typed_string(body, key)


def optional_string(body: JSON, key: str) -> str | None:
    """A string that may be absent or null."""
    return None if body.get(key) is None else typed_string(body, key)


def typed_string(body: JSON, key: str) -> str:
    value = body[key]
    if not isinstance(value, str):
        raise invalid("wrong_type", f"{key} must be a string")
    return value


def string_list(body: JSON, key: str) -> list[str]:
    if key not in body:
        raise invalid("missing_field", f"{key} is required")
    value = body[key]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise invalid("wrong_type", f"{key} must be an array of strings")
    return value


def row_name(body: JSON) -> str:
    """Operation 7 takes the row name as name or rowName; both must then agree."""
    names = {typed_string(body, key) for key in ("name", "rowName") if key in body}
    if not names:
        raise invalid("missing_field", "name (or rowName) is required")
    if len(names) > 1:
        raise invalid("conflicting_fields", "name and rowName differ")
    return names.pop()


def anchors(body: JSON) -> dict[str, str | None]:
    return {
        "after_card_id": optional_string(body, "afterCardId"),
        "before_card_id": optional_string(body, "beforeCardId"),
        "column_id": optional_string(body, "columnId"),
    }
