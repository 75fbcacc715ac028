"""GPUs' options kept between evaluations (generator.engine.recommend.OptionMemo, ``gpu-guide serve``).

After a price edit, a warm evaluation's rankings are the cold ones (fails if a kept option ignores the
edited GPU's offers), and the memo did keep options (so the check is of reuse, not of a memo never hit).
"""

from __future__ import annotations

import pickle
from pathlib import Path

from conftest import make_project, replace_in

from generator.data.validate import load_catalogue
from generator.pipeline import Warm
from generator.results.evaluate import evaluate


def test_warm_rankings_after_a_price_edit_are_the_cold_ones(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    warm = Warm()

    def run(memo: bool) -> bytes:
        cat, problems = load_catalogue(root / "data", root)
        assert cat is not None, problems
        res = evaluate(cat, warm.sizing, warm.plans, warm.options) if memo else evaluate(cat)
        return pickle.dumps([[(o.gpu.id, o.offer.id if o.offer else None, o.monthly, o.excluded) for o in m.options]
                             for p in res.models for m in [p.rec]], protocol=5)  # fmt: skip

    before = run(True)
    assert warm.options._kept  # options were kept
    replace_in(root / "data" / "offers.yaml", "    price: 48000\n", "    price: 48600\n")
    after = run(True)
    assert after != before  # the edit reaches the rankings
    assert after == run(False)
