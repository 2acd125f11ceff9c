"""An exchange (`Exchange.as_dict()`) as text: what the console, the reports, JUnit and
Allure show of a request and its answer."""

from __future__ import annotations

from typing import Any


def exchange_text(exchange: dict[str, Any], curl: bool = True) -> str:
    """An exchange (`Exchange.as_dict()`) as text: request, response, bodies and a curl line."""
    x = exchange
    lines = [f"request: {x['method']} {x['url']}"]
    if x.get("request_body") is not None:
        lines.append(f"  body: {x['request_body']}")
    attempt = x.get("attempt") or 1
    retry = f", retry {attempt - 1} of {x.get('max_retries')} after 429" if attempt > 1 else ""
    if x.get("status") is None:
        lines.append(f"response: none ({x.get('error')})")
    else:
        content_type = (x.get("response_headers") or {}).get("content-type") or \
            "no content type"
        size = x.get("response_bytes", len(x.get("response_body") or ""))
        lines.append(f"response: {x['status']} ({content_type}, {size} bytes, "
                     f"{x.get('elapsed_ms') or 0:.0f} ms{retry})")
        if x.get("error"):
            lines.append(f"  then: {x['error']}")
        lines.append(f"  body: {x.get('response_body') or ''}")
    if curl and x.get("curl"):
        lines.append(f"reproduce: {x['curl']}")
    return "\n".join(lines)


def request_text(exchange: dict[str, Any]) -> str:
    """The request of an exchange: its line, headers (the key as ***), body and curl line."""
    x = exchange
    lines = [f"{x['method']} {x['url']}",
             *(f"{k}: {v}" for k, v in (x.get("request_headers") or {}).items())]
    if x.get("request_body") is not None:
        lines += ["", x["request_body"]]
    if x.get("curl"):
        lines += ["", f"reproduce: {x['curl']}"]
    return "\n".join(lines)


def response_text(exchange: dict[str, Any]) -> str:
    """The response of an exchange: status, time, headers and body (or why there was none)."""
    x = exchange
    if x.get("status") is None:
        return f"no response: {x.get('error')}"
    lines = [f"{x['status']} ({x.get('response_bytes', 0)} bytes, "
             f"{x.get('elapsed_ms') or 0:.0f} ms)",
             *(f"{k}: {v}" for k, v in (x.get("response_headers") or {}).items()),
             "", x.get("response_body") or ""]
    if x.get("error"):
        lines += ["", f"then: {x['error']}"]
    return "\n".join(lines)


def evidence_text(exchanges: list[dict[str, Any]]) -> str:
    """Exchanges as the console shows them, a blank line between two."""
    return "\n\n".join(exchange_text(x) for x in exchanges)
