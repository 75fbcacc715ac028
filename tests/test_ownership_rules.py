"""Rent or buy compares what a buyer can buy and run (issue: owning as it is), on the bundled data.

Outside references: an SXM module runs only on an HGX baseboard in a server (NVIDIA HGX); NVIDIA's
DGX H100 datasheet gives "System power usage ~10.2kW max" for 8 H100 SXM of 700 W, so a server card
is costed at 10,200 / 8 = 1,275 W, not its 700 W TDP.
"""

from __future__ import annotations

from conftest import REPO

from generator.data.editorial import PurchaseKind
from generator.data.records import FormFactor, Market
from generator.data.validate import load_catalogue
from generator.results.ownership import ownership_rows, unrunnable_purchases

_CAT, _ = load_catalogue(REPO / "data", REPO)
assert _CAT is not None
CAT = _CAT


def test_a_single_sxm_module_is_never_compared_with_renting() -> None:
    rows = ownership_rows(CAT)
    assert rows
    for r in rows:
        assert r.purchase.what is PurchaseKind.server or r.gpu.form_factor not in (FormFactor.sxm, FormFactor.oam)
    listed = {p.id for p, _ in unrunnable_purchases(CAT)}
    assert "h200-card-cn-2026" in listed  # the bundled H200 SXM module price


def test_servers_draw_system_power_from_the_datasheet() -> None:
    h100 = next(r for r in ownership_rows(CAT) if r.purchase.id == "h100-nvlink-8card-server-cn-2024")
    assert h100.power_w == 10_200 / 8  # DGX H100: ~10.2 kW max for 8 GPUs
    assert h100.power_w > h100.gpu.tdp_w


def test_a_buyer_in_china_is_compared_with_chinese_rents() -> None:
    for r in ownership_rows(CAT):
        cn = [o for o in CAT.pickable_offers if o.gpu == r.gpu.id and CAT.providers[o.provider].market is Market.cn]
        if cn:
            assert CAT.providers[r.rent_offer.provider].market is Market.cn, r.purchase.id
