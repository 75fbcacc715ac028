"""The site's stylesheets lose their comments on the way to site/ (generator.publish.css), nothing else.

extra.css is a third comments (why a colour, what was measured), and every page loads it before its
first paint; the calculator's first view was 43 bytes under its budget (issue 21)."""

from __future__ import annotations

from pathlib import Path

from conftest import REPO

from generator.publish.css import without_comments


def test_comments_go_and_strings_stay() -> None:
    css = (
        "/* a note\n   on two lines */\n"
        'a::after { content: "/* not a comment */"; } /* after a rule */\n'
        "b::before { content: '\\'/*'; }\n"
        "\n"
        "c { color: red; }/* touching */d { color: blue; }\n"
    )
    assert without_comments(css) == (
        'a::after { content: "/* not a comment */"; } \n'
        "b::before { content: '\\'/*'; }\n"
        "c { color: red; }d { color: blue; }\n"
    )


def test_an_unclosed_comment_runs_to_the_end_and_twice_is_once() -> None:
    assert without_comments("a { color: red; }\n/* never closed\nb { color: blue; }\n") == "a { color: red; }\n"
    sheet = (REPO / "docs" / "stylesheets" / "extra.css").read_text(encoding="utf-8")
    once = without_comments(sheet)
    assert without_comments(once) == once
    assert "/*" not in once and len(once) < 0.9 * len(sheet)  # the sheet has comments to lose


def test_the_built_sheet_is_the_source_without_its_comments(built_site: Path) -> None:
    source = (REPO / "docs" / "stylesheets" / "extra.css").read_text(encoding="utf-8")
    assert (built_site / "site" / "stylesheets" / "extra.css").read_text(encoding="utf-8") == without_comments(source)
