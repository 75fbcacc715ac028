"""libyaml's fast path (generator.data.load._compose_fast) reads a file exactly as the pure loader does.

The fast path composes plain data files with PyYAML's C binding; anything it is not sure of (a tab,
anchors, aliases, tags, directives, too deep, any error) goes to the pure-Python loader, whose error
texts the editors' messages are written for. These tests load each input both ways (the pure way by
switching the fast path off) and compare everything a load gives: the values, every mark, the scalars
as written, and the problems.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.data import load

TESTS = Path(__file__).parent
REPO = TESTS.parent
FILES = sorted(p for folder in (REPO / "data", TESTS / "fixtures", TESTS / "bad_yaml") for p in folder.rglob("*.yaml"))


def both_ways(data: bytes, monkeypatch: pytest.MonkeyPatch) -> tuple[object, object]:
    """(fast-path load, pure load) of ``data``, each as comparable plain values."""

    def outcome() -> object:
        doc, problems = load.load_bytes(data, "t.yaml", root="gpus")
        held = None if doc is None else (doc.value, doc.marks, doc.key_marks, doc.scalars)
        return held, [p.format() for p in problems]

    fast = outcome()
    with monkeypatch.context() as m:
        m.setattr(load, "_compose_fast", lambda _text: None)
        pure = outcome()
    return fast, pure


def test_the_bundled_files_take_the_fast_path() -> None:
    # offers.yaml is what a price edit re-reads; if it stopped taking the fast path, serve would slow 5x
    text = (REPO / "data" / "offers.yaml").read_text(encoding="utf-8")
    assert load._compose_fast(text) is not None


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(REPO)) for p in FILES])
def test_every_data_file_loads_the_same_both_ways(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fast, pure = both_ways(path.read_bytes(), monkeypatch)
    assert fast == pure


TRICKY = [
    "gpus:\r\n  - id: a\r\n    name: 显存 80 GB\r\n    note: x\r\n",  # CRLF, CJK before a later column
    "gpus:\n  - {id: a, tags: [x, 'y z', \"q\\u00e9\"]}\n  - id: b\n",  # flow collections, escapes
    "gpus:\n  - id: a\n    note: |\n      line one\n      line two\n    more: >\n      folded\n      text\n",
    "gpus:\n  - id: a\n    note: plain text\n      continued on the next line\n",
    "# comment\n---\ngpus:  # trailing\n  - id: a   # c\n    empty:\n    n: ~\n...\n",
    "gpus:\n- id: a\n  price: 1.5\n  when: 2026-01-02\n  flag: true\n  count: -3\n",  # indentless list
    "gpus:\n  - id: 'it''s'\n    k: \"a\\tb\"\n    ? complex key\n    : v\n",
    "gpus:\n  - id: a\u2028b\n",  # a line separator inside a plain scalar
    "gpus:\n  - id: a\x85b: c\n",
    "gpus: []\nother: {a: 1}\n",
    "gpus:\n  - id: a\n  - id: a\n    id: b\n",  # a duplicate key: a problem both ways
    "gpus:\n  - id: yes\n    n: 08\n    e: 1e3\n",  # values the strict rules refuse
]


@pytest.mark.parametrize("text", TRICKY)
def test_tricky_texts_load_the_same_both_ways(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fast, pure = both_ways(text.encode(), monkeypatch)
    assert fast == pure


_scalars = st.one_of(
    st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=12),
    st.integers(-(10**6), 10**6),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
)
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    value=_values,
    flow=st.sampled_from([None, True, False]),
    style=st.sampled_from([None, '"', "'", "|", ">"]),
    crlf=st.booleans(),
    width=st.sampled_from([20, 80]),
)
def test_dumped_values_load_the_same_both_ways(
    value: object, flow: bool | None, style: str | None, crlf: bool, width: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = yaml.safe_dump(
        {"gpus": value}, allow_unicode=True, default_flow_style=flow, default_style=style, width=width
    )
    if crlf:
        text = text.replace("\n", "\r\n")
    fast, pure = both_ways(text.encode(), monkeypatch)
    assert fast == pure


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(at=st.integers(0, 10**6), junk=st.sampled_from(list(":-[]{}#'\"|>?,&*!%@` \n\r\t\\…显")))
def test_damaged_files_load_the_same_both_ways(at: int, junk: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # one character of a real data file replaced by one YAML treats specially: both ways agree on
    # the value or on the problem (libyaml must not accept what the pure loader refuses)
    text = (REPO / "data" / "providers.yaml").read_text(encoding="utf-8")
    i = at % len(text)
    fast, pure = both_ways((text[:i] + junk + text[i + 1 :]).encode(), monkeypatch)
    assert fast == pure
