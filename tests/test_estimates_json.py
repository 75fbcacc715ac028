"""Open data docs/data/estimates.json: one record per model page, the same numbers the pages print."""

from __future__ import annotations

import json
from pathlib import Path

from generator.formats import cny


def test_one_record_per_model_page_with_the_page_numbers(built_mini: Path) -> None:
    records = json.loads((built_mini / "docs" / "data" / "estimates.json").read_text(encoding="utf-8"))
    pages = sorted(p.stem for p in (built_mini / "docs" / "models").glob("*.md") if p.stem != "index")
    assert sorted(r["page"].split("/")[1] for r in records) == pages
    for r in records:
        assert {"model", "workload", "precision", "inputs", "total_gib", "breakdown", "options"} <= set(r)
        assert abs(sum(r["breakdown"].values()) - r["total_gib"]) < 0.01
        page = (built_mini / "docs" / r["page"].rstrip("/")).with_suffix(".md").read_text(encoding="utf-8")
        assert f"**{r['total_gib']:.1f}**" in page  # the breakdown table's total
        for o in r["options"]:
            assert {"gpu", "cards", "monthly_cny", "job_cny", "cny_per_million_tokens"} <= set(o)
            if o["monthly_cny"] is not None and o["eligible"]:
                assert cny(o["monthly_cny"]) in page
            if o["cny_per_million_tokens"] is not None and o["eligible"]:
                assert r["workload"] == "inference" and o["concurrency"] >= 1
                assert cny(o["cny_per_million_tokens"], 2) in page
            if r["workload"] in ("lora", "qlora", "full") and o["job_cny"] is not None and o["eligible"]:
                assert cny(o["job_cny"]) in page
    serving = next(r for r in records if r["workload"] == "inference")
    assert {"context", "prompt_tokens", "output_tokens", "batch", "concurrency"} <= set(serving["inputs"])
