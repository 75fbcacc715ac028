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
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from generator.data.datafiles import DataFile
from generator.data.problems import errors, render
from generator.data.records import Edition
from generator.data.validate import forbidden_character, load_catalogue
from generator.formats import cny
from generator.pages import escape
from generator.pipeline import Project, generate
from generator.publish.lock import write_lock
from generator.publish.safe_files import OutputError, write_file
from generator.publish.swap import deferred_signals
from generator.review.compare import Report
from generator.review.report import diff_report

EDITIONS = DataFile.editions

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


class EditionError(Exception):
    """Why no edition was written (one line), with the command's exit status and, printed before
    it, the details (the problems the new file would have)."""

    def __init__(self, message: str, status: int, details: str = ""):
        super().__init__(message)
        self.status = status
        self.details = details


@dataclass(frozen=True)
class Written:
    """The entry appended to ``shown`` (editions.yaml, relative to the project where it lies inside)."""

    shown: Path
    text: str


def write_edition(project: Project, base: str, date: dt.date | None, title: str | None) -> Written:
    """Append this data update (compared with ``base``) to ``data/editions.yaml``.

    The entry is built as a validated :class:`~generator.data.records.Edition` record, and
    the file is written only when the whole new file parses and validates and its last
    edition is that record; anything else is refused with the reason and nothing is written.
    Everything happens under the project's write lock: the comparison reads data/ while no
    build or other edition writes. Raises :class:`EditionError` (status 2: a bad title or entry;
    1: nothing changed, or the file would not validate) or :class:`~generator.review.git.DiffError`.
    """
    if title:
        bad = forbidden_character(title)
        if bad is not None:
            what = "control character" if bad[1] == "control" else "direction control"
            raise EditionError(f"--title contains the invisible {what} {bad[0]}; remove it", 2)
    path: Path = project.data / EDITIONS
    shown = path.relative_to(project.root) if path.is_relative_to(project.root) else path
    with write_lock(project.root, project.lock_wait):
        report = diff_report(project, base)
        if report.unchanged:
            raise EditionError(f"nothing changed since {base}; no edition written.", 1)
        gen = generate(project)  # diff_report already validated the working tree
        names = {g.id: g.name for g in gen.catalogue.gpus.values()}
        providers = {p.id: p.name for p in gen.catalogue.providers.values()}
        lines = change_lines(report, names, providers) or [f"页面更新：{report.summary}"]
        day = date or gen.catalogue.as_of
        try:
            record = Edition(date=day, title=title or f"{day.isoformat()} 数据更新", base=report.base_commit[:12],
                             changes=lines)  # fmt: skip
        except ValidationError as exc:
            raise EditionError(f"the entry would not validate, so nothing was written: {_reasons(exc)}", 2) from None
        text = entry_yaml(record.date.isoformat(), record.title, record.base or "", record.changes)
        old = _read_existing(path, shown)
        if old is None or not old.strip():
            new = HEADER + text
        else:  # a file without a final line break gets one: the entry never joins its last line
            new = old + ("" if old.endswith("\n") else "\n") + text
        problems = _problems_after(project, new, [*gen.catalogue.editions, record])
        if problems:
            raise EditionError(
                f"refused: appending the entry would leave {shown} as above, which the next build would refuse; "
                f"{shown} is unchanged. Write it in block style (`editions:` then one `  - date:` item per edition), "
                "fix what is listed, and run edition again.",
                1,
                problems,
            )
        with deferred_signals():
            write_file(project.data, EDITIONS, new.encode("utf-8"), shown=str(shown))
    return Written(shown, text)


def _reasons(exc: ValidationError) -> str:
    """pydantic's errors as ``field: message`` phrases (``title: String should have at most 200 characters``)."""
    return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'entry'}: {e['msg']}" for e in exc.errors())


def _read_existing(path: Path, shown: Path) -> str | None:
    """The current file's text, None when it does not exist; a symbolic link is refused."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OutputError(
                f"{shown} is a symbolic link; edition never writes through links: replace it with the real file"
            ) from None
        raise OutputError(f"cannot read {shown}: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as fh:
        raw = fh.read()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise OutputError(f"{shown} is not UTF-8 text; fix it before adding an edition") from None


def _problems_after(project: Project, text: str, expected: list[Edition]) -> str:
    """Why ``text`` as the new editions file would not do (rendered problems), or "" when it
    loads, validates with the rest of the data, and holds exactly ``expected``."""
    with tempfile.TemporaryDirectory(prefix="gpu-guide-edition-") as tmp:
        data = Path(tmp) / project.data.name
        shutil.copytree(project.data, data, symlinks=True)
        (data / EDITIONS).unlink(missing_ok=True)
        (data / EDITIONS).write_text(text, encoding="utf-8")
        cat, problems = load_catalogue(data, display_root=Path(tmp))
    if problems and errors(problems):
        return render(errors(problems))
    if cat is None or cat.editions != expected:
        got = len(cat.editions) if cat is not None else 0
        return (
            f"{project.data.name}/{EDITIONS}:1:1: editions: the new entry would not be the last of "
            f"{len(expected)} editions (the file would hold {got})"
        )
    return ""
