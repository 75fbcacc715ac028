"""Atomic writes into docs/: hand-written files are safe, stale generated files go."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.pages.render import MARKER
from generator.publish import ownership, swap


def marked(text: str) -> bytes:
    return f"---\n# {MARKER}\n---\n{text}\n".encode()


def write(docs: Path, files: dict[str, bytes]) -> None:
    stage = swap.stage_docs(docs, files)
    swap.swap_in(stage, docs)
    import shutil

    shutil.rmtree(stage)


def test_first_write_then_update_and_stale_removal(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "hand.md").write_text("mine")
    write(docs, {"a.md": marked("one"), "sub/b.md": marked("two")})
    assert (docs / "a.md").read_bytes() == marked("one")
    assert ownership.read_manifest(docs) == {"a.md", "sub/b.md"}
    write(docs, {"a.md": marked("uno")})
    assert (docs / "a.md").read_bytes() == marked("uno")
    assert not (docs / "sub").exists()  # stale generated file and its empty folder removed
    assert (docs / "hand.md").read_text() == "mine"


def test_hand_written_file_in_the_way_is_a_conflict_and_nothing_changes(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ladder.md").write_text("hand-written ladder")
    with pytest.raises(FileExistsError, match=r"docs/ladder.md:1:1: is hand-written"):
        swap.stage_docs(docs, {"ladder.md": marked("generated")})
    assert (docs / "ladder.md").read_text() == "hand-written ladder"
    assert list(tmp_path.iterdir()) == [docs]  # no staging folder left behind


def test_plan_reports_changes_and_stale(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    write(docs, {"a.md": marked("1"), "b.md": marked("2")})
    changed, stale, conflicts = ownership.plan(docs, {"a.md": marked("1"), "c.md": marked("3")})
    assert (changed, stale, conflicts) == (["c.md"], ["b.md"], [])


def test_swap_exchanges_atomically(tmp_path: Path) -> None:
    new, target = tmp_path / "new", tmp_path / "target"
    new.mkdir()
    target.mkdir()
    (new / "x").write_text("new")
    (target / "x").write_text("old")
    swap.swap_in(new, target)
    assert (target / "x").read_text() == "new"
    assert (new / "x").read_text() == "old"


def test_recover_restores_an_interrupted_fallback_swap(tmp_path: Path) -> None:
    target = tmp_path / "docs"
    old = tmp_path / ".docs-old"
    old.mkdir()
    (old / "x").write_text("kept")
    swap.recover(target)  # killed after the first rename: docs/ missing, .docs-old present
    assert (target / "x").read_text() == "kept"
