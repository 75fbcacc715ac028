"""Tests for generator.data.load: the safe YAML loader.

The corpus in tests/bad_yaml holds one broken file per case (``.yaml``, or ``.bin``
for bytes that are not valid UTF-8 text) and next to it ``<stem>.expected``: the exact
``Problem.format()`` lines, written and checked by hand. Inputs that would be huge
(deep nesting, alias bombs, oversized files) are generated here instead.
"""

from __future__ import annotations

import codecs
import datetime as dt
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.data.load import MAX_BYTES, MAX_DEPTH, MAX_NODES, Document, Mark, Scalar, load_bytes, load_file
from generator.data.problems import Severity

CORPUS = Path(__file__).parent / "bad_yaml"
CASES = sorted(p for p in CORPUS.iterdir() if p.suffix in (".yaml", ".bin"))

GOOD = """\
# GPU list
gpus:
  - id: h100-sxm-80g
    name: "H100 80GB SXM"
    vendor: NVIDIA
    memory_gb: 80
    fp32_tflops: 67.0
    nvlink: true
    note: null
    released: 2023-03-21
    tags: [hopper, sxm]
    desc: |
      适合大模型训练。
  - id: '08'
    name: 昇腾 910B
    empty:
"""

GOOD_VALUE = {
    "gpus": [
        {
            "id": "h100-sxm-80g",
            "name": "H100 80GB SXM",
            "vendor": "NVIDIA",
            "memory_gb": 80,
            "fp32_tflops": 67.0,
            "nvlink": True,
            "note": None,
            "released": dt.date(2023, 3, 21),
            "tags": ["hopper", "sxm"],
            "desc": "适合大模型训练。\n",
        },
        {"id": "08", "name": "昇腾 910B", "empty": None},
    ]
}


def load_text(text: str, name: str = "t.yaml") -> tuple[Document | None, list[str]]:
    doc, problems = load_bytes(text.encode(), name, root="gpus")
    return doc, [p.format() for p in problems]


def good_doc(data: bytes = GOOD.encode()) -> Document:
    doc, problems = load_bytes(data, "data/gpus.yaml", root="gpus")
    assert problems == []
    assert doc is not None
    return doc


# ------------------------------------------------------------------ corpus


def test_corpus_is_big_enough() -> None:
    assert len(CASES) >= 25
    for case in CASES:
        assert case.with_suffix(".expected").is_file(), f"{case.name} has no .expected file"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_corpus(case: Path) -> None:
    expected = case.with_suffix(".expected").read_text(encoding="utf-8").splitlines()
    doc, problems = load_file(case, case.name, root="gpus")
    assert [p.format() for p in problems] == expected
    assert doc is None
    assert all(p.severity is Severity.error for p in problems)


# ------------------------------------------------------------------ good files, values and marks


def test_good_file_values() -> None:
    doc = good_doc()
    assert doc.name == "data/gpus.yaml"
    assert doc.value == GOOD_VALUE
    gpu = doc.value["gpus"][0]
    assert type(gpu["memory_gb"]) is int and type(gpu["fp32_tflops"]) is float and gpu["nvlink"] is True


def test_good_file_marks() -> None:
    doc = good_doc()
    g0, g1 = ("gpus", 0), ("gpus", 1)
    assert doc.marks[()] == Mark(2, 1)
    assert doc.key_marks[("gpus",)] == Mark(2, 1)
    assert doc.marks[("gpus",)] == Mark(3, 3)  # the list starts at its first "-"
    assert doc.marks[g0] == Mark(3, 5)  # a list item's value starts after "- "
    assert doc.marks[g1] == Mark(14, 5)
    assert doc.key_marks[g0 + ("id",)] == Mark(3, 5)
    assert doc.marks[g0 + ("id",)] == Mark(3, 9)
    assert doc.key_marks[g0 + ("name",)] == Mark(4, 5)
    assert doc.marks[g0 + ("name",)] == Mark(4, 11)  # the opening quote
    assert doc.marks[g0 + ("memory_gb",)] == Mark(6, 16)
    assert doc.marks[g0 + ("tags",)] == Mark(11, 11)
    assert doc.marks[g0 + ("tags", 0)] == Mark(11, 12)
    assert doc.marks[g0 + ("tags", 1)] == Mark(11, 20)
    assert doc.marks[g0 + ("desc",)] == Mark(12, 11)  # the "|"
    assert doc.marks[g1 + ("id",)] == Mark(14, 9)
    assert doc.marks[g1 + ("name",)] == Mark(15, 11)
    assert doc.key_marks[g1 + ("empty",)] == Mark(16, 5)
    assert doc.marks[g1 + ("empty",)] == Mark(16, 11)  # nothing written: just after the ":"
    # Every value has a mark, every key a key mark.
    assert set(doc.key_marks) <= set(doc.marks)
    assert len(doc.marks) == 1 + 1 + 2 + 10 + 2 + 3  # root, gpus, 2 items, fields, tags items


