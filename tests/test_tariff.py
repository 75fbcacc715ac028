"""Each provider's own extras price its offers (providers.yaml extras); the rules' marked assumptions
only where a provider publishes none, and the monthly cost table says which."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from conftest import MINI_BUILD_DATE, REPO

from generator.data.catalogue import Catalogue
from generator.data.records import Extra, FxRate, Provider
from generator.data.validate import load_catalogue
from generator.engine import cost
from generator.engine.tariff import tariff_of

DAY = dt.date(2026, 7, 1)
RATES = [FxRate.model_validate(dict(currency="USD", cny_per_unit=7.0, as_of=DAY, source="https://example.com/fx",
                                    quote="7.0"))]  # fmt: skip


def extra(item: str, price: float, currency: str, unit: str) -> Extra:
    return Extra.model_validate(dict(item=item, price=price, currency=currency, unit=unit, as_of=DAY,
                                     source="https://example.com/", quote=f"{price}"))  # fmt: skip


def provider(*extras: Extra) -> Provider:
    return Provider.model_validate(dict(id="p", name="P", market="intl", kind="cloud", url="https://example.com",
                                        extras=list(extras)))  # fmt: skip


def test_units_become_the_cost_models() -> None:
    """¥0.01 per GB-day is 0.01 x 730 / 24 per GB-month; $0.00672 an hour for an IP is
    0.00672 x 7.0 x 730 a month; $0 egress is free; a disk priced per month-instance is not usable."""
    cat, _ = load_catalogue(REPO / "data")
    assert cat is not None
    month = cat.rules.cost.hours_per_month
    assert month == 730
    t = tariff_of(provider(extra("disk", 0.01, "CNY", "gb_day"), extra("egress", 0, "USD", "gb"),
                           extra("public_ip", 0.00672, "USD", "hour")), RATES, cat.rules.cost)  # fmt: skip
    assert t.disk_cny_per_gb_month == pytest.approx(0.01 * 730 / 24)
    assert t.egress_cny_per_gb == 0
    assert t.public_ip_cny_month == pytest.approx(0.00672 * 7.0 * 730)
    assert t.sourced() == ("disk", "egress", "public_ip")
    assert tariff_of(provider(extra("disk", 5, "CNY", "month")), RATES, cat.rules.cost).sourced() == ()


def test_offers_use_their_providers_tariff(mini: Path) -> None:
    """Fixture Market publishes free egress (0 USD/GB): its offers pay no traffic; Fixture Cloud
    publishes no egress price, so its offers pay the assumed ¥0.8/GB; both say which."""
    cat, _ = load_catalogue(mini / "data", mini, build_date=MINI_BUILD_DATE)
    assert cat is not None
    pricing = cost.pricing_of(cat)
    usage = cost.Usage(hours_per_month=100, disk_gb=500, egress_gb_month=100, public_ip=True)
    market = next(o for o in cat.offers if o.id == "m-4090-usd")
    cloud = next(o for o in cat.offers if o.id == "c-4090-hour")
    m = cost.monthly_cost(market, 1, usage, pricing)
    c = cost.monthly_cost(cloud, 1, usage, pricing)
    assert m.egress == 0 and "egress" in m.sourced
    assert c.egress == pytest.approx(100 * 0.8) and "egress" not in c.sourced
    # Fixture Cloud's disk is its own ¥0.35/GB-month: 500 x 0.35
    assert c.disk == pytest.approx(175) and "disk" in c.sourced
    assert c.public_ip == pytest.approx(20) and m.public_ip == pytest.approx(20)  # nobody prices an IP: assumed


def test_monthly_table_says_which(mini: Path) -> None:
    from generator.pipeline import Project, generate

    gen = generate(Project.at(mini, build_date=MINI_BUILD_DATE))
    pages = [
        v.decode("utf-8") for k, v in gen.files.items() if k.startswith("scenarios/") and k != "scenarios/index.md"
    ]
    text = "\n".join(pages)
    assert "| 数据盘（平台标价） |" in text and "| 公网 IP（编辑假设） |" in text


STOPPED = """    terms:
      stopped:
        bills: instance
        as_of: 2026-06-01
        source: https://example.com/billing
        quote: 关机后实例仍计费，释放后停止计费
