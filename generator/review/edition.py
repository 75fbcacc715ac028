"""``gpu-guide edition``: record a published data update in ``data/editions.yaml``.

The edition page (本期变化) is built from that file, so the site's history is data
like everything else: reviewed in the pull request, rebuilt byte for byte from any
checkout (no git history needed at build time). This command writes the entry from
the same comparison ``gpu-guide diff`` makes, in plain Chinese:

    gpu-guide edition --base origin/main [--date 2026-08-01] [--title "8 月报价更新"]
"""

from __future__ import annotations

import datetime as dt
import errno
import os
import sys
from pathlib import Path

from generator.data.validate import forbidden_character
from generator.formats import cny
from generator.pages import escape
from generator.pipeline import Project, generate
from generator.publish.lock import write_lock
from generator.publish.safe_files import OutputError
from generator.publish.swap import Interrupted
from generator.review.compare import Report
from generator.review.git import DiffError
from generator.review.report import diff_report

HEADER = """\
# yaml-language-server: $schema=schemas/editions.schema.json
# Published data updates (本期变化), oldest first. Append with `gpu-guide edition --base REF`;
# edit the wording freely before committing.
editions:
"""


def change_lines(report: Report, names: dict[str, str], providers: dict[str, str] | None = None) -> list[str]:
    """The report's data changes as short Chinese sentences (``names``: GPU id -> name; ``providers``:
    provider id -> name)."""
    providers = providers or {}

    def n(gid: str | None) -> str:
        return names.get(gid or "", gid or "无")

    out: list[str] = []
    for grp in report.prices.groups:  # by provider, then GPU
        where = f"{providers.get(grp.provider, grp.provider)} {n(grp.gpu)}"
        for c in grp.changed:
            old, new = c.old.card_month_cny, c.new.card_month_cny
            out.append(f"{where} 报价 {c.offer}：每卡每月 {cny(old)} → {cny(new)}（{c.change_pct:+.1f}%）")
        for o in grp.added:
            out.append(f"新增 {where} 报价 {o.offer}：每卡每月 {cny(o.card_month_cny)}")
        for o in grp.expired:
            out.append(f"{where} 报价 {o.offer} 转为历史报价（过了时效或被新报价取代）")
        for o in grp.removed:
            out.append(f"删除 {where} 报价 {o.offer}")
    for g in report.gpus.added:
        out.append(f"新增 GPU：{g.name}（天梯第 {g.rank} 名）")
    for r in report.gpus.removed:
        out.append(f"移除 GPU：{r.name}")
    for s in report.gpus.specs:
        out.append(f"{n(s.gpu)} 规格 {s.field}：{s.old} → {s.new}")
    for m in report.ladder:
        out.append(f"{n(m.gpu)} 天梯排名 {m.old} → {m.new}")
    for sc in report.scenarios.changed:
        old_pick, new_pick = sc.old, sc.new
        if sc.pick_changed:
            out.append(
                f"场景 {sc.scenario} 推荐：{n(old_pick.gpu)} × {old_pick.cards} → {n(new_pick.gpu)} × {new_pick.cards}"
            )
        else:
            out.append(
                f"场景 {sc.scenario} 月成本：{cny(old_pick.monthly_cny or 0)} → {cny(new_pick.monthly_cny or 0)}"
            )
    return out


def entry_yaml(date: str, title: str, base: str, lines: list[str]) -> str:
    """One list item of editions.yaml, every string double-quoted (safe for any text)."""
    q = escape.yaml_data
    items = "".join(f"      - {q(line)}\n" for line in lines)
    return f"  - date: {date}\n    title: {q(title)}\n    base: {q(base)}\n    changes:\n{items}"


def run_edition(project: Project, base: str, date: dt.date | None, title: str | None) -> int:
    if title:
        bad = forbidden_character(title)
        if bad is not None:
            what = "control character" if bad[1] == "control" else "direction control"
            print(f"gpu-guide edition: --title contains the invisible {what} {bad[0]}; remove it", file=sys.stderr)
            return 2
    try:
        report = diff_report(project, base)
    except DiffError as exc:
        return exc.report("gpu-guide edition")
    if report.unchanged:
        print(f"gpu-guide edition: nothing changed since {base}; no edition written.", file=sys.stderr)
        return 1
    gen = generate(project)  # diff_report already validated the working tree
    names = {g.id: g.name for g in gen.catalogue.gpus.values()}
    providers = {p.id: p.name for p in gen.catalogue.providers.values()}
    lines = change_lines(report, names, providers) or [f"页面更新：{report.summary}"]
    day = (date or gen.catalogue.as_of).isoformat()
    text = entry_yaml(day, title or f"{day} 数据更新", report.base_commit[:12], lines)
    path: Path = project.data / "editions.yaml"
    shown = path.relative_to(project.root) if path.is_relative_to(project.root) else path
    with write_lock(project.root):
        _append(path, shown, text)
    print(f"Appended to {shown}:\n{text}", end="")
    return 0


def _append(path: Path, shown: Path, text: str) -> None:
    """Append ``text`` (with the header when the file is new) in one write, never through a link."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        try:
            fd = os.open(path, flags)
            data = text
        except FileNotFoundError:
            fd = os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o644)
            data = HEADER + text
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OutputError(
                f"{shown} is a symbolic link; edition never writes through links: replace it with the real file"
            ) from None
        raise OutputError(f"cannot write {shown}: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(data)
    except KeyboardInterrupt:
        raise Interrupted(f"{shown} may hold part of the new entry; check it before committing.") from None
