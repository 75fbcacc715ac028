"""``gpu-guide edition``: a data update recorded in data/editions.yaml and shown on 本期变化."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import replace_in
from test_diff import _own_git_environment, committed_project, git  # noqa: F401  (autouse fixture)

from generator.cli.main import main
from generator.pipeline import Project, generate


def test_edition_appends_the_change_in_chinese(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = committed_project(tmp_path)
    replace_in(root / "data" / "offers.yaml", "    price: 2\n", "    price: 2.5\n")
    assert main(["--root", str(root), "edition", "--base", "HEAD", "--date", "2026-08-01", "--title", "8 月报价"]) == 0
    text = (root / "data" / "editions.yaml").read_text(encoding="utf-8")
    head = text.split("editions:\n", 1)[0]
    assert head.startswith("# yaml-language-server: $schema=schemas/editions.schema.json\n")
    entry = text.split("editions:\n", 1)[1]
    # ¥2/hour x 730 h = ¥1,460 -> ¥2.5/hour x 730 h = ¥1,825, +25.0%; the 4090 stays the serve-7b pick
    # at 300 h: 2.5 x 300 + 175 + 80 + 20 = ¥1,025 (was ¥875).
    assert entry.startswith('  - date: 2026-08-01\n    title: "8 月报价"\n    base: "')
    assert entry.endswith(
        "    changes:\n"
        '      - "Fixture Cloud GeForce RTX 4090 24GB 报价 c-4090-hour：每卡每月 ¥1,460 → ¥1,825（+25.0%）"\n'
        '      - "场景 serve-7b 月成本：¥875 → ¥1,025"\n'
    )
    capsys.readouterr()
    gen = generate(Project.at(root))
    assert [e.title for e in gen.catalogue.editions] == ["8 月报价"]
    page = gen.files["editions.md"].decode("utf-8")
    assert "## 2026-08-01 8 月报价" in page
    assert "\n- Fixture Cloud GeForce RTX 4090 24GB 报价 c-4090-hour：每卡每月 ¥1,460 → ¥1,825（+25.0%）\n" in page


def test_no_change_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = committed_project(tmp_path)
    assert main(["--root", str(root), "edition", "--base", "HEAD"]) == 1
    assert "nothing changed since HEAD; no edition written." in capsys.readouterr().err
    assert not (root / "data" / "editions.yaml").exists()


def test_bad_date_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = committed_project(tmp_path)
    assert main(["--root", str(root), "edition", "--base", "HEAD", "--date", "2026-13-01"]) == 2
    assert "expected a date YYYY-MM-DD, got '2026-13-01'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("title", "what"),
    [("8 月\x07报价", "control character U+0007"), ("8 月\x7f", "control character U+007F"),
     ("¥\u202e0848", "direction control U+202E"), ("\x85", "control character U+0085")],
)  # fmt: skip
def test_title_with_invisible_characters_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], title: str, what: str
) -> None:
    """Issue 10: --title wrote control characters that the data loader then refused."""
    root = committed_project(tmp_path)
    replace_in(root / "data" / "offers.yaml", "    price: 2\n", "    price: 2.5\n")
    assert main(["--root", str(root), "edition", "--base", "HEAD", "--title", title]) == 2
    assert capsys.readouterr() == ("", f"gpu-guide edition: --title contains the invisible {what}; remove it\n")
    assert not (root / "data" / "editions.yaml").exists()


def test_title_with_a_line_break_round_trips(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """What edition writes, its own loader reads back: a newline is allowed (pages fold it)."""
    root = committed_project(tmp_path)
    replace_in(root / "data" / "offers.yaml", "    price: 2\n", "    price: 2.5\n")
    assert main(["--root", str(root), "edition", "--base", "HEAD", "--title", "8 月\n报价\t更新"]) == 0
    capsys.readouterr()
    assert [e.title for e in generate(Project.at(root)).catalogue.editions] == ["8 月\n报价\t更新"]


def test_editions_file_as_a_link_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = committed_project(tmp_path)
    outside = tmp_path / "outside.yaml"
    outside.write_text("precious\n")
    (root / "data" / "editions.yaml").symlink_to(outside)
    replace_in(root / "data" / "offers.yaml", "    price: 2\n", "    price: 2.5\n")
    # the loader reads the linked file as data: make it valid so the comparison runs
    outside.write_text("editions: []\n")
    assert main(["--root", str(root), "edition", "--base", "HEAD"]) == 1
    assert capsys.readouterr() == (
        "",
        "data/editions.yaml is a symbolic link; edition never writes through links: replace it with the real file\n"
        "Aborted: nothing was written.\n",
    )
    assert outside.read_text() == "editions: []\n"


def test_edition_waits_for_the_write_lock(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from test_security import hold_lock

    root = committed_project(tmp_path)
    replace_in(root / "data" / "offers.yaml", "    price: 2\n", "    price: 2.5\n")
    monkeypatch.setenv("GPU_GUIDE_LOCK_WAIT", "0.3")
    holder = hold_lock(root)
    try:
        assert main(["--root", str(root), "edition", "--base", "HEAD"]) == 1
        err = capsys.readouterr().err
        assert err.endswith(
            f"gave up after waiting 0.3 s: gpu-guide process {holder.pid} is writing docs/ and site/ in {root.resolve()}; "
            "try again when it has finished\nAborted: nothing was written.\n"
        )
        assert not (root / "data" / "editions.yaml").exists()
    finally:
        holder.kill()
        holder.wait()


# --------------------------------------------------------------------------- never a file the next build refuses (issue 23)

ENTRY_START = '  - date: 2026-08-01\n    title: "8 月报价"\n'
EDITION = ["edition", "--base", "HEAD", "--date", "2026-08-01", "--title", "8 月报价"]


def test_a_file_without_a_final_line_break_gets_the_entry_on_its_own_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """On main the entry was glued onto the last line (``…更新"  - date: …``) and the next build failed."""
    root = committed_project(tmp_path)
    existing = 'editions:\n  - date: 2026-07-01\n    title: "7 月"\n    changes:\n      - "首期"'
    (root / "data" / "editions.yaml").write_text(existing, encoding="utf-8")
    replace_in(root / "data" / "offers.yaml", "    price: 2\n", "    price: 2.5\n")
    assert main(["--root", str(root), *EDITION]) == 0
    text = (root / "data" / "editions.yaml").read_text(encoding="utf-8")
    assert text.startswith(existing + "\n" + ENTRY_START)
    capsys.readouterr()
    assert [e.title for e in generate(Project.at(root)).catalogue.editions] == ["7 月", "8 月报价"]


@pytest.mark.parametrize(
    "existing",
    [
        "editions: []\n",
        'editions: [{date: 2026-07-01, title: "7 月", changes: ["首期"]}]\n',
        "editions:\n- date: 2026-07-01\n  title: 7 月\n  changes: [首期]\n",  # block style, other indent
    ],
    ids=["empty-flow", "flow", "other-indent"],
)
def test_a_file_the_entry_cannot_join_is_refused_and_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], existing: str
) -> None:
    """On main these got "Appended" and exit 0, and the next build refused the file."""
    root = committed_project(tmp_path)
    (root / "data" / "editions.yaml").write_text(existing, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "editions")
    replace_in(root / "data" / "offers.yaml", "    price: 2\n", "    price: 2.5\n")
    assert main(["--root", str(root), *EDITION]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("data/editions.yaml:")
    assert err.endswith(
        "gpu-guide edition: refused: appending the entry would leave data/editions.yaml as above, which the next "
        "build would refuse; data/editions.yaml is unchanged. Write it in block style (`editions:` then one "
        "`  - date:` item per edition), fix what is listed, and run edition again.\n"
    )
    assert (root / "data" / "editions.yaml").read_text(encoding="utf-8") == existing


def test_a_title_the_next_build_refuses_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A 201-character title passed the character check; the next build refused it (at most 200)."""
    root = committed_project(tmp_path)
    replace_in(root / "data" / "offers.yaml", "    price: 2\n", "    price: 2.5\n")
    assert main(["--root", str(root), "edition", "--base", "HEAD", "--title", "长" * 201]) == 2
    assert capsys.readouterr() == (
        "",
        "gpu-guide edition: the entry would not validate, so nothing was written: title: String should have at "
        "most 200 characters\n",
    )
    assert not (root / "data" / "editions.yaml").exists()
