"""One file for the calculator's scripts: ``calculator.js`` and the engine's ES modules, concatenated.

The calculator page loads ``javascripts/calculator.js``, which imports 14 engine modules; a
browser discovers them a level at a time, so a first view waits on several round trips for
15 requests (slow on a phone network far from the host). The build writes one file instead,
``javascripts/calculator.bundle.js``, that the page loads as its single module script.

This is a plain concatenation, not a bundler from npm: the engine's modules keep to a small
subset of module syntax (``import { a, b as c } from "./x.js";``, and ``export``
only before ``function``/``const``/``let``/``class`` declarations), checked here, and each
module becomes a function scope returning its exports, so private names never collide. The
modules' comments are left out (:mod:`generator.publish.js_comments`: a quarter of the bytes,
12 KB of the page's first view gzipped), their line breaks kept. No minifying, no rewriting
inside the code: what runs is the source the parity tests run (tests/test_calculator_parity.py),
line for line. The output depends only on the sources.
"""

from __future__ import annotations

import re
from pathlib import Path

from generator.publish.js_comments import JsLexError, without_comments

ENTRY = "javascripts/calculator.js"
BUNDLE = "javascripts/calculator.bundle.js"

_IMPORT = re.compile(r'^import \{([^}]*)\} from "(\.{1,2}/[\w./-]+\.js)";[ \t]*$', re.M)
_EXPORT = re.compile(r"^export (?:async )?(?:function\*?|const|let|class) ([\w$]+)", re.M)


class BundleError(Exception):
    """A module uses syntax the concatenation does not handle, or imports in a cycle."""


def bundle(entry: Path, *, comments: bool = False) -> str:
    """The text of the one-file bundle of ``entry`` and every module it imports, deps first;
    ``comments=True`` keeps the modules' comments (the tests compare the two)."""
    order: list[Path] = []
    visiting: list[Path] = []
    sources: dict[Path, str] = {}

    def visit(path: Path) -> None:
        if path in order:
            return
        if path in visiting:
            raise BundleError(f"{path.name}: import cycle through {', '.join(p.name for p in visiting)}")
        visiting.append(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise BundleError(f"{path}: {exc.strerror or exc}") from None
        try:
            sources[path] = text if comments else without_comments(text)
        except JsLexError as exc:
            raise BundleError(f"{path.name}: {exc}") from None
        for _names, spec in _IMPORT.findall(sources[path]):
            visit((path.parent / spec).resolve())
        visiting.pop()
        order.append(path)

    entry = entry.resolve()
    visit(entry)
    ids = {path: f"__m{i}" for i, path in enumerate(order)}
    root = entry.parent
    out = [f"// gpu-guide: generated from {ENTRY} and the modules it imports (generator/publish/bundle.py)."]
    for path in order:
        text = sources[path]
        leftover = re.search(r"^\s*(import|export)\b.*$", _EXPORT.sub("", _IMPORT.sub("", text)), re.M)
        if leftover:
            raise BundleError(f"{path.name}: module syntax the bundle does not handle: {leftover.group(0).strip()}")
        head = []
        for names, spec in _IMPORT.findall(text):
            dep = ids[(path.parent / spec).resolve()]
            parts = [n.strip() for n in names.split(",") if n.strip()]
            fields = [": ".join(p.split(" as ")) if " as " in p else p for p in parts]
            head.append(f"  const {{ {', '.join(fields)} }} = {dep};")
        body = _IMPORT.sub("", text)
        exports = _EXPORT.findall(body)
        body = re.sub(r"^export ", "", body, flags=re.M)
        name = path.relative_to(root).as_posix() if path.is_relative_to(root) else path.name
        tail = f"  return {{ {', '.join(exports)} }};\n" if path != entry else ""
        out.append(f"// ---- {name}\nconst {ids[path]} = (() => {{\n" + "\n".join(head) + "\n" + body + tail + "})();")
    return "\n".join(out) + "\n"
