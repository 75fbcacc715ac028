"""``gpu-guide serve`` keeps what it computed between edits (generator.pipeline.Warm): a parse per data
file, the engine's sizings, the calibration run and each page's render, each reused only while its
inputs are unchanged. Issue 21: a one-price edit re-did all of it. The warm result must be the cold
one, byte for byte: after each edit below, the docs/ that serve's regeneration writes equals the
docs/ a fresh ``gpu-guide build`` writes from the same inputs in another copy of the project.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import replace_in

from generator.pipeline import Project, Warm, build


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def fresh_docs(root: Path, tmp: Path) -> dict[str, bytes]:
    """docs/ of a cold ``build --no-site`` of a copy of ``root``'s inputs (its docs/ as hand-written)."""
    copy = tmp / "fresh"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(root, copy, symlinks=True)
    build(Project.at(copy), site=False)
    return tree(copy / "docs")


#: Edits an editor saves while the preview runs, each reaching a different memo: a price (offers.yaml,
#: re-parsed; its plans and pages again), an exchange rate (the pricing: every kept plan is stale), a GPU's bandwidth (gpus.yaml: the sizings and the calibration
#: run are stale), a rule (every sizing), a template (every render), and the first price back.
EDITS: list[tuple[str, str, str]] = [
    ("data/offers.yaml", "    price: 48000\n", "    price: 48600\n"),
    ("data/fx.yaml", "    cny_per_unit: 7.0\n", "    cny_per_unit: 7.1\n"),
    ("data/gpus.yaml", "    memory_bandwidth_gbps: 2039\n", "    memory_bandwidth_gbps: 1555\n"),
    ("data/rules.yaml", "hours_per_month: 730", "hours_per_month: 720"),
    ("templates/pages/gpu.md.j2", "# {{ page_title | md }}\n", "# {{ page_title | md }}（预览）\n"),
    ("data/offers.yaml", "    price: 48600\n", "    price: 48000\n"),
]


def test_each_warm_regeneration_writes_what_a_fresh_build_writes(mini: Path, tmp_path: Path) -> None:
    project = Project.at(mini)
    warm = Warm()
    build(project, site=False, warm=warm)  # serve's first regeneration
    assert tree(mini / "docs") == fresh_docs(mini, tmp_path)
    for path, old, new in EDITS:
        before = tree(mini / "docs")
        replace_in(mini / path, old, new)
        build(project, site=False, warm=warm)  # what serve runs when it sees the edit
        after = tree(mini / "docs")
        assert after != before, f"the edit of {path} changed no page; the test would prove nothing"
        assert after == fresh_docs(mini, tmp_path), f"after editing {path}"
