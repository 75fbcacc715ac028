"""docs/javascripts/ownership.js against generator/results/ownership.py, run in node.

The page's form recomputes the rent-or-buy table in the browser; both sides must give the
same yuan for the same inputs. The browser test (tests/test_layout.py) drives the form
itself; this one compares the pure functions on many inputs. Without node it fails under
CI=true and is skipped elsewhere.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import REPO, make_project, skip_unless_installed

from generator.pages.ownership_form import ownership_form_data
from generator.pipeline import Generated, Project, generate
from generator.results.ownership import OwnershipInputs, default_inputs, ownership_rows

NODE = shutil.which("node")
skip_unless_installed(NODE, "node is not installed (CI has it)")

SCRIPT = """
const api = require(process.argv[1]);
const {data, cases} = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = cases.map(inputs => data.rows.map(row => api.computeRow(row, inputs, data.hours_per_month)));
process.stdout.write(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def gen(tmp_path_factory: pytest.TempPathFactory) -> Generated:
    return generate(Project.at(make_project(tmp_path_factory.mktemp("own-js"))))


def cases(start: OwnershipInputs) -> list[OwnershipInputs]:
    """The page's defaults and inputs that move each term, including the switch from the
    hourly to the monthly offer (24 h a day) and a card that never breaks even."""
    return [
        start,
        replace(start, hours_per_day=24),
        replace(start, hours_per_day=0.5, years=1),
        replace(start, electricity_cny_per_kwh=10),
        replace(start, resale_fraction=0, pue=1.07, hosting_cny_per_kw_month=0),
        replace(start, years=7.5, resale_fraction=0.65, electricity_cny_per_kwh=0.398, hours_per_day=17.5),
        replace(start, hours_per_day=23.99, hosting_cny_per_kw_month=1234.5),
    ]


def test_js_matches_python_on_many_inputs(gen: Generated) -> None:
    cat = gen.catalogue
    assert cat.ownership is not None
    all_cases = cases(default_inputs(cat.ownership))
    data = ownership_form_data(cat, gen.results.ownership, default_inputs(cat.ownership))
    payload = json.dumps({"data": data, "cases": [vars(c) for c in all_cases]})
    assert NODE is not None
    run = subprocess.run(
        [NODE, "-e", SCRIPT, str(REPO / "docs" / "javascripts" / "ownership.js")],
        input=payload, capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    got = json.loads(run.stdout)
    checked = 0
    for inputs, js_rows in zip(all_cases, got, strict=True):
        for py, js in zip(ownership_rows(cat, inputs), js_rows, strict=True):
            assert js["own"]["total"] == pytest.approx(py.own.total, rel=1e-12)
            assert js["own"]["depreciation"] == pytest.approx(py.own.depreciation, rel=1e-12)
            assert js["own"]["power"] == pytest.approx(py.own.power, rel=1e-12)
            assert js["own"]["hosting"] == pytest.approx(py.own.hosting, rel=1e-12)
            assert js["rent"] == pytest.approx(py.rent, rel=1e-12)
            assert js["offer"] == py.rent_offer.id
            if py.break_even is None:
                assert js["breakEven"] is None
            else:
                assert js["breakEven"] == pytest.approx(py.break_even, rel=1e-12)
            checked += 1
    assert checked == len(all_cases) * 2  # two fixture purchases in every case
    # The cases do exercise both offers and a card that never pays for itself.
    assert {r["offer"] for rows in got for r in rows} >= {"c-h100-hour", "bm-h100-8"}
    assert any(r["breakEven"] is None for rows in got for r in rows)


def test_form_data_carries_only_current_offers(tmp_path: Path) -> None:
    def edit(data: Path) -> None:  # the hourly H100 offer becomes history (over 180 days old)
        text = (data / "offers.yaml").read_text(encoding="utf-8")
        (data / "offers.yaml").write_text(text.replace("as_of: 2026-06-01", "as_of: 2025-06-01"), encoding="utf-8")

    gen = generate(Project.at(make_project(tmp_path, edit)))
    assert gen.catalogue.ownership is not None
    data = ownership_form_data(gen.catalogue, gen.results.ownership, default_inputs(gen.catalogue.ownership))
    h100 = next(r for r in data["rows"] if r["id"] == "h100-server")
    assert [o["id"] for o in h100["offers"]] == ["bm-h100-8"]


# --------------------------------------------------------------------------- impossible inputs (issue 23)

#: Inputs no data centre or card can have, each with the reason both sides give.
IMPOSSIBLE: list[tuple[dict[str, float], str]] = [
    ({"pue": 0.5}, "pue must be from 1 to 3, got 0.5"),
    ({"pue": 100}, "pue must be from 1 to 3, got 100"),
    ({"years": 0}, "years must be above 0 and at most 10, got 0"),
    ({"hours_per_day": 25}, "hours_per_day must be above 0 and at most 24, got 25"),
    ({"resale_fraction": 1}, "resale_fraction must be from 0 to 0.99, got 1"),
    ({"electricity_cny_per_kwh": -0.5}, "electricity_cny_per_kwh must be from 0 to 10, got -0.5"),
]

REFUSALS = """
const api = require(process.argv[1]);
const {inputs} = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = inputs.map(i => { try { api.checkInputs(i); return null; } catch (e) { return e.message; } });
process.stdout.write(JSON.stringify({limits: api.LIMITS, out}));
"""


def test_impossible_inputs_are_refused_alike_in_python_and_js(gen: Generated) -> None:
    """On main PUE 0.5 or 100 went into the rent-or-buy table (the page's own form allows 1–3)."""
    from generator.results.ownership import LIMITS

    assert gen.catalogue.ownership is not None
    start = default_inputs(gen.catalogue.ownership)
    python_said = []
    for change, reason in IMPOSSIBLE:
        with pytest.raises(ValueError) as refused:
            replace(start, **change)
        python_said.append(str(refused.value))
        assert str(refused.value) == reason
    payload = json.dumps({"inputs": [{**vars(start), **change} for change, _ in IMPOSSIBLE] + [vars(start)]})
    assert NODE is not None
    run = subprocess.run(
        [NODE, "-e", REFUSALS, str(REPO / "docs" / "javascripts" / "ownership.js")],
        input=payload, capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    got = json.loads(run.stdout)
    assert got["out"] == [*python_said, None]
    assert {k: tuple(v) for k, v in got["limits"].items()} == LIMITS


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("value: 1.5\n", "value: 0.5\n", "pue[0].value: must be at least 1, got 0.5"),
        ("value: 1.5\n", "value: 100\n", "pue[0].value: must be at most 3, got 100"),
    ],
)
def test_an_impossible_pue_in_the_data_is_refused_at_its_line(tmp_path: Path, old: str, new: str, message: str) -> None:
    from generator.data.validate import load_catalogue

    def edit(data: Path) -> None:
        text = (data / "ownership.yaml").read_text(encoding="utf-8")
        at = text.index("pue:")
        (data / "ownership.yaml").write_text(text[:at] + text[at:].replace(old, new, 1), encoding="utf-8")

    root = make_project(tmp_path, edit)
    cat, problems = load_catalogue(root / "data", root)
    assert cat is None
    assert [p.format() for p in problems] == [f"data/ownership.yaml:30:12: {message}"]
