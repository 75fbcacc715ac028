"""``gpu-guide prices import FILE --source opencomputeprices``: a CSV in OpenComputePrices' layout into
data/offers.yaml's import block.

The file is ``tests/fixtures/opencomputeprices/master.csv``, built by hand to the layout of OpenComputePrices'
``schema.py`` (its README says how and that it is not a recorded file). Expected values are read off the
fixture's rows by hand.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from conftest import REPO, bundled_data_copy, imported_offers

from generator.cli.main import main

FIXTURE = REPO / "tests" / "fixtures" / "opencomputeprices" / "master.csv"
URL = "https://github.com/thatkavish/OpenComputePrices/releases/download/latest-data/data.tar.gz"
PREFIX = "ocp-lambda-"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the bundled data (the import validates against all of it)."""
    return bundled_data_copy(tmp_path)


def run(root: Path, catalog: Path, *extra: str, as_of: str = "2026-11-30", provider: str = "lambda") -> int:
    return main(["--root", str(root), "prices", "import", str(catalog), "--source", "opencomputeprices",
                 "--provider", provider, "--as-of", as_of, "--url", URL, *extra])  # fmt: skip


def imported(root: Path) -> dict[str, dict[str, object]]:
    return imported_offers(root, "ocp-")


def test_lambdas_rows_of_the_day_become_offers(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = (project / "data" / "offers.yaml").read_text(encoding="utf-8")
    assert run(project, FIXTURE) == 0
    after = (project / "data" / "offers.yaml").read_text(encoding="utf-8")
    assert after.startswith(before), "every hand-edited byte stays; the block is appended after them"
    got = imported(project)
    # By hand from the fixture: 8 rows; the RunPod row is another provider, the 2026-11-29 row another day,
    # us-west-1 is outside `locations`, the 00:00 H100 SXM row is the earlier snapshot of the 12:00 one:
    # four offers remain.
    assert sorted(got) == [
        PREFIX + "gpu-1x-a100-sxm4-us-east-1-20261130",
        PREFIX + "gpu-1x-h100-pcie-us-east-1-20261130",
        PREFIX + "gpu-8x-b200-us-east-1-20261130",
        PREFIX + "gpu-8x-h100-sxm5-us-east-1-20261130",
    ]
    sxm = got[PREFIX + "gpu-8x-h100-sxm5-us-east-1-20261130"]
    assert (sxm["provider"], sxm["gpu"], sxm["cards"], sxm["price"], sxm["currency"]) == (
        "lambda", "h100-sxm-80g", 8, 31.92, "USD",
    )  # fmt: skip
    assert (sxm["vcpu"], sxm["ram_gb"], sxm["region"], sxm["billing"], sxm["delivery"]) == (
        208, 1800, "us-east-1", "on_demand", "vm",
    )  # fmt: skip
    assert sxm["source_tier"] == "aggregator" and sxm["as_of"] == dt.date(2026, 11, 30) and sxm["source"] == URL
    assert "disk_gb" not in sxm  # the layout has only a storage description
    assert str(sxm["quote"]).startswith("2026-11-30,2026-11-30T12:00:00Z,lambda,lambda,gpu_8x_h100_sxm5,")
    # the variant column decides SXM; an empty one is the lower-spec variant, marked
    pcie = got[PREFIX + "gpu-1x-h100-pcie-us-east-1-20261130"]
    assert (pcie["gpu"], pcie.get("variant_unstated")) == ("h100-pcie-80g", True)
    assert got[PREFIX + "gpu-1x-a100-sxm4-us-east-1-20261130"]["gpu"] == "a100-sxm-40g"
    assert got[PREFIX + "gpu-8x-b200-us-east-1-20261130"]["gpu"] == "b200-sxm-180g"  # written as 192 GB
    out = capsys.readouterr().out
    assert "## opencomputeprices import: lambda catalog of 2026-11-30" in out
    assert "4 GPU rows imported: 4 new" in out
    for why in ("1 rows of other providers", "1 rows of other snapshot dates (only 2026-11-30)",
                "1 locations not imported (us-east-1 only)", "1 rows of an earlier snapshot the same day"):  # fmt: skip
        assert why in out


def test_the_same_file_twice_changes_nothing(project: Path) -> None:
    assert run(project, FIXTURE) == 0
    once = (project / "data" / "offers.yaml").read_text(encoding="utf-8")
    assert run(project, FIXTURE) == 0
    assert (project / "data" / "offers.yaml").read_text(encoding="utf-8") == once


HEADER = FIXTURE.read_text(encoding="utf-8").splitlines()[0]
SXM = FIXTURE.read_text(encoding="utf-8").splitlines()[2]  # the 12:00 gpu_8x_h100_sxm5 row


def edited(tmp_path: Path, *rows: str) -> Path:
    path = tmp_path / "edited.csv"
    path.write_text("\n".join([HEADER, *rows]) + "\n", encoding="utf-8")
    return path


def test_windows_reserved_and_other_variants_are_left_out_or_refused(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    windows = SXM.replace(",True,,,,,", ",True,,Windows,,,")
    reserved = SXM.replace(",on_demand,,", ",reserved,1yr,")
    assert run(project, edited(tmp_path, windows, reserved)) == 0
    out = capsys.readouterr().out
    assert "0 GPU rows imported" in out
    assert "1 Windows rates (Linux only)" in out and "1 reserved prices (only on_demand and spot)" in out
    # an H100 written as NVL with 80 GB matches no rule (NVL is 94 GB; the unstated rule needs an empty
    # variant): refused at its line and column (gpu_name is the 7th column)
    nvl = SXM.replace(",H100,SXM,80,", ",H100,NVL,80,")
    assert run(project, edited(tmp_path, nvl)) == 1
    assert 'edited.csv:2:7: gpu_name: unknown GPU "H100" (variant NVL) with 80 GB' in capsys.readouterr().err


def test_a_spot_row_and_a_bad_price(project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spot = SXM.replace(",on_demand,,31.92,", ",spot,,12.5,")
    assert run(project, edited(tmp_path, spot)) == 0
    got = imported(project)
    assert list(got) == [PREFIX + "gpu-8x-h100-sxm5-us-east-1-spot-20261130"]
    assert got[PREFIX + "gpu-8x-h100-sxm5-us-east-1-spot-20261130"]["billing"] == "spot"
    bad = SXM.replace(",on_demand,,31.92,", ",on_demand,,abc,")
    capsys.readouterr()
    assert run(project, edited(tmp_path, bad)) == 1
    assert "edited.csv:2:22: price_per_hour: expected a number, got 'abc'" in capsys.readouterr().err


def test_provider_is_required(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--root", str(project), "prices", "import", str(FIXTURE), "--source", "opencomputeprices",
                 "--as-of", "2026-11-30", "--url", URL])  # fmt: skip
    assert code == 2
    assert "--provider is required with --source opencomputeprices" in capsys.readouterr().err
