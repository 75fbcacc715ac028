"""GPUs' options kept between evaluations (generator.engine.recommend.OptionMemo, ``gpu-guide serve``).

After a price edit, a warm evaluation's rankings are the cold ones, every field of every option (fails if a
kept option ignores the edited GPU's offers), and the memo did keep options (so the check is of reuse, not
of a memo never hit) and hands out the kept objects themselves, which the pages' digests carry.
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

    shown: list[int] = []  # the options the last warm evaluation's rankings hold, by identity

    def run(memo: bool) -> bytes:
        cat, problems = load_catalogue(root / "data", root)
        assert cat is not None, problems
        res = evaluate(cat, warm.sizing, warm.plans, warm.options) if memo else evaluate(cat)
        if memo:
            shown[:] = [id(o) for p in res.models for o in p.rec.options]
        # every field of every option (reasons too, which the memo keeps with the option), each pickled on
        # its own: objects shared between fields (a kept sizing's request) must not change the bytes
        fields = [[[pickle.dumps(v, protocol=5) for v in vars(o).values()] for o in p.rec.options] for p in res.models]
        return pickle.dumps(fields, protocol=5)

    before = run(True)
    assert warm.options._kept  # options were kept
    replace_in(root / "data" / "offers.yaml", "    price: 48000\n", "    price: 48600\n")
    kept = {id(o) for _gpu, _sizing, o in warm.options._kept.values()}
    after = run(True)
    assert after != before  # the edit reaches the rankings
    assert after == run(False)
    # the warm rankings hold the kept objects themselves, not copies (the unchanged GPUs' options)
    assert kept & set(shown)
