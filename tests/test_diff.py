"""``gpu-guide diff --base REF``: the change report, on a throw-away git repository of the mini fixture.

The expected reports below are worked out by hand from tests/fixtures/mini and
data/rules.yaml (cost: 730 hours a month, disk ¥0.35/GB-month x 500 GB = ¥175,
egress ¥0.8/GB x 100 GB = ¥80, public IP ¥20 per instance-month); the comments
show the arithmetic. Only the list of generated files comes from the generator itself
(see CORE_FILES), because the page plan grows with the site.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import make_project, replace_in

from generator.cli.main import main
from generator.pipeline import Project, generate

L40S = """\
  - id: l40s-48g
    name: L40S 48GB
    vendor: NVIDIA
    architecture: Ada Lovelace
    form_factor: pcie
    compute_capability: 8.9
    release_year: 2023
    domestic: false
    memory_gb: 48
    memory_type: GDDR6
    memory_bandwidth_gbps: 864
    fp32_tflops: 91.6
    fp64_tflops: null
    fp16_tflops_dense: 362.05
    bf16_tflops_dense: 362.05
    fp8_tflops_dense: 733
    int8_tops_dense: 733
    tdp_w: 350
    interconnect: null
    interconnect_gbps: null
    pcie_gen: 4
    source: https://resources.nvidia.com/en-us-l40s/l40s-datasheet-28413
"""

L40S_OFFER = """\
  - id: c-l40s-hour
    provider: fixture-cloud
    gpu: l40s-48g
    cards: 1
    delivery: container
    billing: on_demand
    unit: hour
    price: 4
    currency: CNY
    as_of: 2026-07-01
    source: https://example.com/prices
    source_tier: provider_page
    quote: L40S 容器 ¥4/时
"""

H100_HOURLY = """\
  - id: c-h100-hour
    provider: fixture-cloud
    gpu: h100-sxm-80g
    cards: 1
    delivery: container
    billing: on_demand
    unit: hour
    price: 15
    currency: CNY
    as_of: 2026-06-01
    source: https://example.com/prices
    source_tier: provider_page
    quote: H100 容器 ¥15/时
"""


@pytest.fixture(autouse=True)
def _own_git_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The throw-away repositories must not see a surrounding git's variables (e.g. inside a hook)."""
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR"):
        monkeypatch.delenv(name, raising=False)


def git(root: Path, *args: str) -> str:
    """Run git in ``root``; every commit is dated the mini fixture's build date (2026-07-31), so the
    build date the command line reads from git never follows the clock."""
    noon = "2026-07-31T12:00:00+00:00"
    done = subprocess.run(
        ["git", "-c", "commit.gpgsign=false", "-C", str(root), *args],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "GIT_AUTHOR_DATE": noon, "GIT_COMMITTER_DATE": noon},
    )
    return done.stdout.strip()


def committed_project(tmp_path: Path) -> Path:
    """The mini fixture project, committed as the only commit of a fresh repository."""
    root = make_project(tmp_path)
    git(root, "init", "-q")
    git(root, "config", "user.name", "Fixture Editor")
    git(root, "config", "user.email", "editor@example.com")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "fixture")
    return root


def run_diff(root: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["--root", str(root), "diff", *args])
    out, err = capsys.readouterr()
    return code, out, err


def edit_everything(data: Path) -> None:
    """A price change, a new GPU with an offer, a removed offer, a spec fix and a bigger model."""
    replace_in(data / "offers.yaml", "    price: 2\n", "    price: 2.5\n")
    replace_in(data / "offers.yaml", H100_HOURLY, L40S_OFFER)
    (data / "gpus.yaml").write_text((data / "gpus.yaml").read_text(encoding="utf-8") + L40S, encoding="utf-8")
    replace_in(data / "gpus.yaml", "    tdp_w: 400\n", "    tdp_w: 500\n")
    replace_in(data / "scenarios.yaml", "    model: llama-2-7b\n", "    model: llama-2-13b\n")


