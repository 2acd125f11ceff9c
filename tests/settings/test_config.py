"""Profiles: a user's profile is laid over the defaults and names only what differs; a bad one
is refused when it is loaded, naming the file and the key."""

from __future__ import annotations

import hashlib
import re

import pytest
import yaml

from boardcert import cli
from boardcert.errors import ConfigError
from boardcert.paths import DEFAULT_PROFILE
from boardcert.settings.config import PLACEHOLDERS, load_profile, overlay

DEFAULTS = yaml.safe_load(DEFAULT_PROFILE.read_text(encoding="utf-8"))


def write(tmp_path, text: str, name: str = "mine.yaml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_partial_profile_takes_the_rest_from_the_defaults(tmp_path):
    """A profile naming one key changes that key; every other key is the default's."""
    profile = load_profile(write(tmp_path, "plugin_id: other-plugin\n"))
    assert profile.get("plugin_id") == "other-plugin"
    assert {k: v for k, v in profile.data.items() if k not in ("plugin_id", "name")} == {
        k: v for k, v in DEFAULTS.items() if k not in ("plugin_id", "name")}


def test_mappings_merge_and_a_body_replaces_whole(tmp_path):
    """Under bodies, a named body replaces the default's body whole (never a mix of two);
    the other bodies stay."""
    profile = load_profile(write(tmp_path, "bodies:\n  alias_card: {target: '{column_id}'}\n"))
    assert profile.get("bodies.alias_card") == {"target": "{column_id}"}
    assert profile.get("bodies.create_card") == DEFAULTS["bodies"]["create_card"]


def test_null_removes_a_key_so_its_tests_are_not_assessed(tmp_path):
    """`key: null` says the server has none: the merged profile lacks it."""
    profile = load_profile(write(tmp_path, "plugin_id: null\nbodies: {exchange_code: null}\n"))
    assert "plugin_id" not in profile.data and not profile.has("plugin_id")
    assert not profile.has("bodies.exchange_code") and profile.has("bodies.create_card")


def test_a_list_or_scalar_replaces():
    """Lists and scalars are replaced, not merged."""
    merged = overlay({"a": [1, 2], "b": {"c": 1, "d": 2}, "e": "x"},
                     {"a": [3], "b": {"c": 5}, "e": "y"})
    assert merged == {"a": [3], "b": {"c": 5, "d": 2}, "e": "y"}


def test_the_name_is_the_file_stem_unless_given(tmp_path):
    """Without its own name a profile is named after its file, never 'reference'."""
    assert load_profile(write(tmp_path, "plugin_id: x\n", "acme.yaml")).name == "acme"
    assert load_profile(write(tmp_path, "name: Acme Board\n")).name == "Acme Board"
    assert load_profile(write(tmp_path, "", "empty.yaml")).data == DEFAULTS | {"name": "empty"}


def test_the_profile_records_its_file_and_sha256(tmp_path):
    """The loaded profile knows the user's file and its SHA-256; the defaults alone have none."""
    path = write(tmp_path, "plugin_id: x\n")
    profile = load_profile(path)
    assert profile.path == path
    assert profile.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert load_profile().path is None and load_profile().sha256 is None


def test_an_unknown_key_in_a_partial_profile_is_refused(tmp_path):
    """A misspelt key is an error naming it, even in a profile of one key."""
    with pytest.raises(ConfigError, match=r"mine\.yaml.*unknown key plugin_idd"):
        load_profile(write(tmp_path, "plugin_idd: x\n"))


@pytest.mark.parametrize(("text", "key", "name"), [
    ("bodies:\n  create_card: {name: '{nam}'}\n", "bodies.create_card.name", "nam"),
    ("bodies:\n  move_cards: {ids: ['{card_id}', 'x-{cardId}']}\n", "bodies.move_cards.ids.1",
     "cardId"),
    ("entity_id: '{card}'\n", "entity_id", "card")])
def test_an_unknown_placeholder_is_refused_naming_key_and_placeholder(tmp_path, text, key,
                                                                       name):
    """A placeholder the suite does not fill is a configuration error when the profile is
    loaded, naming the key and the placeholder."""
    with pytest.raises(ConfigError) as caught:
        load_profile(write(tmp_path, text))
    assert f"key {key}: unknown placeholder {{{name}}}" in str(caught.value)
    assert "mine.yaml" in str(caught.value)


def test_every_placeholder_the_reference_profile_documents_is_known():
    """The reference profile's comment lists exactly boardcert.settings.config.PLACEHOLDERS, and its
    own templates use only those."""
    comment = re.search(r"Placeholders: (.*?)\.\n(?!#)", DEFAULT_PROFILE.read_text(), re.S)
    listed = {w.strip("# \n") for w in comment.group(1).replace("\n#", " ").split(",")}
    assert listed == PLACEHOLDERS
    load_profile(DEFAULT_PROFILE)


def test_a_yaml_error_names_the_file_and_line(tmp_path):
    """Broken YAML names the file and the line, not `<unicode string>`."""
    with pytest.raises(ConfigError) as caught:
        load_profile(write(tmp_path, "plugin_id: x\nbodies: {a: [1, 2}\n"))
    assert "mine.yaml" in str(caught.value) and "line 2" in str(caught.value)
    assert "<unicode string>" not in str(caught.value)


def test_a_profile_that_is_not_a_mapping_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="expected a mapping"):
        load_profile(write(tmp_path, "- a\n- b\n"))


# --- boardcert profile --------------------------------------------------------------------

def test_profile_show_prints_the_merged_profile(tmp_path, capsys):
    """`boardcert profile --show FILE` prints the defaults with FILE laid over them, as YAML."""
    path = write(tmp_path, "plugin_id: other\norganization: null\n")
    assert cli.main(["profile", "--show", str(path)]) == 0
    shown = yaml.safe_load(capsys.readouterr().out)
    expected = {k: v for k, v in DEFAULTS.items() if k != "organization"}
    assert shown == expected | {"name": "mine", "plugin_id": "other"}


def test_profile_show_without_a_file_prints_the_defaults(capsys):
    assert cli.main(["profile", "--show"]) == 0
    assert yaml.safe_load(capsys.readouterr().out) == DEFAULTS


def test_profile_check_refuses_an_unknown_placeholder_with_exit_2(tmp_path, capsys):
    """`boardcert profile` exits 2 for an unknown placeholder, naming the key."""
    path = write(tmp_path, "bodies:\n  create_card: {name: '{title}'}\n")
    assert cli.main(["profile", str(path)]) == 2
    assert "bodies.create_card.name: unknown placeholder {title}" in capsys.readouterr().err
