"""boardcert.http.redact: the key is masked where it stands (tokens, header values, JSON string
values, XML and HTML text), never inside other words, JSON keys or markup, and a report stays
valid against its schema whatever the key."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest
from samples import sample_report

from boardcert.http.redact import MASK, Redactor, short_key_warning
from boardcert.outputs import report

ODD_KEYS = ["k", "test", "s", "***", "a.b*c(d", 'k"e<y&', "it's", "MUST", "passed", "2026",
            "div", "p"]


def test_a_short_key_is_masked_only_where_it_stands_alone():
    """Key `test` leaves suites/test_auth.py alone; key `k` leaves `expected quick`."""
    assert Redactor(["test"]).text("suites/test_auth.py: test, 'test' (test)") == \
        "suites/test_auth.py: ***, '***' (***)"
    assert Redactor(["k"]).text("expected quick, got k=k") == "expected quick, got ***=***"
    assert Redactor(["s"]).text("3 passed in 1.5s") == "3 passed in 1.5s"


def test_a_key_is_masked_as_written_json_escaped_and_url_quoted():
    """Each form the key can take in a message is masked."""
    key = 'k"e y/'
    text = f'raw {key} json {json.dumps(key)[1:-1]} url k%22e%20y%2F end'
    assert Redactor([key]).text(text) == "raw *** json *** url *** end"


def test_regex_metacharacters_in_the_key_are_literal():
    """A key with regex metacharacters matches only itself."""
    assert Redactor(["a.b*c(d"]).text("a.b*c(d axbbbc(d") == "*** axbbbc(d"


def test_no_key_changes_nothing():
    """Without a key (or an empty one) nothing is masked and the redactor is falsy."""
    redactor = Redactor(["", None])
    assert not redactor and redactor.text("anything ***") == "anything ***"


def test_a_header_equal_to_the_key_is_masked_whole():
    """A header value that is the key is masked whole, even a key that is not a word."""
    assert Redactor(["-x-"]).header("-x-") == MASK
    assert Redactor(["k"]).header("application/json; k") == "application/json; ***"


def test_json_values_are_masked_and_keys_never():
    """String values equal to the key or holding it as a token are masked; keys stay."""
    value = {"k": "k", "tests": ["k", "kk", "a k b"], "n": 1}
    assert Redactor(["k"]).json(value) == {"k": MASK, "tests": [MASK, "kk", "a *** b"], "n": 1}


def test_a_body_is_masked_as_json_when_it_parses():
    """A JSON body keeps its keys; a body that is not JSON is masked as text."""
    redactor = Redactor(["k"])
    assert json.loads(redactor.body('{"k": "k"}')) == {"k": MASK}
    assert redactor.body('{"k": 1}') == '{"k": 1}'
    assert redactor.body("k: not json") == "***: not json"


@pytest.mark.parametrize("key", ODD_KEYS)
def test_a_report_stays_valid_against_its_schema_for_any_key(key):
    """Masking a compliance report never breaks its schema, whatever the key."""
    built = sample_report("conformant with warnings")
    built["target"]["base_url"] = f"http://h/{key}"
    masked = Redactor([key]).document(built, report.schema())
    report.validate(masked)
    assert masked["target"]["base_url"] == "http://h/***" or key == "***"


def test_a_value_the_schema_pins_keeps_its_word():
    """Key `MUST`: the levels stay, free text is masked."""
    built = sample_report("conformant")
    built["target"]["base_url"] = "http://h/MUST"
    masked = Redactor(["MUST"]).document(built, report.schema())
    assert {r["level"] for r in masked["requirements"]} >= {"MUST"}
    assert masked["target"]["base_url"] == "http://h/***"


@pytest.mark.parametrize("key", ODD_KEYS)
def test_html_markup_is_never_masked(key, tmp_path):
    """A rendered report keeps its markup, script and style for any key; its text is masked."""
    built = sample_report("non-conformant")
    built["target"]["base_url"] = f"http://h/{key}"
    page = report.render_html(built)
    masked = Redactor([key]).html(page)
    tags = r"<[^>]*>"
    assert [re.sub(r'"[^"]*"', "", t) for t in re.findall(tags, masked)] == \
        [re.sub(r'"[^"]*"', "", t) for t in re.findall(tags, page)]
    assert "http://h/***" in masked


@pytest.mark.parametrize("key", ODD_KEYS)
def test_xml_stays_well_formed_and_keeps_its_names(key):
    """junit-like XML keeps its element and attribute names; texts and values are masked."""
    doc = ET.Element("testsuite", name="s")
    ET.SubElement(doc, "property", name="evidence", value=f"X-API-Key: {key}").text = key
    masked = ET.fromstring(Redactor([key]).xml(ET.tostring(doc)))
    prop = masked.find("property")
    assert masked.tag == "testsuite" and prop is not None and prop.get("name") == "evidence"
    assert prop.get("value") == "X-API-Key: ***" and prop.text == MASK


def test_every_file_of_a_tree_is_masked_by_its_kind(tmp_path):
    """JSON, XML, HTML and text files lose the key in each escaping; a binary file and a
    JSON key are left alone."""
    secret = 'k"e<y&'
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.json").write_text(json.dumps({"k": secret}))
    (tmp_path / "b.xml").write_text("<p v='k&quot;e&lt;y&amp;'/>")
    (tmp_path / "c.txt").write_text(f"raw {secret}")
    (tmp_path / "d.html").write_text("<p title='k&quot;e&lt;y&amp;'>k&#34;e&lt;y&amp;</p>")
    (tmp_path / "e.bin").write_bytes(b"\xff\xfe" + secret.encode())
    Redactor([secret]).tree(tmp_path)
    assert json.loads((tmp_path / "sub" / "a.json").read_text()) == {"k": MASK}
    assert ET.fromstring((tmp_path / "b.xml").read_text()).get("v") == MASK
    assert (tmp_path / "c.txt").read_text() == "raw ***"
    assert (tmp_path / "d.html").read_text() == "<p title='***'>***</p>"
    assert (tmp_path / "e.bin").read_bytes() == b"\xff\xfe" + secret.encode()


def test_a_short_key_gets_a_warning():
    """Keys under 8 characters are warned about; longer ones and no key are not."""
    assert "shorter than 8" in short_key_warning("test")
    assert short_key_warning("12345678") is None and short_key_warning("") is None


def test_a_wrong_key_made_from_the_key_shows_as_mask_plus_the_rest():
    """A header value that contains a long key (the key plus a character) hides the key."""
    mask = Redactor(["a-long-secret-key"])
    assert mask.header("a-long-secret-keyx") == "***x"
    assert Redactor(["k"]).header("kx") == "kx"  # a short key inside a word stays (warned)