# Prices, per card-month of 730 hours:
#   c-4090-hour  ¥2/hour   -> 2 x 730 = ¥1,460;  ¥2.5/hour -> 2.5 x 730 = ¥1,825;  +365/1,460 = +25.0%
#   c-l40s-hour  ¥4/hour   -> 4 x 730 = ¥2,920 (added)
#   c-h100-hour  ¥15/hour  -> 15 x 730 = ¥10,950 (removed)
# Ladder by dense BF16: H100 989.4, L40S 362.05, A100 312, RTX 4090 165.2, so the new L40S is
#   2nd and pushes the A100 from 2 to 3 and the RTX 4090 from 3 to 4.
# serve-7b, now Llama-2-13B in bf16 at 300 hours a month:
#   weights 13.02e9 x 2 B = 24.25 GiB > 24 x 0.96 = 23.04 GiB usable on an RTX 4090, so it needs
#   2 cards (was 1 for the 7B); 48 x 0.96 = 46.08 GiB on the L40S holds weights plus the
#   4 x 2048-token KV cache (2 x 40 layers x 5120 x 2 B x 8192 tokens = 6.25 GiB) on one card.
#   Inference is always a container. Old pick: RTX 4090 x1 at ¥2/hour: 2 x 300 + 175 + 80 + 20 = ¥875.
#   New: RTX 4090 x2 at ¥2.5/hour: 2.5 x 300 x 2 + 175 + 80 + 2 x 20 = ¥1,795 (the market's $0.50 = ¥3.50
#        an hour: 3.5 x 300 x 2 + 295 = ¥2,395; its $0.10 spot price never ranks);
#        L40S x1 at ¥4/hour: 4 x 300 + 175 + 80 + 20 = ¥1,475 -> the pick;
#        H100 lost its only container offer, the A100 never had one: both excluded.
# full-13b keeps H100 x4 on the 8-card bare-metal node; the L40S (PCIe only) is excluded there.
# The files section depends on the page plan (templates/pages and generator/pages.py), which grows
# with the site; the test takes it from an independent generate() of the two editions in plain
# folders (no git) and pins what this edit must do by hand: the new GPU gets its page, and every
# file of the fixture's core plan (below) changes, because the charts, gpus.json/csv and
# offers.csv/json carry every GPU or offer, and each of those pages shows the GPU count, the ladder,
# the offers or a scenario's options (the new L40S row, or serve-7b's new figures). The delivery
# page lists multi-card offers only, which this edit leaves alone.
CORE_FILES = [
    "assets/charts/ladder.svg", "assets/charts/memory-vs-bandwidth.svg", "assets/charts/price-vs-tflops.svg",
    "data/gpus.csv", "data/gpus.json", "data/offers.csv", "data/offers.json", "data/providers.json",
    "gpus/a100-sxm-80g.md", "gpus/h100-sxm-80g.md", "gpus/index.md", "gpus/rtx-4090-24g.md", "index.md", "ladder.md",
    "pitfalls.md", "providers/fixture-cloud.md", "providers/index.md", "scenarios/full-13b.md", "scenarios/index.md",
    "scenarios/serve-7b.md", "sources.md",
]  # fmt: skip
EXPECTED = """\
## Generated output: `HEAD` ({sha}) → working tree

**1 price changed, 1 offer added, 1 offer removed, 1 GPU added, 1 spec figure changed, 2 ladder ranks moved, \
1 scenario pick changed, 1 card count changed, {files_summary}**

### Prices

1 changed, 1 added, 0 expired (older than the freshness window, or replaced by a newer price), 1 removed; \
by provider and GPU, per card-month in yuan:

#### `fixture-cloud` · `h100-sxm-80g`

- `c-h100-hour` removed: ¥10,950 per card-month (¥15.00/hour, on_demand, 2026-06-01)

#### `fixture-cloud` · `l40s-48g`

- `c-l40s-hour` added: ¥2,920 per card-month (¥4.00/hour, on_demand, 2026-07-01)

#### `fixture-cloud` · `rtx-4090-24g`

| offer | per card-month | price | change |
| --- | --- | --- | --- |
| `c-4090-hour` | ¥1,460 → ¥1,825 | ¥2.00/hour → ¥2.50/hour | +25.0% |

### GPUs

GPUs added:

- `l40s-48g` L40S 48GB (ladder rank 2)

Spec changes:

| GPU | figure | old | new |
| --- | --- | --- | --- |
| `a100-sxm-80g` | `tdp_w` | 400 | 500 |

Ladder rank moves:

| GPU | old rank | new rank |
| --- | --- | --- |
| `a100-sxm-80g` | 2 | 3 |
| `rtx-4090-24g` | 3 | 4 |

### Scenarios

| scenario | pick | cards | delivery | monthly | job cost |
| --- | --- | --- | --- | --- | --- |
| `serve-7b` | `rtx-4090-24g` → `l40s-48g` | 1 | container | ¥875 → ¥1,475 | — |

Cards needed:

| scenario | GPU | old | new |
| --- | --- | --- | --- |
| `serve-7b` | `rtx-4090-24g` | 1 | 2 |

### Generated files

{files_section}
"""


