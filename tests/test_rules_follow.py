"""Rules are data: edit data/rules.yaml in a temporary copy and every stage follows.

The mini fixture's serve-7b scenario keeps the default 500 GB data disk. At ¥0.35 per
GB-month that is ¥175 a month; at ¥3.50 it is ¥1,750, so the month costs exactly ¥1,575
more, on every option, wherever it is computed: the results, the scenario page, the
`recommend` command and the change report. A lower usable share of memory changes the
card counts `estimate` reports, and a lower MFU lengthens every training job.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import make_project, replace_in

from generator.cli.main import main
from generator.pipeline import Project, generate

DISK_OLD = "  disk_cny_per_gb_month: 0.35"
DISK_NEW = "  disk_cny_per_gb_month: 3.5"


def test_a_cost_rule_moves_results_pages_cli_and_diff(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_project(tmp_path)
    # The rule is the assumption for providers publishing no disk price: Fixture Cloud's own ¥0.35 goes.
    replace_in(
        root / "data" / "providers.yaml",
        """    extras:
      - item: disk
        price: 0.35
        currency: CNY
        unit: gb_month
        as_of: 2026-07-01
        source: https://example.com/prices
        quote: 云盘 0.35 元/GB/月
""",
        "",
    )
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "x"]):
        # dated the mini fixture's build date: the CLI's build date is the commit date of data/
        noon = {"GIT_AUTHOR_DATE": "2026-07-31T12:00:00+00:00", "GIT_COMMITTER_DATE": "2026-07-31T12:00:00+00:00"}
        subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env={**os.environ, **noon})
    before = generate(Project.at(root))
    replace_in(root / "data" / "rules.yaml", DISK_OLD, DISK_NEW)
    after = generate(Project.at(root))

    old, new = before.results.scenarios["serve-7b"].rec, after.results.scenarios["serve-7b"].rec
    assert old.pick and new.pick and old.pick.monthly and new.pick.monthly
    assert new.pick.monthly.total - old.pick.monthly.total == pytest.approx(1575)
    assert new.pick.monthly.disk == pytest.approx(1750)

    page = after.files["scenarios/serve-7b.md"].decode("utf-8")
    assert "| 数据盘（编辑假设） | ¥1,750 |" in page

    capsys.readouterr()
    argv = ["--root", str(root), "recommend", "--workload", "inference", "--model", "llama-2-7b", "--batch", "4",
            "--hours-per-month", "300", "--json"]  # fmt: skip
    assert main(argv) == 0
    cli = json.loads(capsys.readouterr().out)
    pick = next(o for o in cli["options"] if o["gpu"] == new.pick.gpu.id)
    assert pick["monthly_cost_cny"] == pytest.approx(round(new.pick.monthly.total, 2))

    assert main(["--root", str(root), "diff", "--base", "HEAD", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    [change] = [c for c in report["scenarios"]["changed"] if c["scenario"] == "serve-7b"]
    assert change["new"]["monthly_cny"] - change["old"]["monthly_cny"] == 1575


def test_a_memory_rule_moves_card_counts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_project(tmp_path)
    argv = ["--root", str(root), "estimate", "--workload", "inference", "--model", "llama-2-13b", "--gpu-memory-gb",
            "24", "--json"]  # fmt: skip
    capsys.readouterr()
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["min_gpus"] == 2
    # Half of each card usable: Llama-2-13B's 24.25 GiB of bf16 weights no longer fit on two 24 GB cards.
    replace_in(root / "data" / "rules.yaml", "usable_fraction: 0.96", "usable_fraction: 0.48")
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["min_gpus"] == 4


def test_a_speed_rule_moves_job_hours(tmp_path: Path) -> None:
    """Half the goodput, same cards: every training job takes exactly twice as long. The fixture's nodes
    are sold by the month and both jobs fit in one, so the rent stays one month's."""
    root = make_project(tmp_path)
    before = generate(Project.at(root)).results.scenarios["full-13b"].rec.pick
    rules = root / "data" / "rules.yaml"
    good = next(line for line in rules.read_text(encoding="utf-8").splitlines() if line.startswith("    goodput: "))
    replace_in(rules, good, f"    goodput: {float(good.split(':')[1].split('#')[0]) / 2}")
    after = generate(Project.at(root)).results.scenarios["full-13b"].rec.pick
    assert before is not None and after is not None and before.job_hours and after.job_hours
    assert (after.gpu.id, after.cards) == (before.gpu.id, before.cards)
    assert after.job_hours == pytest.approx(2 * before.job_hours)
    assert after.offer is not None and after.offer.billing.value == "monthly" and after.job_hours < 730
    assert after.job_cost_cny == pytest.approx(before.job_cost_cny)
