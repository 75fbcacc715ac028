"""How far a figure on a page can be trusted: the calibration group it comes from and how that group's
estimates compare with published measurements nobody tuned a constant on (``docs-dev/calibration/``).

A page names, next to its speed and memory figures, the groups they come from and each group's held-out
median ratio (estimate / published; for a time, published / estimate) and range, so a reader sees how far
the engine has been off on cases like theirs. The build runs the calibration set the same way
``gpu-guide calibrate`` does; a project without the folder (fixture sites) shows no note.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from generator.data.calibration import CalibrationFile, load_calibration
from generator.data.catalogue import Catalogue
from generator.data.load import ParseMemo
from generator.data.problems import DataError
from generator.data.records import Gpu, ModelKind, Workload
from generator.data.rules import Rules
from generator.engine.calibration import FINETUNE, SERVING_GROUP, GroupSummary, run, summarise
from generator.engine.request import Request


@dataclass(frozen=True)
class GroupTrust:
    """One calibration group's record: how many cases tuned it and how the held-out ones came out."""

    group: str  # engine.calibration.GROUPS
    tuning_cases: int
    held_out_cases: int
    median: float  # held-out median ratio (estimate / published speed or memory)
    low: float
    high: float


def trust_of(summaries: list[GroupSummary]) -> dict[str, GroupTrust]:
    """Per group with held-out cases: its held-out median and range, and its tuning case count."""
    tuning = {s.group: s.cases for s in summaries if not s.held_out}
    return {
        s.group: GroupTrust(s.group, tuning.get(s.group, 0), s.cases, s.median, s.low, s.high)
        for s in summaries
        if s.held_out
    }


class TrustMemo:
    """The last calibration run and what it ran on, for a long-lived process (``gpu-guide serve``):
    the run depends only on the case files, the GPU records and the rules, so while all three are
    equal to the last run's (a price edit), its result stands. ``parses`` keeps the files' loads."""

    def __init__(self) -> None:
        self.parses = ParseMemo()
        self._last: tuple[dict[str, CalibrationFile], dict[str, Gpu], Rules, dict[str, GroupTrust]] | None = None

    def trust(self, files: dict[str, CalibrationFile], gpus: dict[str, Gpu], rules: Rules) -> dict[str, GroupTrust]:
        if self._last is None or self._last[:3] != (files, gpus, rules):
            self._last = (files, dict(gpus), rules, trust_of(summarise(run(files, gpus, rules))))
        return dict(self._last[3])


def calibration_trust(folder: Path | None, cat: Catalogue, memo: TrustMemo | None = None) -> dict[str, GroupTrust]:
    """Run the calibration set in ``folder`` against the catalogue's GPUs and rules; {} without a folder.

    A case file with problems stops the build (DataError), as it stops ``gpu-guide calibrate``.
    ``memo``: reuse the last run while its inputs are unchanged (:class:`TrustMemo`).
    """
    if folder is None or not folder.is_dir():
        return {}
    files, problems = load_calibration(folder, memo.parses if memo is not None else None)
    if problems:
        raise DataError(problems)
    if memo is not None:
        return memo.trust(files, cat.gpus, cat.rules)
    return trust_of(summarise(run(files, cat.gpus, cat.rules)))


def groups_for(req: Request) -> tuple[str, ...]:
    """The calibration groups behind a request's figures: image models' time and memory; language-model
    serving's speed (the request's runtime) and memory; fine-tuning and pre-training job time."""
    if req.arch.kind is ModelKind.diffusion:
        return ("image_speed", "diffusion")
    if req.workload is Workload.inference:
        return (SERVING_GROUP[req.runtime], "memory", "inference_memory")
    if req.workload in FINETUNE:
        return ("finetune",)
    return ("training",)


def notes(trust: Mapping[str, GroupTrust], groups: tuple[str, ...] | list[str]) -> list[GroupTrust]:
    """The groups' records in the order given, leaving out groups without held-out cases."""
    return [trust[g] for g in groups if g in trust]
