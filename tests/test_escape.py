"""Escaping filters: data text must come out as text in every output context."""

from __future__ import annotations

import json

import markdown
import pytest

from generator.pages import escape

EXTENSIONS = ["tables", "admonition", "attr_list", "toc"]


def to_html(text: str) -> str:
    return markdown.markdown(text, extensions=EXTENSIONS)


@pytest.mark.parametrize(
    "hostile",
    [
        "<script>alert(1)</script>",
        "a | b | c",
        "**bold** _it_ `code`",
        "[click](javascript:alert(1))",
        "<javascript:alert(1)>",
        "{: onclick=alert(1) }",
        '--8<-- "/etc/passwd"',
        "{{ config.secret }}",
        "# heading",
        "- list item",
        "1. ordered",
        "line one\nline two\n\n| x | y |",
        "<img src=x onerror=alert(1)>",
        "&lt;already escaped&gt; & more",
        "!!! warning",
        "![img](http://example.com/x.png)",
    ],
)
def test_md_renders_as_visible_text(hostile: str) -> None:
    html = to_html(f"before {escape.md(hostile)} after")
    # Exactly one paragraph of text: no element besides <p> came from the data.
    assert html.startswith("<p>") and html.endswith("</p>")
    assert html.count("<") == 2, html
    # The browser shows the original characters (newlines folded to spaces).
    import html as htmllib

    shown = htmllib.unescape(html[3:-4])
    assert shown == "before " + " ".join(hostile.split()) + " after"


def test_md_in_table_cell_keeps_columns() -> None:
    cell = escape.md("x | y || z\n| a |")
    html = to_html(f"| h1 | h2 |\n| --- | --- |\n| {cell} | ok |\n")
    assert html.count("<td>") == 2
    assert "<td>ok</td>" in html


def test_md_leaves_chinese_and_plain_text_readable() -> None:
    assert escape.md("昇腾 910B 64GB，价格约为 A100 的六成") == "昇腾 910B 64GB，价格约为 A100 的六成"
    assert escape.md("RTX 4090 24GB") == "RTX 4090 24GB"


def test_md_escapes_block_starters_only_at_start() -> None:
    assert escape.md("- a-b") == "&#45; a-b"
    assert escape.md("1. x") == "1&#46; x"
    assert escape.md("v1.5 和 15.6 GiB") == "v1.5 和 15.6 GiB"  # only a leading "1." opens a list


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("https://example.com/a_b(c).pdf", "https://example.com/a_b%28c%29.pdf"),
        ("http://x.y/?q=1&r=2", "http://x.y/?q=1&r=2"),
        ("javascript:alert(1)", "#"),
        ("JAVASCRIPT:alert(1)", "#"),
        ("data:text/html,<script>", "#"),
        ("//evil.example/x", "#"),
        ("https://x.y/a b<c>", "https://x.y/a%20b%3Cc%3E"),
    ],
)
def test_url_only_http_and_no_breakout(value: str, expected: str) -> None:
    assert escape.url(value) == expected


def test_json_for_script_cannot_close_the_element() -> None:
    text = escape.json_for_script({"k": "</script><!-- \u2028 & >"})
    assert "</" not in text and "<!--" not in text and "\u2028" not in text
    assert json.loads(text) == {"k": "</script><!-- \u2028 & >"}


def test_yaml_str_is_one_line_and_round_trips() -> None:
    import yaml

    value = 'a "quoted"\nline: with colon #hash'
    out = escape.yaml_str(value)
    assert "\n" not in out
    assert yaml.safe_load(f"title: {out}")["title"] == " ".join(value.split())


def test_md_drops_spaces_that_yaml_folding_put_into_chinese() -> None:
    assert escape.md("每个参数约 16 字节，\n13B 模型仅这部分") == "每个参数约 16 字节，13B 模型仅这部分"
    assert escape.md("先确认\n显存") == "先确认显存"
    assert escape.md("A100 与 H100") == "A100 与 H100"


@pytest.mark.parametrize(
    ("value", "title"),
    [
        # DEL and C1 raw in front matter made PyYAML refuse the header (issue 10): they are dropped,
        # like md drops them; U+0085 is white space to Python and folds to a space.
        ("a\x7fb", "ab"),
        ("c\x85d", "c d"),
        ("e\x9b[x](javascript:alert(1))", "e[x](javascript:alert(1))"),
        ("¥\u202e0848", "¥0848"),  # the direction controls go too
        ("f\x01\x1bg", "fg"),
        # other invisible characters are kept, written as escapes PyYAML reads back
        ("g\u200bh\ufeffi\U000e0041", "g\u200bh\ufeffi\U000e0041"),
    ],
)
def test_yaml_str_cannot_break_front_matter(value: str, title: str) -> None:
    import yaml

    out = escape.yaml_str(value)
    assert all(ch.isprintable() for ch in out), out
    assert yaml.safe_load(f"---\ntitle: {out}\n---\n".split("---\n")[1])["title"] == title


@pytest.mark.parametrize("value", ["a\x7fb", "c\x85d", "\x9b", "¥\u202e0848", "g\u200bh\U000e0041", "x\u3000y"])
def test_yaml_data_keeps_any_text_exactly(value: str) -> None:
    import yaml

    out = escape.yaml_data(value)
    assert all(ch.isprintable() or ch == "\u3000" for ch in out), out
    assert yaml.safe_load(f"t: {out}")["t"] == value


def test_md_drops_control_and_direction_characters() -> None:
    assert escape.md("¥\u202e0848 \u2066x\u2069\x85\x9b\x7f") == "¥0848 x"
