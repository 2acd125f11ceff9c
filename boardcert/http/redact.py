"""The API key, masked as `***` wherever it could leave boardcert: one module for every place.

Masking must never corrupt what it cleans, whatever the key (`k`, `test`, `***`, `a"b.*`):

- text: the key is masked where it stands as a token, not inside another word (a key `test`
  leaves `suites/test_auth.py` alone, a key `k` leaves `quick`), as written, JSON-escaped
  or URL-quoted;
- headers: a value equal to the key is masked whole, a long key inside a value too (a wrong
  key made from it shows as `***x`), others as text;
- JSON: string values are masked (whole, or the key as a token inside them), keys never; with
  a schema, a value the schema pins (an enum, a pattern) keeps its word, so the document still
  validates;
- XML and HTML: text and attribute values, never the markup, scripts or styles.

So a short key may show up unmasked inside other text: `short_key_warning` says so.

A process makes one Redactor of its key (`for_key`), applied where text leaves it: the
console (`boardcert run`), every file the run wrote (boardcert.pytest.masked), an exchange as
it is recorded (boardcert.http.client: its curl line shows `***`).
"""

from __future__ import annotations

import copy
import functools
import html
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote

MASK = "***"
SHORT = 8  # a key shorter than this may show up unmasked inside other words
_WORD = re.compile(r"\w")
_MARKUP = re.compile(r"(<script\b.*?</script\s*>|<style\b.*?</style\s*>|<!--.*?-->|<[^>]*>)",
                     re.DOTALL | re.IGNORECASE)
_ATTRIBUTE = re.compile(r"""(=\s*)("[^"]*"|'[^']*')""")


def short_key_warning(key: str | None) -> str | None:
    """The console warning for a key short enough to occur inside other words, or None."""
    if not key or len(key) >= SHORT:
        return None
    return (f"the API key is shorter than {SHORT} characters: it is masked as *** where it "
            "stands alone, and may show up unmasked inside other text")


@functools.lru_cache(maxsize=4)
def for_key(key: str | None) -> Redactor:
    """The one Redactor of `key` in this process (none, or empty: masks nothing)."""
    return Redactor([key])