def test_mark_of_missing_path_is_nearest_parent() -> None:
    doc = good_doc()
    assert doc.mark(("gpus", 0, "price_cny")) == Mark(3, 5)
    assert doc.mark(("gpus", 7, "id")) == Mark(3, 3)
    assert doc.mark(("nope",)) == Mark(2, 1)
    assert doc.mark(("gpus", 0, "id")) == Mark(3, 9)


def test_scalars_record_what_was_written() -> None:
    doc = good_doc()
    assert doc.scalars[("gpus", 0, "nvlink")] == Scalar("true", True)
    assert doc.scalars[("gpus", 0, "memory_gb")] == Scalar("80", True)
    assert doc.scalars[("gpus", 0, "name")] == Scalar("H100 80GB SXM", False)
    assert doc.scalars[("gpus", 1, "id")] == Scalar("08", False)
    assert doc.scalars[("gpus", 0, "desc")] == Scalar("适合大模型训练。\n", False)
    assert doc.scalars[("gpus", 1, "empty")] == Scalar("", True)
    assert ("gpus", 0, "tags") not in doc.scalars  # only scalars


def test_bom_is_stripped_and_crlf_keeps_marks() -> None:
    plain = good_doc()
    for data in (codecs.BOM_UTF8 + GOOD.encode(), GOOD.replace("\n", "\r\n").encode()):
        doc = good_doc(data)
        assert doc.value == plain.value
        assert doc.marks == plain.marks
        assert doc.key_marks == plain.key_marks


def test_aliases_are_expanded_and_marked_where_used() -> None:
    doc, problems = load_text("nv: &nv NVIDIA\ngpus:\n  - vendor: *nv\n    also: [x, *nv]\n")
    assert problems == [] and doc is not None
    assert doc.value["gpus"] == [{"vendor": "NVIDIA", "also": ["x", "NVIDIA"]}]
    assert doc.marks[("gpus", 0, "vendor")] == Mark(3, 13)
    assert doc.marks[("gpus", 0, "also", 1)] == Mark(4, 15)  # the "*"
    assert doc.scalars[("gpus", 0, "vendor")] == Scalar("NVIDIA", True)


def test_other_top_level_keys_are_loaded() -> None:
    doc, problems = load_text("version: 3\ngpus: []\n")
    assert problems == [] and doc is not None and doc.value == {"version": 3, "gpus": []}


@pytest.mark.parametrize(
    ("written", "value"),
    [
        ("true", True),
        ("False", False),
        ("TRUE", True),
        ("null", None),
        ("Null", None),
        ("~", None),
        ("", None),
        ("0", 0),
        ("-5", -5),
        ("+3", 3),
        ("-0", 0),
        ("1.5", 1.5),
        (".5", 0.5),
        ("5.", 5.0),
        ("-2.25", -2.25),
        ("2024-02-29", dt.date(2024, 2, 29)),
        ("h100", "h100"),
        ("1.2.3", "1.2.3"),
        ("12:75", "12:75"),
        ("2025-01-05 and more", "2025-01-05 and more"),
        ("yesterday", "yesterday"),
        ("1,000", "1,000"),
        ("NVLink 4.0", "NVLink 4.0"),
        ("'yes'", "yes"),
        ('"08"', "08"),
        ('"1e3"', "1e3"),
        ("'2025-02-30'", "2025-02-30"),
        ("!!str 08", "08"),
        ("!!float 3", 3.0),
        ("!!int 7", 7),
        ("!!bool false", False),
        ("!!null ~", None),
        ("0.0", 0.0),
    ],
)
def test_strict_plain_scalar_rules(written: str, value: object) -> None:
    doc, problems = load_text(f"gpus: {written}\n")
    assert problems == []
    assert doc is not None
    assert doc.value["gpus"] == value
    assert type(doc.value["gpus"]) is type(value)


# ------------------------------------------------------------------ generated hostile inputs


@pytest.mark.parametrize(
    "text",
    [
        "gpus: " + "[" * 10_000 + "]" * 10_000,
        "gpus: " + "[" * 10_000,  # never closed
        "gpus: " + "{a: " * 10_000 + "}" * 10_000,
        "gpus: " + "[a: " * 10_000 + "]" * 10_000,  # flow pairs add depth without a token
        "gpus:\n" + "".join(" " * i + "- \n" for i in range(200)),
        "gpus:\n" + "".join(" " * i + "k:\n" for i in range(1, 200)),
    ],
    ids=["flow-seq", "unclosed", "flow-map", "flow-pairs", "block-seq", "block-map"],
)
def test_deep_nesting_is_refused_before_composing(text: str) -> None:
    doc, problems = load_text(text, "deep.yaml")
    assert doc is None
    assert len(problems) == 1
    assert problems[0].endswith(f": nested more than {MAX_DEPTH} levels deep; flatten the data")