"""


def test_a_provider_whose_stopped_instances_bill_charges_the_whole_month(mini: Path) -> None:
    """Fixture Cloud's 4090 container is ¥2/hour (c-4090-hour). Used 100 hours a month: ¥200 under the
    assumption (a stopped instance bills only storage); with its sourced term "stopped instances still
    bill", the instance stays allocated: 730 h x ¥2 = ¥1,460, of which 630 h x ¥2 = ¥1,260 idle. The JS
    port (the calculator) gives the same from the tariffs the calculator ships."""

    usage = cost.Usage(hours_per_month=100, disk_gb=0, egress_gb_month=0, public_ip=False)
    cat, _ = load_catalogue(mini / "data", mini, build_date=MINI_BUILD_DATE)
    assert cat is not None
    cloud = next(o for o in cat.offers if o.id == "c-4090-hour")
    assert cost.monthly_cost(cloud, 1, usage, cost.pricing_of(cat)).gpu_rent == pytest.approx(200)
    text = (mini / "data" / "providers.yaml").read_text(encoding="utf-8")
    (mini / "data" / "providers.yaml").write_text(
        text.replace("    url: https://example.com\n", "    url: https://example.com\n" + STOPPED, 1), encoding="utf-8"
    )
    cat, problems = load_catalogue(mini / "data", mini, build_date=MINI_BUILD_DATE)
    assert cat is not None, problems
    cloud = next(o for o in cat.offers if o.id == "c-4090-hour")
    m = cost.monthly_cost(cloud, 1, usage, cost.pricing_of(cat))
    assert m.gpu_rent == pytest.approx(1460) and m.idle_rent == pytest.approx(1260)
    market = next(o for o in cat.offers if o.id == "m-4090-usd")  # Fixture Market has no such term
    assert cost.monthly_cost(market, 1, usage, cost.pricing_of(cat)).idle_rent == pytest.approx(0)
    js = js_monthly_cost(
        cat, "c-4090-hour", {"hours_per_month": 100, "disk_gb": 0, "egress_gb_month": 0, "public_ip": False}
    )
    assert [js["gpu_rent"], js["idle_rent"]] == [pytest.approx(1460), pytest.approx(1260)]


STOPPED_DISK = """      - item: disk
        price: 0.70
        currency: CNY
        unit: gb_month
        as_of: 2026-07-01
        source: https://example.com/prices
        quote: 关机后数据盘 0.70 元/GB/月
        state: stopped
