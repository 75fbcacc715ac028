"""``gpu-guide calibrate``: run the calibration set (``docs-dev/calibration/``) through the engine.

Prints every case's ratio and, per group, the median and the worst case; ``--markdown`` prints
the summary table the README shows. Exit status 1 when a group's median leaves 0.8–1.25 or a
case leaves 0.5–2 (the bands ``tests/test_calibration.py`` asserts), 2 on a bad case file.
"""

from __future__ import annotations

import sys
from pathlib import Path

from generator.data.calibration import load_calibration
from generator.data.problems import DataError, render
from generator.data.validate import load_catalogue
from generator.engine.calibration import CaseResult, GroupSummary, run, summarise
from generator.pipeline import Project

#: Bands every group median and every case must stay within (issue 11).
MEDIAN_BAND = (0.8, 1.25)
CASE_BAND = (0.5, 2.0)
GROUP_NAMES = {
    "training": "pre-training time",
    "finetune": "fine-tuning speed",
    "serving": "serving speed",
    "serving_transformers": "serving speed (transformers)",
    "serving_llamacpp": "serving speed (llama.cpp)",
    "diffusion": "image-model memory",
    "memory": "language-model memory",
    "inference_memory": "serving memory by runtime",
    "image_speed": "image-generation time",
    "video": "video-generation time",
}


def band_failures(results: list[CaseResult], summaries: list[GroupSummary]) -> list[str]:
    """One line per case or group median outside its band."""
    out = [
        f"{r.file}: {r.id}: ratio {r.ratio:.2f} outside {CASE_BAND[0]}–{CASE_BAND[1]}"
        for r in results
        if not CASE_BAND[0] <= r.ratio <= CASE_BAND[1]
    ]
    out += [
        f"{s.group}{' (held out)' if s.held_out else ''}: median {s.median:.2f} outside {MEDIAN_BAND[0]}–{MEDIAN_BAND[1]}"
        for s in summaries
        if not MEDIAN_BAND[0] <= s.median <= MEDIAN_BAND[1]
    ]
    return out


def markdown_table(summaries: list[GroupSummary]) -> str:
    lines = [
        "| group | set | cases | median | worst (case) | range |",
        "| --- | --- | ---: | ---: | --- | --- |",
    ]
    for s in summaries:
        lines.append(
            f"| {GROUP_NAMES[s.group]} | {'held out' if s.held_out else 'tuning'} | {s.cases} | {s.median:.2f} | "
            f"{s.worst.ratio:.2f} ({s.worst.id}) | {s.low:.2f}–{s.high:.2f} |"
        )
    return "\n".join(lines)


def run_calibrate(project: Project, folder: Path | None, markdown: bool) -> int:
    cat, problems = load_catalogue(project.data, display_root=project.root, build_date=project.build_date)
    if cat is None:
        raise DataError(problems)
    where = folder or project.root / "docs-dev" / "calibration"
    if not where.is_dir():
        print(f"gpu-guide calibrate: {where} is not a folder of calibration cases (*.yaml)", file=sys.stderr)
        return 2
    files, bad = load_calibration(where)
    if bad:
        print(render(bad), file=sys.stderr)
        return 2
    if not files:
        print(f"gpu-guide calibrate: {where} holds no calibration cases (*.yaml)", file=sys.stderr)
        return 2
    results = run(files, cat.gpus, cat.rules)
    summaries = summarise(results)
    if markdown:
        print(markdown_table(summaries))
    else:
        for r in results:
            mark = "" if CASE_BAND[0] <= r.ratio <= CASE_BAND[1] else "  <- outside 0.5–2"
            print(
                f"{'held-out' if r.held_out else 'tuning  '} {r.kind:<14} {r.id:<50} {r.metric:<20} "
                f"published {r.published:>12,.4g}  predicted {r.predicted:>12,.4g}  ratio {r.ratio:5.2f}{mark}"
            )
        print()
        print(markdown_table(summaries))
    failures = band_failures(results, summaries)
    for line in failures:
        print(line, file=sys.stderr)
    return 1 if failures else 0
