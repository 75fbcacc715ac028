"""``gpu-guide prices import``: a gpuhunt catalog into data/offers.yaml's import block.

The catalogs are ``tests/fixtures/gpuhunt/lambdalabs.csv``, built to gpuhunt's current column layout (its
README says how and that it is not a recorded catalog), and ``recorded/aws.csv``, rows copied verbatim from
dstack's recorded AWS catalog of 2023-08-16 in gpuhunt's first layout. Expected values are read off the
fixtures' rows by hand.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
import yaml
from conftest import REPO, bundled_data_copy, imported_offers

from generator.cli.main import main
from generator.data.import_map import load_import_map, map_path
from generator.data.validate import load_catalogue

FIXTURE = REPO / "tests" / "fixtures" / "gpuhunt" / "lambdalabs.csv"
URL = "https://dstack-gpu-pricing.s3.eu-west-1.amazonaws.com/v3/lambdalabs/20261130-1/catalog.zip"
PREFIX = "gpuhunt-lambdalabs-"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the bundled data (the import validates against all of it)."""
    return bundled_data_copy(tmp_path)


def run(root: Path, catalog: Path, as_of: str = "2026-11-30", *extra: str) -> int:
    return main(["--root", str(root), "prices", "import", str(catalog), "--as-of", as_of, "--url", URL, *extra])


def imported(root: Path) -> dict[str, dict[str, object]]:
    return imported_offers(root, "gpuhunt-")