"""


def test_a_stopped_disk_rate_prices_the_hours_the_instance_is_stopped(mini: Path) -> None:
    """RunPod bills a stopped Pod's volume disk at $0.20/GB-month, twice the running $0.10. On the mini
    fixture, Fixture Cloud's disk is ¥0.35/GB-month; add a stopped rate of ¥0.70 (listed first, so the
    running rate must not be taken from it). 500 GB kept all month, the 4090 container used 100 of 730
    hours: 500 x (0.35 x 100 + 0.70 x 630) / 730 = 500 x 476 / 730 = ¥326.03 (¥175 without the stopped
    rate). The JS port gives the same."""

    path = mini / "data" / "providers.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("    extras:\n", "    extras:\n" + STOPPED_DISK, 1), encoding="utf-8")
    cat, problems = load_catalogue(mini / "data", mini, build_date=MINI_BUILD_DATE)
    assert cat is not None, problems
    t = tariff_of(cat.providers["fixture-cloud"], cat.fx, cat.rules.cost)
    assert (t.disk_cny_per_gb_month, t.disk_stopped_cny_per_gb_month) == (0.35, 0.70)
    usage = cost.Usage(hours_per_month=100, disk_gb=500, egress_gb_month=0, public_ip=False)
    cloud = next(o for o in cat.offers if o.id == "c-4090-hour")
    m = cost.monthly_cost(cloud, 1, usage, cost.pricing_of(cat))
    assert m.disk == pytest.approx(500 * 476 / 730) and m.disk == pytest.approx(326.03, abs=0.01)
    assert "disk" in m.sourced
    # used every hour of the month, the disk is never stopped: the running rate alone
    full = cost.Usage(hours_per_month=730, disk_gb=500, egress_gb_month=0, public_ip=False)
    assert cost.monthly_cost(cloud, 1, full, cost.pricing_of(cat)).disk == pytest.approx(175)
    js = js_monthly_cost(
        cat, "c-4090-hour", {"hours_per_month": 100, "disk_gb": 500, "egress_gb_month": 0, "public_ip": False}
    )
    assert js["disk"] == pytest.approx(500 * 476 / 730)


def test_runpod_prices_its_volume_disk_running_and_stopped() -> None:
    """RunPod's billing page (providers.yaml, pinned commit): volume disk $0.10/GB-month running, $0.20
    stopped, no data-transfer fees; in yuan at the rate the extras' date takes."""
    cat, problems = load_catalogue(REPO / "data")
    assert cat is not None, problems
    t = tariff_of(cat.providers["runpod"], cat.fx, cat.rules.cost)
    from generator.data.catalogue import rate_on
    from generator.data.records import Currency

    rate = rate_on(cat.fx, Currency.usd, dt.date(2026, 7, 27))
    assert rate is not None
    assert t.disk_cny_per_gb_month == pytest.approx(0.10 * rate.cny_per_unit)
    assert t.disk_stopped_cny_per_gb_month == pytest.approx(0.20 * rate.cny_per_unit)
    assert t.egress_cny_per_gb == 0


def test_the_provider_page_names_the_stopped_disk_rate(mini: Path) -> None:
    """The extras table labels a stopped-instance price and the page says how the month is split."""
    from generator.pipeline import Project, generate

    path = mini / "data" / "providers.yaml"
    text = path.read_text(encoding="utf-8")
    page = generate(Project.at(mini, build_date=MINI_BUILD_DATE)).files["providers/fixture-cloud.md"].decode("utf-8")
    assert "停机时" not in page
    path.write_text(text.replace("    extras:\n", "    extras:\n" + STOPPED_DISK, 1), encoding="utf-8")
    page = generate(Project.at(mini, build_date=MINI_BUILD_DATE)).files["providers/fixture-cloud.md"].decode("utf-8")
    assert "| 存储（停机时） | ¥0.70/GB·月 | 2026-07-01 |" in page
    assert "数据盘整月保留：运行的小时按“运行时”的价格、其余小时按“停机时”的价格计。\n\n## " in page


def js_monthly_cost(cat: Catalogue, offer_id: str, usage: dict[str, object]) -> dict[str, float]:
    """The calculator's port (docs/javascripts/engine/cost.js) pricing one card of ``offer_id`` for
    ``usage``, from the calculator's JSON of ``cat``; skips where node is missing (CI has it)."""
    import json
    import shutil
    import subprocess

    from generator.pages.calculator import calculator_data

    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (CI has it)")
    engine = (Path(__file__).resolve().parent.parent / "docs" / "javascripts" / "engine" / "cost.js").as_uri()
    script = (
        f"import {{ Pricing, monthlyCost }} from {json.dumps(engine)};\n"
        'import fs from "fs";\n'
        'const [d, id, usage] = JSON.parse(fs.readFileSync(0, "utf8"));\n'
        "const p = new Pricing(d.rules.cost, d.fx, d.tariffs);\n"
        "console.log(JSON.stringify(monthlyCost(d.offers.find((x) => x.id === id), 1, usage, p)));\n"
    )
    stdin = json.dumps([calculator_data(cat), offer_id, usage])
    run = subprocess.run([node, "--input-type=module", "-e", script], input=stdin,
                         capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr
    result: dict[str, float] = json.loads(run.stdout)
    return result
