"""Text from the data is safe in every output, not only in pages (issue 23).

Each test reproduces one attack that passed on main: a display name used as a ``re.sub``
replacement, a Bidi_Control character the loader let through, a YAML key whose line
break started a line of its own on stderr (a GitHub Actions workflow command), and a
``site_url`` that would have closed the canonical link's attribute.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import make_project, replace_in

from generator.data.characters import BIDI_CONTROLS
from generator.data.problems import Problem, one_line
from generator.data.validate import load_catalogue
from generator.pages.names import reader_ids
from generator.publish.site_config import check_settings

#: Unicode's PropList.txt (every version since 6.3, when U+061C and the isolates joined):
#:   061C          ; Bidi_Control # Cf       ARABIC LETTER MARK
#:   200E..200F    ; Bidi_Control # Cf   [2] LEFT-TO-RIGHT MARK..RIGHT-TO-LEFT MARK
#:   202A..202E    ; Bidi_Control # Cf   [5] LEFT-TO-RIGHT EMBEDDING..RIGHT-TO-LEFT OVERRIDE
#:   2066..2069    ; Bidi_Control # Cf   [4] LEFT-TO-RIGHT ISOLATE..POP DIRECTIONAL ISOLATE
PROPLIST_BIDI_CONTROL = [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]


def test_bidi_controls_are_exactly_unicodes_bidi_control_property() -> None:
    assert sorted(ord(c) for c in BIDI_CONTROLS) == PROPLIST_BIDI_CONTROL


def test_arabic_letter_mark_is_refused_in_a_name(tmp_path: Path) -> None:
    """U+061C turned "× 1 张" into "1 × 张" on the page; it is a Bidi_Control like U+202E."""
    root = make_project(
        tmp_path, lambda data: replace_in(data / "gpus.yaml", "name: A100 80GB SXM", 'name: "A100 × \\u061c1 张"')
    )
    cat, problems = load_catalogue(root / "data", root)
    assert cat is None
    assert [p.format() for p in problems] == [
        "data/gpus.yaml:26:11: gpus[1].name: contains the invisible direction control U+061C, which shows the "
        "text after it in another order (a price can read backwards); delete it (retype the value if your editor "
        "does not show it)"
    ]


@pytest.mark.parametrize("name", ["RTX 3090 \\d", "RTX \\g<0> 3090", "\\1 x", "a\\\\b"])
def test_a_display_name_is_never_a_replacement_pattern(name: str) -> None:
    r"""``'RTX 3090 \d'`` crashed the build (re.error) and ``\g<0>`` printed the id instead."""
    text = reader_ids("编辑推荐 rtx-3090-24g，计算结果为 a100", {"rtx-3090-24g": name, "a100": "A100"})
    assert text == f"编辑推荐 {name}，计算结果为 A100"


def test_a_name_is_not_replaced_again() -> None:
    """One pass: a display name that contains another id stays as written."""
    assert reader_ids("a100 与 b", {"a100": "b 的替代", "b": "B"}) == "b 的替代 与 B"


def test_a_line_break_in_a_yaml_key_stays_on_one_line(tmp_path: Path) -> None:
    """A key "x\\n::stop-commands::tok" printed raw lines to stderr, which GitHub Actions runs
    as workflow commands. The plain message writes the break as ``\\n``."""
    key = "x\\n::stop-commands::tok\\n::error::pwned"
    root = make_project(
        tmp_path, lambda data: replace_in(data / "gpus.yaml", "    tdp_w: 400\n", f'    tdp_w: 400\n    "{key}": 1\n')
    )
    cat, problems = load_catalogue(root / "data", root)
    assert cat is None
    [line] = [p.format() for p in problems]
    assert "\n" not in line and "\r" not in line
    assert line.startswith("data/gpus.yaml:42:5: gpus[1].x\\n::stop-commands::tok\\n::error::pwned: unknown field")


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("a\nb", "a\\nb"),
        ("a\r\n::error::x", "a\\r\\n::error::x"),
        ("x\u2028y\u2029z\x85", "x\\u2028y\\u2029z\\x85"),
        ("¥\u202e0848", "¥\\u202e0848"),
        ("中文 ¥1,200–1,500", "中文 ¥1,200–1,500"),
    ],
)
def test_one_line_escapes_every_line_break_and_control(text: str, shown: str) -> None:
    assert one_line(text) == shown
    assert Problem("f.yaml", 1, 1, text, text).format() == f"f.yaml:1:1: {shown}: {shown}"


@pytest.mark.parametrize(
    "url",
    [
        'https://a.cn/"><script>alert(1)</script>',
        "https://a.cn/'onmouseover='x",
        "https://a.cn/a b",
        "https://a.cn/<x>",
        "https://a.cn/?q=1",
        "https://a.cn/#x",
        "https://user@a.cn/",
        "https://a.cn/\\x",
    ],
)
def test_site_url_with_markup_is_refused(url: str) -> None:
    """It lands in every page's canonical link and the JSON-LD; main let ``"><script>`` through."""
    result, problems = check_settings({"site_url": url}, "site_url: x\n", "mkdocs.yml", production=False)
    assert result is None
    assert [p.format() for p in problems] == [
        "mkdocs.yml:1:1: site_url: must be a plain address: scheme, host, optional port and a path of letters, "
        f"digits and . - _ ~ % /, with no quotes, spaces, <, >, query or fragment; got {url!r}"
    ]


@pytest.mark.parametrize(
    "url", ["https://gpu.jygpu.cn/", "http://127.0.0.1:8000/", "https://a.cn", "https://a.cn/x/y_z~1/"]
)
def test_plain_site_urls_pass(url: str) -> None:
    result, problems = check_settings({"site_url": url}, "site_url: x\n", "mkdocs.yml", production=False)
    assert result is not None and [p for p in problems if p.severity.value == "error"] == []


def test_no_data_reaches_a_replacement_anywhere() -> None:
    """Every ``re.sub``/``.sub(`` in the generator takes a literal or a function, never a value:
    the only call with a variable replacement (``reader_ids``) now passes a function."""
    root = Path(__file__).resolve().parent.parent / "generator"
    calls = []
    for path in sorted(root.rglob("*.py")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if "re.sub(" in line and "lambda" not in line:
                calls.append(f"{path.relative_to(root)}:{n}: {line.strip()}")
    # literal replacements: a vendor name reduced to a CSS class; `export ` dropped from our own JS;
    # a catalog name reduced to an id slug (prices import)
    allowed = [
        're.sub("[^a-z0-9]", "", vendor.lower())',
        're.sub(r"^export ", "", body, flags=re.M)',
        're.sub(r"[^a-z0-9]+", "-", text.lower())',
    ]
    assert [c for c in calls if not any(a in c for a in allowed)] == [], calls
