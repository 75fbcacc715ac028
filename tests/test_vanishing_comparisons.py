"""``check`` warns when a published comparison page would vanish without a redirect (#17): a page the
last build's manifest (docs/.generated.json) lists, which the data no longer makes and comparisons.yaml
does not retire."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import make_project, replace_in

from generator.cli.main import main

_GONE = "h100-sxm-80g-vs-l40s"


def _built(tmp_path: Path) -> Path:
    """The mini site as the previous build left it when the catalogue also had an L40S: its manifest
    lists that build's H100-vs-L40S page (written here, with the page), which this data no longer makes."""
    root = make_project(tmp_path)
    assert main(["--root", str(root), "build", "--no-site"]) == 0
    manifest = root / "docs" / ".generated.json"
    listed = json.loads(manifest.read_text(encoding="utf-8"))
    listed["files"] = sorted([*listed["files"], f"compare/{_GONE}.md"])
    manifest.write_text(json.dumps(listed, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    (root / "docs" / "compare" / f"{_GONE}.md").write_text("# H100 vs L40S\n", encoding="utf-8")
    return root


def test_a_published_comparison_dropped_without_a_retired_entry_is_warned_at_the_retired_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The mini fixture's comparisons.yaml has ``retired:`` at line 5: the warning names the file, that
    line and the field, and the slug to add."""
    root = _built(tmp_path)
    main(["--root", str(root), "check"])
    err = capsys.readouterr().err
    line = next(x for x in err.splitlines() if _GONE in x and "vanish" in x)
    assert line.startswith("data/comparisons.yaml:5:1: retired: ")
    assert f"compare/{_GONE}/ was published (docs/.generated.json lists it)" in line
    assert f"add {_GONE} to retired:" in line and "line 1" not in line


def test_retiring_the_slug_silences_the_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _built(tmp_path)
    replace_in(root / "data" / "comparisons.yaml", "retired:\n", f"retired:\n  - {_GONE}\n", 1)
    main(["--root", str(root), "check"])
    assert "vanish" not in capsys.readouterr().err


def test_without_a_retired_key_the_warning_is_at_line_1_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _built(tmp_path)
    text = (root / "data" / "comparisons.yaml").read_text(encoding="utf-8")
    (root / "data" / "comparisons.yaml").write_text(text.split("retired:")[0], "utf-8")
    main(["--root", str(root), "check"])
    line = next(x for x in capsys.readouterr().err.splitlines() if _GONE in x and "vanish" in x)
    assert line.startswith("data/comparisons.yaml:1:1: retired: ")
    assert "the file has no retired: list (line 1 stands for it)" in line