def file_changes(tmp_path: Path, edit: Callable[[Path], None]) -> dict[str, list[str]]:
    """Files added, removed and changed by ``edit``, from two plain generate() runs (no git involved)."""
    old = generate(Project.at(make_project(tmp_path / "plain-old"))).files
    new = generate(Project.at(make_project(tmp_path / "plain-new", edit))).files
    return {
        "added": sorted(set(new) - set(old)),
        "removed": sorted(set(old) - set(new)),
        "changed": sorted(k for k in set(old) & set(new) if old[k] != new[k]),
    }


def files_summary(f: dict[str, list[str]]) -> str:
    added, changed = len(f["added"]), len(f["changed"])
    return (
        f"{added} page{'' if added == 1 else 's'} added, {len(f['removed'])} removed, "
        f"{changed} file{'' if changed == 1 else 's'} changed"
    )


def files_section(f: dict[str, list[str]]) -> str:
    def names(items: list[str]) -> str:
        return ", ".join(f"`{i}`" for i in items) if items else "none"

    return (
        f"- Added: {names(f['added'])}\n- Removed: {names(f['removed'])}\n"
        f"- Changed ({len(f['changed'])}): {names(f['changed'])}"
    )


def test_report_lists_every_change(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = committed_project(tmp_path)
    edit_everything(root / "data")
    files = file_changes(tmp_path, edit_everything)
    assert "gpus/l40s-48g.md" in files["added"]
    assert not [f for f in files["removed"] if f.startswith(("gpus/", "scenarios/"))]
    assert set(CORE_FILES) <= set(files["changed"])
    status_before = git(root, "status", "--porcelain")
    code, out, err = run_diff(root, capsys, "--base", "HEAD")
    assert (code, err) == (0, "")
    sha = git(root, "rev-parse", "HEAD")[:12]
    assert out == EXPECTED.format(sha=sha, files_summary=files_summary(files), files_section=files_section(files))
    # The working tree is read, never written: same status, no docs/ generated.
    assert git(root, "status", "--porcelain") == status_before
    assert sorted(p.name for p in (root / "docs").iterdir()) == ["about.md", "javascripts", "stylesheets"]


def test_json_has_the_same_content(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = committed_project(tmp_path)
    edit_everything(root / "data")
    code, out, err = run_diff(root, capsys, "--base", "HEAD", "--format", "json")
    assert (code, err) == (0, "")
    report = json.loads(out)
    assert out == json.dumps(report, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
    assert sorted(report) == [
        "base", "base_commit", "counts", "files", "gpus", "ladder", "notes", "prices", "scenarios", "summary",
        "unchanged",
    ]  # fmt: skip
    assert report["notes"] == []
    assert report["base"] == "HEAD"
    assert report["base_commit"] == git(root, "rev-parse", "HEAD")
    assert report["unchanged"] is False
    files = file_changes(tmp_path, edit_everything)
    assert report["summary"] == (
        "1 price changed, 1 offer added, 1 offer removed, 1 GPU added, 1 spec figure changed, "
        "2 ladder ranks moved, 1 scenario pick changed, 1 card count changed, " + files_summary(files)
    )
    [price] = report["prices"]["changed"]
    assert price["offer"] == "c-4090-hour"
    assert (price["old"]["card_month_cny"], price["new"]["card_month_cny"], price["change_pct"]) == (1460, 1825, 25.0)
    assert (price["old"]["price"], price["new"]["price"]) == ("¥2.00/hour", "¥2.50/hour")
    assert [o["offer"] for o in report["prices"]["added"]] == ["c-l40s-hour"]
    assert [o["offer"] for o in report["prices"]["removed"]] == ["c-h100-hour"]
    assert report["gpus"]["added"] == [{"gpu": "l40s-48g", "name": "L40S 48GB", "rank": 2}]
    assert report["gpus"]["specs"] == [{"gpu": "a100-sxm-80g", "field": "tdp_w", "old": 400, "new": 500}]
    assert report["ladder"] == [
        {"gpu": "a100-sxm-80g", "old": 2, "new": 3},
        {"gpu": "rtx-4090-24g", "old": 3, "new": 4},
    ]
    assert report["scenarios"]["changed"] == [
        {
            "scenario": "serve-7b",
            "pick_changed": True,
            "old": {
                "gpu": "rtx-4090-24g",
                "cards": 1,
                "delivery": "container",
                "monthly_cny": 875,
                "job_cost_cny": None,
            },
            "new": {"gpu": "l40s-48g", "cards": 1, "delivery": "container", "monthly_cny": 1475, "job_cost_cny": None},
        }
    ]
    assert report["scenarios"]["cards"] == [{"scenario": "serve-7b", "gpu": "rtx-4090-24g", "old": 1, "new": 2}]
    assert report["files"] == files
    assert report["counts"]["files_changed"] == len(files["changed"])
    assert report["counts"]["pages_added"] == len(files["added"])


def test_job_cost_and_removed_gpu(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A cheaper A100 node moves full-13b's monthly total and job cost by the same ratio."""
    root = committed_project(tmp_path)
    # The A100 node's ¥48,000 a month becomes ¥38,400. Four cards rent one 8-card node:
    # 48,000 + 175 + 80 + 20 = ¥48,275 a month -> 38,400 + 275 = ¥38,675.
    replace_in(root / "data" / "offers.yaml", "    price: 48000\n", "    price: 38400\n")
    replace_in(root / "data" / "offers.yaml", "A100 8 卡裸金属 48,000 元/月", "A100 8 卡裸金属 38,400 元/月")
    code, out, err = run_diff(root, capsys, "--base", "HEAD", "--format", "json")
    assert (code, err) == (0, "")
    report = json.loads(out)
    [price] = report["prices"]["changed"]
    # per card-month: 48,000 / 8 = 6,000 -> 38,400 / 8 = 4,800, i.e. -1,200 / 6,000 = -20.0%
    assert (price["old"]["card_month_cny"], price["new"]["card_month_cny"], price["change_pct"]) == (6000, 4800, -20.0)
    assert (price["old"]["price"], price["new"]["price"]) == ("¥48,000/month for 8 cards", "¥38,400/month for 8 cards")
    [scenario] = report["scenarios"]["changed"]
    old, new = scenario["old"], scenario["new"]
    assert (scenario["scenario"], scenario["pick_changed"]) == ("full-13b", False)
    assert (old["gpu"], old["cards"], old["delivery"], old["monthly_cny"]) == ("a100-sxm-80g", 4, "bare_metal", 48275)
    assert (new["gpu"], new["cards"], new["delivery"], new["monthly_cny"]) == ("a100-sxm-80g", 4, "bare_metal", 38675)
    # The node is sold by the month and the job takes less than one: the job pays one month's rent.
    assert (old["job_cost_cny"], new["job_cost_cny"]) == (48000, 38400)
    assert report["summary"].startswith("1 price changed, 1 scenario cost changed, ")
    assert report["files"]["added"] == report["files"]["removed"] == []

    # Removing a GPU (and its offers) the other way round: compare the edit with the base.
    git(root, "commit", "-q", "-am", "cheaper node")
    gpus = (root / "data" / "gpus.yaml").read_text(encoding="utf-8")
    start = gpus.index("  - id: rtx-4090-24g")
    (root / "data" / "gpus.yaml").write_text(
        gpus[:start] + gpus[gpus.index("  - id: a100-sxm-80g") :], encoding="utf-8"
    )
    offers = (root / "data" / "offers.yaml").read_text(encoding="utf-8")
    start = offers.index("  - id: c-4090-hour")
    (root / "data" / "offers.yaml").write_text(
        offers[:start] + offers[offers.index("  - id: bm-a100-8") :], encoding="utf-8"
    )
    replace_in(root / "data" / "pitfalls.yaml", "gpus: [rtx-4090-24g, a100-sxm-80g]", "gpus: [a100-sxm-80g]")
    replace_in(root / "data" / "scenarios.yaml", "gpu: rtx-4090-24g", "gpu: h100-sxm-80g")
    (root / "data" / "comparisons.yaml").write_text("comparisons: []\n", encoding="utf-8")  # its pair names the 4090
    # The editorial files name the removed GPU too; an editor points them at another one.
    for name in ("claims.yaml", "buyers.yaml", "ownership.yaml"):
        path = root / "data" / name
        path.write_text(path.read_text(encoding="utf-8").replace("rtx-4090-24g", "a100-sxm-80g"), encoding="utf-8")
    code, out, err = run_diff(root, capsys, "--base", "HEAD")
    assert (code, err) == (0, "")
    assert "GPUs removed:\n\n- `rtx-4090-24g` GeForce RTX 4090 24GB\n" in out
    # Its three offers, grouped by provider: $0.50 x 7.0 (June 1st's rate) x 730 = ¥2,555; $0.10 -> ¥511.
    assert (
        "#### `fixture-cloud` · `rtx-4090-24g`\n\n"
        "- `c-4090-hour` removed: ¥1,460 per card-month (¥2.00/hour, on_demand, 2026-07-01)\n\n"
        "#### `fixture-market` · `rtx-4090-24g`\n\n"
        "- `m-4090-usd` removed: ¥2,555 per card-month ($0.50/hour, on_demand, 2026-07-01)\n"
        "- `m-4090-spot` removed: ¥511 per card-month ($0.10/hour, spot, 2026-07-01)\n"
    ) in out
    # serve-7b: the H100 container at ¥15/hour: 15 x 300 + 175 + 80 + 20 = ¥4,775.
    assert "| `serve-7b` | `rtx-4090-24g` → `h100-sxm-80g` | 1 | container | ¥875 → ¥4,775 | — |\n" in out
    assert out.splitlines()[2].startswith("**3 offers removed, 1 GPU removed, 1 scenario pick changed, ")
    removed = next(line for line in out.splitlines() if line.startswith("- Removed: "))
    assert "`gpus/rtx-4090-24g.md`" in removed.removeprefix("- Removed: ").split(", ")


def test_no_change(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = committed_project(tmp_path)
    sha = git(root, "rev-parse", "HEAD")[:12]
    expected = (
        f"## Generated output: `HEAD` ({sha}) → working tree\n\n"
        "**0 pages added, 0 removed, 0 files changed**\n\n"
        "This data change alters no generated output.\n"
    )
    assert run_diff(root, capsys, "--base", "HEAD") == (0, expected, "")
    # A comment and a reordered key change the YAML, not the output.
    replace_in(root / "data" / "offers.yaml", "offers:\n", "offers:  # prices checked again\n")
    replace_in(
        root / "data" / "gpus.yaml",
        "    tdp_w: 450\n    interconnect: null\n",
        "    interconnect: null\n    tdp_w: 450\n",
    )
    assert run_diff(root, capsys, "--base", "HEAD") == (0, expected, "")
    code, out, err = run_diff(root, capsys, "--base", "HEAD", "--format", "json")
    report = json.loads(out)
    assert (code, err, report["unchanged"], report["summary"]) == (
        0,
        "",
        True,
        "0 pages added, 0 removed, 0 files changed",
    )
    assert report["files"] == {"added": [], "removed": [], "changed": []}


def test_unknown_ref(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = committed_project(tmp_path)
    assert run_diff(root, capsys, "--base", "no-such-branch") == (
        2,
        "",
        f"gpu-guide diff: unknown git ref 'no-such-branch': no commit of that name in {root.resolve()}\n",
    )
    # Something that looks like an option is a ref name git never sees.
    assert run_diff(root, capsys, "--base=--output=x") == (2, "", "gpu-guide diff: unknown git ref '--output=x'\n")
    assert not (root / "x").exists()


def test_not_a_repository(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_project(tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.resolve()))  # even if the temp folder sits in a repo
    code, out, err = run_diff(root, capsys, "--base", "HEAD")
    assert (code, out) == (2, "")
    assert err == f"gpu-guide diff: {root.resolve()} is not inside a git repository; diff compares with a git ref.\n"


def test_invalid_data_at_ref(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = committed_project(tmp_path)
    replace_in(root / "data" / "offers.yaml", "    price: 2\n", "    price: -2\n")
    git(root, "commit", "-q", "-am", "bad price")
    replace_in(root / "data" / "offers.yaml", "    price: -2\n", "    price: 2\n")  # fixed in the working tree
    assert run_diff(root, capsys, "--base", "HEAD") == (
        1,
        "",
        "HEAD:data/offers.yaml:9:12: offers[0].price: must be above 0, got -2\n"
        "gpu-guide diff: the data at HEAD has 1 problem(s) for this generator; nothing to compare.\n",
    )


def test_invalid_data_in_working_tree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = committed_project(tmp_path)
    replace_in(root / "data" / "offers.yaml", "    price: 2\n", "    price: -2\n")
    assert run_diff(root, capsys, "--base", "HEAD") == (
        1,
        "",
        "data/offers.yaml:9:12: offers[0].price: must be above 0, got -2\n"
        "gpu-guide diff: the data in the working tree has 1 problem(s) for this generator; nothing to compare.\n",
    )


def test_data_file_missing_at_ref(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = committed_project(tmp_path)
    git(root, "rm", "-q", "--cached", "data/pitfalls.yaml")
    git(root, "commit", "-q", "-m", "pitfalls not tracked")
    assert run_diff(root, capsys, "--base", "HEAD") == (
        1,
        "",
        "gpu-guide diff: HEAD lacks data/pitfalls.yaml; a build needs every data file, so there is nothing to compare.\n",
    )


def test_refs_templates_are_never_used(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Only REF's data is read: a template at REF that would run a command is never rendered,
    and REF without templates at all compares the same."""
    root = committed_project(tmp_path)
    marker = tmp_path / "ran"
    ladder = root / "templates" / "pages" / "ladder.md.j2"
    text = ladder.read_text(encoding="utf-8")
    ladder.write_text(
        text + "{{ cycler.__init__.__globals__.os.system('touch " + str(marker) + "') }}\n", encoding="utf-8"
    )
    git(root, "commit", "-q", "-am", "a hostile template on the base branch")
    ladder.write_text(text, encoding="utf-8")

    def unchanged() -> str:
        sha = git(root, "rev-parse", "HEAD")[:12]
        return (
            f"## Generated output: `HEAD` ({sha}) → working tree\n\n"
            "**0 pages added, 0 removed, 0 files changed**\n\n"
            "This data change alters no generated output.\n"
        )

    assert run_diff(root, capsys, "--base", "HEAD") == (0, unchanged(), "")
    assert not marker.exists()
    git(root, "rm", "-r", "-q", "--cached", "templates")
    git(root, "commit", "-q", "-m", "templates not tracked")
    assert run_diff(root, capsys, "--base", "HEAD") == (0, unchanged(), "")


def crafted_commit(root: Path, data_entries: Callable[[list[str]], list[str]]) -> str:
    """A commit like HEAD whose data/ tree lists ``data_entries(HEAD's entries)``, written with git's
    plumbing: entries no `git add` would make (names like '..', links to outside files)."""
    entries = git(root, "ls-tree", "HEAD:data").splitlines()
    data_tree = git_input(root, "\n".join(data_entries(entries)) + "\n", "mktree", "--missing")
    top = [e for e in git(root, "ls-tree", "HEAD").splitlines() if not e.endswith("\tdata")]
    top_tree = git_input(root, "\n".join([*top, f"040000 tree {data_tree}\tdata"]) + "\n", "mktree", "--missing")
    return git(root, "commit-tree", top_tree, "-p", "HEAD", "-m", "crafted")


def git_input(root: Path, stdin: str, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], input=stdin, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_crafted_tree_entries_write_nothing_outside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 10, attack 5: a tree entry data/../../../x was written outside the temporary folder.
    The ref's data/ here also holds '..' folders nesting an 'x'; REF's files are read by their
    fixed names only, so the comparison runs and nothing named x appears anywhere."""
    root = committed_project(tmp_path)
    blob = git_input(root, "pwned\n", "hash-object", "-w", "--stdin")
    inner = git_input(root, f"100644 blob {blob}\tx\n", "mktree")
    for _ in range(4):
        inner = git_input(root, f"040000 tree {inner}\t..\n", "mktree", "--missing")
    commit = crafted_commit(root, lambda entries: [*entries, f"040000 tree {inner}\t.."])
    deep = tmp_path / "t1" / "t2" / "t3" / "t4"
    deep.mkdir(parents=True)
    monkeypatch.setattr("tempfile.tempdir", str(deep))  # so '..' x 5 from the diff's folder stays in tmp_path
    code, out, err = run_diff(root, capsys, "--base", commit)
    assert (code, err) == (0, "")
    assert "**0 pages added, 0 removed, 0 files changed**" in out
    assert [p for p in tmp_path.rglob("x")] == []


def test_data_file_as_a_link_at_ref_is_not_followed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = committed_project(tmp_path)
    target = git_input(root, "../../../../../../etc/passwd", "hash-object", "-w", "--stdin")
    commit = crafted_commit(
        root,
        lambda entries: [e if not e.endswith("\tgpus.yaml") else f"120000 blob {target}\tgpus.yaml" for e in entries],
    )
    assert run_diff(root, capsys, "--base", commit) == (
        1,
        "",
        f"gpu-guide diff: {commit} lacks data/gpus.yaml; a build needs every data file, so there is nothing to "
        "compare.\n",
    )


# --------------------------------------------------------------------------- data text is never markup (issue 23)

#: (a GPU name, how the report writes it in a list item, and in a table cell). The expected
#: spans are written by hand from GitHub's rules: a code span shows its text as typed, its
#: fence is longer than any backtick run inside, and a table cell needs ``\|`` even in code.
NAME_PAYLOADS = [
    ("![x](https://evil.example/p.png)", "`![x](https://evil.example/p.png)`", "`![x](https://evil.example/p.png)`"),
    ("[click](https://evil.example/)", "`[click](https://evil.example/)`", "`[click](https://evil.example/)`"),
    ("<details open><summary>x</summary>", "`<details open><summary>x</summary>`",
     "`<details open><summary>x</summary>`"),
    ("@org/team please look", "`@org/team please look`", "`@org/team please look`"),
    ("x | y `z`", "`` x | y `z` ``", "`` x \\| y `z` ``"),
    ("**b** _i_ ~s~ :smile: $x$ www.evil.example", "`**b** _i_ ~s~ :smile: $x$ www.evil.example`",
     "`**b** _i_ ~s~ :smile: $x$ www.evil.example`"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "in_list", "in_cell"), NAME_PAYLOADS, ids=[p[0][:12] for p in NAME_PAYLOADS])
def test_data_text_in_the_report_is_never_markup(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, in_list: str, in_cell: str
) -> None:
    """The report is posted as the pull-request comment; on main a GPU name carrying an image,
    a link, ``<details open>`` or an ``@org/team`` mention went into it verbatim."""
    root = committed_project(tmp_path)
    gpus = root / "data" / "gpus.yaml"
    quoted = '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'
    gpus.write_text(gpus.read_text(encoding="utf-8") + L40S.replace("name: L40S 48GB", f"name: {quoted}"), "utf-8")
    replace_in(gpus, "name: A100 80GB SXM", f"name: {quoted}")
    code, out, err = run_diff(root, capsys, "--base", "HEAD")
    assert (code, err) == (0, "")
    assert f"\n- `l40s-48g` {in_list} (ladder rank 2)\n" in out
    assert f"\n| `a100-sxm-80g` | `name` | A100 80GB SXM | {in_cell} |\n" in out
    outside_code = re.sub(r"(`+).*?\1", "", out)
    for markup in ("<", "](", "![", "@", "www.", ":smile:", "~s~"):
        assert markup not in outside_code, markup