class Redactor:
    """Masks the given secrets (empty ones are ignored); falsy when there is none."""

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        self.secrets = frozenset(s for s in secrets if s)
        forms = {f for s in self.secrets for f in (s, json.dumps(s)[1:-1], quote(s, safe=""))}
        escaped = {e for f in forms for e in (
            html.escape(f), html.escape(f, quote=False), _jinja_escape(f))}
        self._text = _tokens(forms)
        self._html = _tokens(escaped)
        # Each form as bytes: a file holding none of them has nothing to mask (a byte search
        # is some ten times faster than the patterns over a run's 3 MB of files).
        self._bytes = tuple(f.encode("utf-8") for f in sorted(forms | escaped) if f)

    def __bool__(self) -> bool:
        return bool(self.secrets)

    def text(self, text: str) -> str:
        """The text with each secret masked where it stands as a token."""
        return self._text.sub(MASK, text) if self._text else text

    def header(self, value: str) -> str:
        """A header value: masked whole when it is a secret; a secret of SHORT characters or
        more inside it masked too (a wrong key made from the key, `***x`); else as text."""
        if value in self.secrets:
            return MASK
        for secret in self.secrets:
            if len(secret) >= SHORT:
                value = value.replace(secret, MASK)
        return self.text(value)

    def body(self, text: str) -> str:
        """A message body for display: as JSON when it parses (keys untouched), else as text."""
        if not self._text or not self._text.search(text):
            return text
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            return self.text(text)
        masked = self.json(value)
        return text if masked == value else json.dumps(masked, ensure_ascii=False)

    def json(self, value: Any) -> Any:
        """A JSON value with its string values masked (whole or as tokens), keys untouched."""
        if isinstance(value, str):
            return MASK if value in self.secrets else self.text(value)
        if isinstance(value, dict):
            return {k: self.json(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.json(v) for v in value]
        return value

    def document(self, value: Any, schema: dict[str, Any] | None = None) -> Any:
        """`json(value)`, where each value the schema rejects once masked keeps its word."""
        masked = self.json(value)
        if schema is None or masked == value:
            return masked
        import jsonschema

        validator = jsonschema.validators.validator_for(schema)(schema)
        for _ in range(100):
            paths = {tuple(e.absolute_path) for e in validator.iter_errors(masked)}
            if not paths:
                return masked
            for path in sorted(paths, key=len):
                masked = _restore(masked, value, path)
        return copy.deepcopy(value)

    def html(self, text: str) -> str:
        """An HTML page with the secrets masked in its text and attribute values."""
        if not self._html:
            return text
        parts = _MARKUP.split(text)
        for n, part in enumerate(parts):
            if n % 2 == 0:
                parts[n] = self._html.sub(MASK, part)
            elif not part.startswith(("<script", "<style", "<!--", "<SCRIPT", "<STYLE")):
                parts[n] = _ATTRIBUTE.sub(lambda m: m[1] + self._html.sub(MASK, m[2]), part)
        return "".join(parts)

    def xml(self, content: bytes) -> bytes:
        """An XML document with the secrets masked in its text and attribute values."""
        root = ET.fromstring(content)
        for element in root.iter():
            element.text = element.text and self.text(element.text)
            element.tail = element.tail and self.text(element.tail)
            for name, value in element.attrib.items():
                element.attrib[name] = self.text(value)
        return ET.tostring(root, encoding="utf-8", xml_declaration=True)

    def file(self, path: Path, schema: dict[str, Any] | None = None) -> None:
        """Mask the secrets in a file written by the run, by its kind; rewrite it only if
        something changed. A file that is not UTF-8 text is left alone."""
        content = path.read_bytes()
        if not any(form in content for form in self._bytes):
            return
        try:
            text = content.decode("utf-8")
        except UnicodeDecodeError:
            return
        if not (self._text and self._text.search(text) or self._html and self._html.search(text)):
            return
        suffix = path.suffix.lower()
        try:
            if suffix == ".json":
                value = json.loads(text)
                cleaned = json.dumps(self.document(value, schema), ensure_ascii=False,
                                     indent=2 if "\n" in text.strip() else None) + "\n"
            elif suffix in (".xml", ".svg"):
                cleaned = self.xml(content).decode("utf-8")
            elif suffix in (".html", ".htm"):
                cleaned = self.html(text)
            else:
                cleaned = self.text(text)
        except (ValueError, ET.ParseError):  # not what its name says: masked as text
            cleaned = self.text(text)
        if cleaned != text:
            path.write_text(cleaned, encoding="utf-8")

    def tree(self, directory: Path, schemas: dict[str, dict[str, Any]] | None = None) -> None:
        """`file()` for every file under the directory; `schemas` by file name."""
        if not self or not directory.is_dir():
            return
        for path in sorted(directory.rglob("*")):
            if path.is_file():
                self.file(path, (schemas or {}).get(path.name))


def _tokens(forms: set[str]) -> re.Pattern[str] | None:
    """One pattern for the forms, each bounded where it begins or ends with a word character,
    longest first."""
    alternatives = []
    for form in sorted(filter(None, forms), key=len, reverse=True):
        before = r"(?<!\w)" if _WORD.match(form[0]) else ""
        after = r"(?!\w)" if _WORD.match(form[-1]) else ""
        alternatives.append(f"{before}{re.escape(form)}{after}")
    return re.compile("|".join(alternatives)) if alternatives else None


def _jinja_escape(text: str) -> str:
    """The escaping of Jinja's autoescape (markupsafe), which differs from html.escape."""
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&#34;").replace("'", "&#39;"))


def _restore(masked: Any, original: Any, path: tuple[Any, ...]) -> Any:
    """`masked` with the value at `path` put back as it was in `original`."""
    if not path:
        return copy.deepcopy(original)
    head, rest = path[0], path[1:]
    try:
        masked[head] = _restore(masked[head], original[head], rest)
    except (KeyError, IndexError, TypeError):
        return copy.deepcopy(original)
    return masked
