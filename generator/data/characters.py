"""The invisible direction controls no value may carry, derived from :mod:`unicodedata`.

Unicode's ``Bidi_Control`` property (PropList.txt; UAX #9 §2) is true for exactly two
groups of characters, and both are derived here rather than typed as a list, so a newer
Unicode database brings its additions with it:

* the explicit directional formatting characters: every character whose bidirectional
  class is one of LRE, RLE, LRO, RLO, PDF (embeddings and overrides) or LRI, RLI, FSI,
  PDI (isolates);
* the implicit directional marks LRM, RLM and ALM (UAX #9 §2.6), which carry a strong
  class (L, R, AL) like any letter and so can only be named: they are looked up by their
  Unicode names.

Each of them is invisible and reorders the text around it ("¥0848" can read "¥8480",
"× 1 张" can read "1 × 张").
"""

from __future__ import annotations

import sys
import unicodedata

#: UAX #9's explicit directional formatting classes.
EXPLICIT_CLASSES = frozenset({"LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"})
#: UAX #9 §2.6's implicit directional marks, by their Unicode names.
IMPLICIT_MARKS = ("LEFT-TO-RIGHT MARK", "RIGHT-TO-LEFT MARK", "ARABIC LETTER MARK")


def _bidi_controls() -> frozenset[str]:
    explicit = {
        chr(code) for code in range(sys.maxunicode + 1) if unicodedata.bidirectional(chr(code)) in EXPLICIT_CLASSES
    }
    return frozenset(explicit | {unicodedata.lookup(name) for name in IMPLICIT_MARKS})


#: Every character whose Unicode ``Bidi_Control`` property is true.
BIDI_CONTROLS = _bidi_controls()

#: The inside of a regular-expression character class matching :data:`BIDI_CONTROLS`.
BIDI_CLASS = "".join(sorted(BIDI_CONTROLS))
