"""The calculator bundle's comment stripping (generator/publish/js_comments.py)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from generator.publish.bundle import bundle
from generator.publish.js_comments import JsLexError, without_comments

REPO = Path(__file__).resolve().parent.parent

#: Places where ``//`` or ``/*`` is not a comment, and comments next to them. Each line's value
#: goes into ``out``; node evaluates the text before and after stripping (the oracle).
TRICKY = r"""const out = [];
out.push("a // not a comment", 'b /* nor this */');  // a trailing note
out.push(`c // ${"d /* */" + `e ${1 + /* inline */ 2} // f`} g`);
const half = 10 / 2 // division, then a comment
  / 5;
out.push(half, /\/\/x/.test("//x"), /[/*]+/.exec("a/*b")[0], "x".replace(/\*\//g, ""));
/**
 * A block over lines with a ` backtick, a ' quote and a " quote.
 */
out.push(typeof /re/.source, 6 / 3 / 1, [1, 2].map((v) => v / 2));
if (true) { out.push({ a: 1 }.a / 1); } /re/.test("re") && out.push("regex after a block");
out.push(`multi
line // kept
${"x"}`);
out.push(a/**/ + 1);
function a() { return 2; }
out.push(String.raw`\` // in raw`);
"""


def test_strings_templates_and_patterns_keep_their_slashes() -> None:
    out = without_comments(TRICKY)
    assert out.count("\n") == TRICKY.count("\n")  # every line break stays
    for kept in ["a // not a comment", "'b /* nor this */'", '"d /* */"', "// f`} g`", "/\\/\\/x/", "/[/*]+/",
                 "/\\*\\//g", "line // kept", "`\\` // in raw`"]:  # fmt: skip
        assert kept in out, kept
    for gone in ["a trailing note", "inline", "division, then", "backtick"]:
        assert gone not in out, gone
    assert "1 + 2}" in out  # an inline block comment becomes one space...
    assert "out.push(a + 1);" in out  # ...or none, where space is already there; never joins two names
    assert "\"a // not a comment\", 'b /* nor this */');\n" in out  # the space before a removed note goes too


def test_node_runs_the_stripped_text_to_the_same_values() -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    tail = "console.log(JSON.stringify(out));\n"
    runs = [
        subprocess.run(["node", "-e", text + tail], capture_output=True, text=True, check=True).stdout
        for text in (TRICKY, without_comments(TRICKY))
    ]
    assert runs[0] == runs[1]
    assert '"regex after a block"' in runs[0] and "3" in runs[0]


@pytest.mark.parametrize("text", ['const s = "open;\n', "const t = `open;\n", "/* open\n", "x = /open\n"])
def test_what_is_never_closed_is_an_error_naming_its_line(text: str) -> None:
    with pytest.raises(JsLexError, match=r"^line 3: "):
        without_comments("// one\nconst two = 2;\n" + text)


def test_the_real_bundle_loses_only_comments(tmp_path: Path) -> None:
    """Line by line against the modules as written (concatenated the same way with the comments
    kept): a changed line was a comment, or lost a trailing one; nothing else moved."""
    source = REPO / "docs" / "javascripts" / "calculator.js"
    stripped = bundle(source).split("\n")
    kept = bundle(source, comments=True).split("\n")
    assert len(stripped) == len(kept)
    changed = 0
    in_block = False
    for before, after in zip(kept, stripped, strict=True):
        line = before.strip()
        if before == after:
            assert not in_block or not line, before  # the bundle's own "// ---- module" heads stay
            continue
        if in_block or line.startswith(("//", "/*")):
            assert after.strip() == "", before
            in_block = (in_block or line.startswith("/*")) and not line.endswith("*/")
        else:
            rest = before[len(after) :].strip() if before.startswith(after) else ""
            assert rest.startswith(("//", "/*")), before
            in_block = rest.startswith("/*") and not rest.endswith("*/")
        changed += 1
    assert changed > 300  # the engine is documented; a stripper that did nothing would fail here
    if shutil.which("node") is not None:
        (tmp_path / "bundle.mjs").write_text("\n".join(stripped), encoding="utf-8")
        subprocess.run(["node", "--check", str(tmp_path / "bundle.mjs")], check=True)
