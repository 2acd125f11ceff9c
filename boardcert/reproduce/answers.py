"""Answers, for every reproduction script: one request sent as it is written, and how two JSON
answers compare (boardcert.reproduce.engine judges with these). Copied whole into each script
with the engine: the Python standard library only, Python 3.8 or later."""

import hashlib
import http.client
import json
import re
import time
from email.utils import parsedate_to_datetime
from urllib.parse import urlsplit

KEY_HEADER = "X-API-Key"
RETRIES, LONGEST_WAIT = 3, 5.0  # a 429 is sent again this often, after at most this wait (s)
TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$")


class Missing(Exception):
    """A step needs an id that no earlier answer showed."""


class Anything:
    """In an answer compared: an id the script does not know (any value will do)."""


class Long:
    """In an answer compared: a long string, by its length and SHA-256."""

    def __init__(self, length, digest):
        self.length, self.digest = length, digest

    def matches(self, text):
        return isinstance(text, str) and len(text) == self.length and \
            hashlib.sha256(text.encode("utf-8")).hexdigest() == self.digest


class Answer:
    def __init__(self, status=None, headers=None, body=b"", failure=None, error=None):
        self.status, self.headers, self.body = status, headers or {}, body
        self.failure, self.error = failure, error

    def json(self):
        return json.loads(self.body)

    def describe(self):
        kind = self.headers.get("content-type") or "no content type"
        return f"no answer ({self.error})" if self.status is None else \
            f"{self.status} ({kind}, {len(self.body)} bytes)"


def request(base_url, method, target, headers, body, timeout, max_body):
    """One request, as it is written (no redirect followed, no header added but Host and
    Content-Length); the answer, or why there was none. A 429 is sent again after its
    Retry-After, a bounded number of times, as the run did (a 429 is never the answer judged
    while a retry is left)."""
    for _ in range(RETRIES):
        answer = _once(base_url, method, target, headers, body, timeout, max_body)
        if answer.status != 429:
            return answer
        time.sleep(retry_after(answer.headers.get("retry-after")))
    return _once(base_url, method, target, headers, body, timeout, max_body)


def retry_after(value):
    """Seconds to wait after a 429: its Retry-After (seconds or an HTTP date) within
    [0, LONGEST_WAIT]; 1 s when there is none or it cannot be read."""
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        try:
            seconds = parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError, IndexError, OverflowError):
            return 1.0
    return min(max(seconds, 0.0), LONGEST_WAIT) if seconds == seconds else 1.0


def _once(base_url, method, target, headers, body, timeout, max_body):
    url = urlsplit(base_url)
    kind = http.client.HTTPSConnection if url.scheme == "https" else http.client.HTTPConnection
    connection = kind(url.hostname, url.port, timeout=timeout)
    try:
        connection.putrequest(method, url.path.rstrip("/") + target, skip_accept_encoding=True)
        for name, value in headers.items():
            connection.putheader(name, value)
        if body is not None:
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        response = connection.getresponse()
        data = response.read(max_body + 1)
        answer = Answer(response.status, {k.lower(): v for k, v in response.getheaders()},
                        data[:max_body])
        if len(data) > max_body:
            answer.failure, answer.error = "too large", f"body over {max_body} bytes"
        return answer
    except TimeoutError:
        return Answer(failure="timeout", error=f"no answer within {timeout:g} s")
    except (OSError, http.client.HTTPException) as exc:
        return Answer(failure="broken", error=f"{type(exc).__name__}: {exc}")
    finally:
        connection.close()


def at(body, path):
    """The value at a path of keys, indexes and {"id": ...} (the record of a list with that
    id), and whether there is one."""
    for step in path:
        if isinstance(step, dict) and isinstance(body, list):
            found = [r for r in body if isinstance(r, dict) and "id" in r
                     and same(step["id"], r["id"])]
            if not found:
                return None, False
            body = found[0]
            continue
        keyed = isinstance(body, dict) and isinstance(step, str) and step in body
        listed = isinstance(body, list) and isinstance(step, int) and 0 <= step < len(body)
        if not keyed and not listed:
            return None, False
        body = body[step]
    return body, True


def mentioned(value, wanted):
    """Whether a string equal to `wanted` occurs anywhere in a JSON value (keys included)."""
    if isinstance(value, dict):
        return any(same(wanted, k) or mentioned(v, wanted) for k, v in value.items())
    if isinstance(value, list):
        return any(mentioned(v, wanted) for v in value)
    return isinstance(value, (str, int)) and same(wanted, value)


def same(a, b):
    """Equal as JSON, an id's number equal to its text, any two timestamps alike."""
    if isinstance(a, Anything):
        return True
    if isinstance(a, Long):
        return a.matches(b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, str) and isinstance(b, str) and TIME.match(a) and TIME.match(b):
        return True
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, (str, int)) and isinstance(b, (str, int)):
        return str(a) == str(b)
    return a == b


def differences(a, b, where=""):
    """The places where two JSON values differ (times aside: createdAt, updatedAt, ...)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in list(a) + [k for k in b if k not in a]
                for d in ([] if k in a and k in b and re.search(r"(At|_at)$", k) else
                          differences(a[k], b[k], f"{where}.{k}") if k in a and k in b
                          else [f"{where}.{k}"])]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for n, (x, y) in enumerate(zip(a, b))
                for d in differences(x, y, f"{where}[{n}]")]
    return [] if same(a, b) else [where or "(the whole body)"]


def json_type(value):
    return {bool: ["boolean"], int: ["integer", "number"], str: ["string"], float: ["number"],
            type(None): ["null"], list: ["array"], dict: ["object"]}.get(type(value), [])


def short(value, limit=600):
    """A value as JSON (a string quoted, so that surrounding whitespace shows), cut past
    `limit` characters."""
    text = json.dumps(value, ensure_ascii=False, default=lambda o: type(o).__name__)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def search(body, where, key):
    """The `key` of the first JSON object holding every field of `where`."""
    if isinstance(body, dict):
        if all(body.get(k) == v for k, v in where.items()) and key in body:
            return body[key]
        body = list(body.values())
    if isinstance(body, list):
        for inner in body:
            found = search(inner, where, key)
            if found is not None:
                return found
    return None


def changed(before, control, after):
    """Whether the request changed what the reading shows, beyond what changed on its own
    between the two readings before it."""
    if before.status != after.status:
        return True, f"the reading answered {before.status} before and {after.status} after"
    try:
        first, again, last = (json.loads(r.body) for r in (before, control, after))
    except ValueError:
        same_bytes = before.body == after.body
        return not same_bytes, f"the reading's body {'is the same' if same_bytes else 'changed'}"
    moved = [d for d in differences(first, last) if d not in differences(first, again)]
    return bool(moved), (f"the reading changed at {', '.join(moved[:5])}" if moved
                         else "the reading is unchanged")