def test_deep_nesting_mark_is_where_it_crossed() -> None:
    _, problems = load_text("gpus: " + "[" * 10_000 + "]" * 10_000, "deep.yaml")
    # "gpus:" is level 1; the 64th "[" (column 6 + 64) is level 65.
    assert problems == ["deep.yaml:1:70: nested more than 64 levels deep; flatten the data"]


def test_nesting_limit_is_exact() -> None:
    ok, problems = load_text("gpus: " + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1))
    assert problems == [] and ok is not None
    _, problems = load_text("gpus: " + "[" * MAX_DEPTH + "]" * MAX_DEPTH)
    assert len(problems) == 1 and "nested more than" in problems[0]


def test_deep_nesting_through_aliases_is_refused() -> None:
    a = "a: &a " + "[" * 30 + "]" * 30
    b = "b: &b " + "[" * 30 + "*a" + "]" * 30
    text = f"{a}\n{b}\ngpus: " + "[" * 30 + "*b" + "]" * 30 + "\n"
    doc, problems = load_text(text, "alias-deep.yaml")
    assert doc is None
    assert len(problems) == 1 and "nested more than 64 levels deep" in problems[0]


def bomb(levels: int, width: int) -> str:
    lines = ['l0: &l0 "lol"']
    for i in range(1, levels + 1):
        lines.append(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * width) + "]")
    lines.append(f"gpus: *l{levels}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(("levels", "width"), [(9, 9), (30, 10)])
def test_alias_bomb_stops_at_the_budget(levels: int, width: int) -> None:
    # 9**9 = 387 million values, 10**30 more than any machine: the walk must stop
    # after MAX_NODES visits, so this is fast and small by construction.
    doc, problems = load_text(bomb(levels, width), "bomb.yaml")
    assert doc is None
    assert len(problems) == 1
    assert f"the file expands to more than {MAX_NODES} values" in problems[0]


def test_a_few_aliases_are_fine() -> None:
    doc, problems = load_text(bomb(3, 3), "small.yaml")
    assert problems == [] and doc is not None
    assert doc.value["gpus"] == [[["lol"] * 3] * 3] * 3


def test_too_large_is_refused_before_parsing(tmp_path: Path) -> None:
    data = b"gpus: []\n" + b"#" * MAX_BYTES
    doc, problems = load_bytes(data, "big.yaml", root="gpus")
    assert doc is None
    assert [p.format() for p in problems] == [
        "big.yaml:1:1: the file is larger than 2 MiB; split it into smaller files"
    ]
    big = tmp_path / "big.yaml"
    big.write_bytes(data)
    assert load_file(big, "big.yaml", root="gpus")[1] == problems


def test_unreadable_file_is_a_problem(tmp_path: Path) -> None:
    doc, problems = load_file(tmp_path / "missing.yaml", "data/missing.yaml", root="gpus")
    assert doc is None
    assert [p.format() for p in problems] == [
        "data/missing.yaml:1:1: cannot read the file (No such file or directory); check that it exists and is readable"
    ]
    doc, problems = load_file(tmp_path, "data", root="gpus")  # a directory
    assert doc is None and len(problems) == 1 and "cannot read the file" in problems[0].message


def test_all_problems_in_a_file_are_reported_at_once() -> None:
    doc, problems = load_text("gpus:\n  - a: yes\n  - a: 08\n    a: 1\n  - b: 1e3\n", "many.yaml")
    assert doc is None
    assert [p.split(":", 3)[:3] for p in problems] == [
        ["many.yaml", "2", "8"],
        ["many.yaml", "3", "8"],
        ["many.yaml", "4", "5"],
        ["many.yaml", "5", "8"],
    ]


# ------------------------------------------------------------------ fuzzing

PIECES = [c.encode() for c in "[{:-&*!|>'\"\t ]},?#%@\n0a"] + [
    b"\xff",
    b"\x00",
    b"\xc3",
    "昇".encode(),
    b"\r",
    b"---\n",
]
SAMPLE = GOOD.encode()


def check_contract(data: bytes) -> None:
    doc, problems = load_bytes(data, "fuzz.yaml", root="gpus")
    if doc is None:
        assert problems, "no document and no problem"
    else:
        assert problems == []
        assert isinstance(doc.value, dict) and "gpus" in doc.value
        assert () in doc.marks
    for p in problems:
        assert p.line >= 1 and p.col >= 1
        assert not p.message.startswith("internal error"), p.message
        assert "\n" not in p.message


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["insert", "delete", "replace"]), st.integers(0, len(SAMPLE)), st.sampled_from(PIECES)
        ),
        min_size=1,
        max_size=8,
    )
)
def test_mutated_files_never_raise(ops: list[tuple[str, int, bytes]]) -> None:
    data = bytearray(SAMPLE)
    for kind, pos, piece in ops:
        pos %= len(data) + 1
        if kind == "insert":
            data[pos:pos] = piece
        elif kind == "delete":
            del data[pos : pos + 1]
        else:
            data[pos : pos + 1] = piece
    check_contract(bytes(data))


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_arbitrary_bytes_never_raise(data: bytes) -> None:
    check_contract(data)
