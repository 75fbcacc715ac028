"""``gpu-guide serve``: MkDocs' live preview plus regeneration when data/ or templates/ change.

MkDocs watches docs/ and reloads the browser; this loop watches the generator's own
inputs and rewrites docs/ (without building site/) whenever one of them changes. A
data error is printed and the last good pages stay up.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from generator.data.problems import DataError, render
from generator.pipeline import Project, build


def _snapshot(folders: list[Path]) -> dict[Path, float]:
    return {p: p.stat().st_mtime for f in folders if f.exists() for p in f.rglob("*") if p.is_file()}


def _regenerate(project: Project) -> None:
    try:
        gen = build(project, site=False)
        if gen.warnings:
            print(render(gen.warnings), file=sys.stderr)
        print(f"gpu-guide: regenerated {len(gen.files)} files", file=sys.stderr)
    except DataError as exc:
        print(render(exc.problems), file=sys.stderr)
        print("gpu-guide: data problems; the preview keeps the last good pages", file=sys.stderr)


def serve(project: Project, dev_addr: str) -> int:
    _regenerate(project)
    watched = [project.data, project.templates / "pages", project.templates / "partials"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "serve", "--dev-addr", dev_addr, "-f", str(project.config)],
        cwd=project.root,
    )
    seen = _snapshot(watched)
    try:
        while proc.poll() is None:
            time.sleep(1.0)
            now = _snapshot(watched)
            if now != seen:
                seen = now
                _regenerate(project)
    except KeyboardInterrupt:
        pass
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    return 0