def catalog(tmp_path: Path, text: str, name: str = "lambdalabs.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


HEADER = "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot,disk_size\n"


def test_happy_path_writes_the_block_and_leaves_hand_edited_offers_alone(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = (project / "data" / "offers.yaml").read_text(encoding="utf-8")
    assert run(project, FIXTURE) == 0
    after = (project / "data" / "offers.yaml").read_text(encoding="utf-8")
    assert after.startswith(before), "every hand-edited byte stays; the block is appended after them"
    got = imported(project)
    # By hand from the fixture: 7 rows; us-west-1 is outside `locations`, GH200 is a listed skip, the
    # CPU row has no GPU, so four offers remain, ids = prefix + instance + location + the catalog's date.
    assert sorted(got) == [
        PREFIX + "gpu-1x-a100-sxm4-us-east-1-20261130",
        PREFIX + "gpu-1x-h100-pcie-us-east-1-20261130",
        PREFIX + "gpu-8x-b200-sxm6-us-east-1-20261130",
        PREFIX + "gpu-8x-h100-sxm5-us-east-1-20261130",
    ]
    sxm = got[PREFIX + "gpu-8x-h100-sxm5-us-east-1-20261130"]
    assert (sxm["provider"], sxm["gpu"], sxm["cards"], sxm["price"], sxm["currency"]) == (
        "lambda", "h100-sxm-80g", 8, 31.92, "USD",
    )  # fmt: skip
    assert (sxm["vcpu"], sxm["ram_gb"], sxm["disk_gb"], sxm["region"]) == (208, 1933.2, 26395.66, "us-east-1")
    assert (sxm["billing"], sxm["unit"], sxm["delivery"], sxm["source_tier"]) == (
        "on_demand",
        "hour",
        "vm",
        "aggregator",
    )
    assert sxm["as_of"] == dt.date(2026, 11, 30) and sxm["source"] == URL
    assert sxm["quote"] == "gpu_8x_h100_sxm5,us-east-1,31.92,208,1933.2,8,H100,80.0,False,26395.66,nvidia,,x86,{}"
    assert got[PREFIX + "gpu-1x-h100-pcie-us-east-1-20261130"]["gpu"] == "h100-pcie-80g"  # "pcie" in the name
    out = capsys.readouterr().out
    assert "4 new" in out and "1 GH200 96 GB" in out and "1 rows without a GPU" in out
    cat, problems = load_catalogue(project / "data", build_date=dt.date(2026, 12, 2))
    assert cat is not None, problems
    assert {o.id for o in cat.current_offers} >= set(got)


def test_reimporting_the_same_catalog_changes_nothing(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(project, FIXTURE) == 0
    first = (project / "data" / "offers.yaml").read_bytes()
    capsys.readouterr()
    assert run(project, FIXTURE) == 0
    assert (project / "data" / "offers.yaml").read_bytes() == first
    assert "Nothing to change." in capsys.readouterr().out


def test_a_new_price_is_a_new_offer_that_replaces_the_old_one(project: Path, tmp_path: Path) -> None:
    assert run(project, FIXTURE) == 0
    cheaper = catalog(tmp_path, FIXTURE.read_text(encoding="utf-8").replace(
        "gpu_1x_h100_pcie,us-east-1,3.29", "gpu_1x_h100_pcie,us-east-1,2.99"))  # fmt: skip
    assert run(project, cheaper, "2026-12-01") == 0
    got = imported(project)
    old, new = PREFIX + "gpu-1x-h100-pcie-us-east-1-20261130", PREFIX + "gpu-1x-h100-pcie-us-east-1-20261201"
    assert got[old]["price"] == 3.29 and got[old]["as_of"] == dt.date(2026, 11, 30), "history is kept as it was"
    assert got[new]["price"] == 2.99 and got[new]["replaces"] == old
    # an unchanged price is the same offer, its date moved to the newer catalog's
    assert got[PREFIX + "gpu-1x-a100-sxm4-us-east-1-20261130"]["as_of"] == dt.date(2026, 12, 1)
    cat, problems = load_catalogue(project / "data", build_date=dt.date(2026, 12, 2))
    assert cat is not None, problems
    assert old in {o.id for o in cat.history_offers} and new in {o.id for o in cat.current_offers}


def test_a_bad_row_is_refused_at_its_line_and_nothing_is_written(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = (project / "data" / "offers.yaml").read_bytes()
    bad = catalog(tmp_path, HEADER + "gpu_1x_a10,us-east-1,1.29,30,214.8,1,A10,24.0,False,\n"
                  "gpu_1x_h100_pcie,us-east-1,abc,26,241.65,1,H100,80.0,False,\n")  # fmt: skip
    assert run(project, bad) == 1
    err = capsys.readouterr().err
    assert f"{bad.name}:3:3: price: expected a number, got 'abc'" in err
    assert "nothing was written" in err and "Traceback" not in err
    assert (project / "data" / "offers.yaml").read_bytes() == before


def test_an_unknown_gpu_name_is_refused_with_file_and_line(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = catalog(tmp_path, HEADER + "gpu_1x_x100,us-east-1,2.50,26,241.65,1,X100,80.0,False,\n")
    assert run(project, bad) == 1
    assert f'{bad.name}:2:7: gpu_name: unknown GPU "X100" with 80 GB' in capsys.readouterr().err


def test_the_offer_record_refuses_an_imported_row_at_its_catalog_line(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 99 cards per instance: the Offer record allows at most 64 (records.Offer.cards)
    bad = catalog(tmp_path, HEADER + "gpu_99x_h100,us-east-1,2.50,26,241.65,99,H100,80.0,False,\n")
    assert run(project, bad) == 1
    err = capsys.readouterr().err
    assert f"{bad.name}:2:1: offers[" in err and ".cards: must be at most 64, got 99" in err


def test_the_cross_checks_run_on_imported_offers(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Together AI sells H100 SXM only as 8-card nodes (providers.yaml node_only): a 1-card row is refused
    imap = map_path(project / "data", "gpuhunt")
    imap.write_text(imap.read_text(encoding="utf-8").replace(
        "providers:\n", "providers:\n  - {catalog: together, provider: together, delivery: vm}\n", 1), encoding="utf-8")  # fmt: skip
    bad = catalog(tmp_path, HEADER + "h100_sxm_1x,us,2.50,26,241.65,1,H100,80.0,False,\n", "together.csv")
    assert run(project, bad) == 1
    err = capsys.readouterr().err
    assert f"{bad.name}:2:1: offers[" in err and "together" in err.lower()


def test_a_one_card_p4d_row_is_refused_as_aws_sells_p4d_only_as_8_card_nodes(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The recorded p4d row with gpu_count 1 (a shape AWS does not sell: providers.yaml node_only, 8 cards,
    from AWS's P4d blog) is refused at its catalog line; nothing is written."""
    lines = RECORDED.read_text(encoding="utf-8").splitlines()
    one = lines[9].replace(",8,A100,", ",1,A100,")
    assert one == "p4d.24xlarge,us-east-1,32.7726,96,1152.0,1,A100,40.0,False"
    path = catalog(tmp_path, "\n".join([lines[0], one]) + "\n", name="aws.csv")
    before = (project / "data" / "offers.yaml").read_text(encoding="utf-8")
    code = main(["--root", str(project), "prices", "import", str(path), "--as-of", "2023-08-16",
                 "--url", RECORDED_URL])  # fmt: skip
    assert code == 1
    err = capsys.readouterr().err
    assert "aws.csv:2:1: offers[" in err and "rents a100-sxm-40g only as 8-card nodes" in err
    assert (project / "data" / "offers.yaml").read_text(encoding="utf-8") == before


def test_hand_edited_offers_may_not_use_the_import_prefix(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    offers = project / "data" / "offers.yaml"
    text = offers.read_text(encoding="utf-8")
    offers.write_text(
        text.replace("  - id: jygpu-4090-24g-container-hour", "  - id: gpuhunt-mine", 1), encoding="utf-8"
    )
    assert run(project, FIXTURE) == 1
    assert 'data/offers.yaml:14:1: ids starting "gpuhunt-" belong to the gpuhunt import' in capsys.readouterr().err


def test_a_provider_the_mapping_does_not_list_is_refused(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = catalog(tmp_path, FIXTURE.read_text(encoding="utf-8"), "oci.csv")
    assert run(project, other) == 1
    assert f'{other.name}:1:1: provider "oci" is not in data/imports/gpuhunt.yaml' in capsys.readouterr().err


def test_dry_run_writes_nothing(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = (project / "data" / "offers.yaml").read_bytes()
    assert run(project, FIXTURE, "2026-11-30", "--dry-run") == 0
    assert (project / "data" / "offers.yaml").read_bytes() == before
    assert "Dry run: nothing written." in capsys.readouterr().out


def test_a_date_is_required(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--root", str(project), "prices", "import", str(FIXTURE), "--url", URL])
    assert code == 2 and "--as-of" in capsys.readouterr().err


def test_the_bundled_mapping_names_gpus_and_providers_that_exist() -> None:
    imap, problems = load_import_map(map_path(REPO / "data", "gpuhunt"), "data/imports/gpuhunt.yaml")
    assert imap is not None, problems
    gpus = {g["id"] for g in yaml.safe_load((REPO / "data" / "gpus.yaml").read_text(encoding="utf-8"))["gpus"]}
    provs = {
        p["id"] for p in yaml.safe_load((REPO / "data" / "providers.yaml").read_text(encoding="utf-8"))["providers"]
    }
    assert {r.gpu for r in imap.gpus if r.gpu} <= gpus
    assert {p.provider for p in imap.providers} <= provs


RUNPOD = (
    "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot,disk_size,gpu_vendor,flags,cpu_arch,"
    "provider_data\n"
    # RunPod (gpuhunt providers/runpod.py): one pod type name for every card count, price = count x per-GPU price
    "NVIDIA L40S,EU-RO-1,0.86,16,62.0,1,L40S,48.0,False,,nvidia,,x86,{}\n"
    "NVIDIA L40S,EU-RO-1,1.72,32,124.0,2,L40S,48.0,False,,nvidia,,x86,{}\n"
    # an Instant Cluster row (2-8 nodes of 8 GPUs): not one instance, skipped by the mapping's skip_flags
    "NVIDIA L40S,EU-RO-1,6.88,128,500.0,8,L40S,48.0,False,,nvidia,runpod-cluster,x86,{}\n"
)


def test_runpod_rows_of_one_pod_type_are_one_offer_per_card_count_and_clusters_are_skipped(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = catalog(tmp_path, RUNPOD, "runpod.csv")
    assert run(project, path) == 0
    got = imported(project)
    assert sorted(got) == [
        "gpuhunt-runpod-nvidia-l40s-1x-eu-ro-1-20261130",
        "gpuhunt-runpod-nvidia-l40s-2x-eu-ro-1-20261130",
    ]
    two = got["gpuhunt-runpod-nvidia-l40s-2x-eu-ro-1-20261130"]
    assert (two["cards"], two["price"], two["delivery"], two["provider"]) == (2, 1.72, "container", "runpod")
    assert "1 rows flagged runpod-cluster" in capsys.readouterr().out


RECORDED = REPO / "tests" / "fixtures" / "gpuhunt" / "recorded" / "aws.csv"
RECORDED_URL = (
    "https://github.com/dstackai/dstack/blob/ac653888a1a0886ce06c38d434e00923e84d1607/"
    "cli/dstack/_internal/backend/resources/aws_pricing_ondemand.csv"
)


def test_a_recorded_catalog_in_gpuhunts_first_layout_imports(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """dstack's recorded AWS catalog of 2023-08-16 (nine columns, no disk_size; fixture README). By hand
    from its 11 rows: a1.large has no GPU, g4dn.xlarge us-west-2 is outside `locations`, A10G is a listed
    skip; 8 offers. No instance name says SXM, so the V100, A100 80 GB and H100 rows are the lower-spec
    variant, marked variant_unstated (the mapping's rule for a row that does not say); p4d has its own rule."""
    code = main(["--root", str(project), "prices", "import", str(RECORDED), "--as-of", "2023-08-16",
                 "--url", RECORDED_URL])  # fmt: skip
    assert code == 0
    got = {k: v for k, v in imported(project).items() if k.startswith("gpuhunt-aws-")}
    names = ["g4dn-xlarge-1x", "p3-2xlarge-1x", "g4dn-12xlarge-4x", "p3-16xlarge-8x", "p3dn-24xlarge-8x",
             "p4d-24xlarge-8x", "p4de-24xlarge-8x", "p5-48xlarge-8x"]  # fmt: skip
    assert sorted(got) == sorted(f"gpuhunt-aws-{name}-us-east-1-20230816" for name in names)
    p5 = got["gpuhunt-aws-p5-48xlarge-8x-us-east-1-20230816"]
    assert (p5["gpu"], p5["cards"], p5["price"], p5["vcpu"], p5["ram_gb"], p5["variant_unstated"]) == (
        "h100-pcie-80g", 8, 98.32, 192, 2048.0, True,
    )  # fmt: skip
    assert "disk_gb" not in p5 and p5["delivery"] == "vm" and p5["as_of"] == dt.date(2023, 8, 16)
    assert p5["quote"] == "p5.48xlarge,us-east-1,98.32,192,2048.0,8,H100,80.0,False"
    t4 = got["gpuhunt-aws-g4dn-xlarge-1x-us-east-1-20230816"]
    assert (t4["gpu"], t4["price"], "variant_unstated" in t4) == ("t4-16g", 0.526, False)
    # p4d.24xlarge (line 10 of the fixture: 8 x A100 40 GB, $32.7726) is AWS's 8-card SXM node: the aws-only
    # p4d rule files it as a100-sxm-40g with 8 cards at the whole instance's price, never a 1-card PCIe rental
    p4d = got["gpuhunt-aws-p4d-24xlarge-8x-us-east-1-20230816"]
    assert (p4d["gpu"], p4d["cards"], p4d["price"], "variant_unstated" in p4d, "per" in p4d) == (
        "a100-sxm-40g", 8, 32.7726, False, False,
    )  # fmt: skip
    out = capsys.readouterr().out
    assert "8 GPU rows imported: 8 new" in out
    assert (
        "1 A10G 24 GB (skipped: not in gpus.yaml); 1 locations not imported (us-east-1 only); 1 rows without a GPU"
        in out
    )


def test_an_unmapped_card_in_the_recorded_catalog_is_refused_at_its_line(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same catalog's p2.xlarge row (line 10979 of dstack's file, verbatim): K80 is in no rule, so the
    import stops at that row's line (3 here) and column 7 (gpu_name) and writes nothing."""
    lines = RECORDED.read_text(encoding="utf-8").splitlines()
    path = catalog(tmp_path, "\n".join([lines[0], lines[2], "p2.xlarge,us-east-1,0.9,4,61.0,1,K80,12.0,False"]) + "\n",
                   name="aws.csv")  # fmt: skip
    before = (project / "data" / "offers.yaml").read_text(encoding="utf-8")
    code = main(["--root", str(project), "prices", "import", str(path), "--as-of", "2023-08-16",
                 "--url", RECORDED_URL])  # fmt: skip
    assert code == 1
    assert 'aws.csv:3:7: gpu_name: unknown GPU "K80" with 12 GB (instance p2.xlarge)' in capsys.readouterr().err
    assert (project / "data" / "offers.yaml").read_text(encoding="utf-8") == before
