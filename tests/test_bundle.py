"""The calculator's one-file bundle (generator/publish/bundle.py)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from generator.publish.bundle import BundleError, bundle

REPO = Path(__file__).resolve().parent.parent


def write(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    return folder / "main.js"


def test_modules_keep_their_private_names_and_aliases_work(tmp_path: Path) -> None:
    entry = write(tmp_path, {
        "main.js": 'import { twice as double, K } from "./lib/a.js";\nimport { K as K2 } from "./b.js";\nconst hidden = 1;\nglobalThis.out = [double(K), K2, hidden];\n',
        "lib/a.js": 'import { K as base } from "../b.js";\nconst hidden = 10;\nexport const K = base + hidden;\nexport function twice(x) { return 2 * x; }\n',
        "b.js": "const hidden = 100;\nexport const K = hidden + 1;\n",
    })  # fmt: skip
    text = bundle(entry)
    assert text.index("// ---- b.js") < text.index("// ---- lib/a.js") < text.index("// ---- main.js")
    assert text == bundle(entry)  # reproducible
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    out = tmp_path / "out.mjs"
    out.write_text(text + "console.log(JSON.stringify(globalThis.out));\n", encoding="utf-8")
    done = subprocess.run(["node", str(out)], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[222,101,1]"


def test_a_cycle_is_refused(tmp_path: Path) -> None:
    entry = write(
        tmp_path,
        {"main.js": 'import { a } from "./a.js";\n', "a.js": 'import { b } from "./main.js";\nexport const a = 1;\n'},
    )
    with pytest.raises(BundleError, match="cycle"):
        bundle(entry)


@pytest.mark.parametrize("line", ["export { a };", "export default 1;", 'import * as m from "./a.js";'])
def test_syntax_it_does_not_handle_is_refused(tmp_path: Path, line: str) -> None:
    entry = write(tmp_path, {"main.js": f"const a = 1;\n{line}\n", "a.js": "export const a = 1;\n"})
    with pytest.raises(BundleError, match="does not handle"):
        bundle(entry)


def test_the_real_calculator_bundles() -> None:
    text = bundle(REPO / "docs" / "javascripts" / "calculator.js")
    # calculator.js, messages.js (the message tables' fill) and every engine module the calculator
    # uses; video.js is the video-diffusion engine, which the calculator has no workload for yet (#19)
    # and which only the parity tests import
    not_in_calculator = {"video.js"}
    modules = {p.name for p in (REPO / "docs" / "javascripts" / "engine").glob("*.js")}
    assert not_in_calculator <= modules
    assert text.count("// ---- ") == 2 + len(modules - not_in_calculator)
    assert "// ---- engine/video.js" not in text


def test_a_module_the_comment_lexer_cannot_read_is_refused_by_name_and_line(tmp_path: Path) -> None:
    entry = write(
        tmp_path, {"main.js": 'import { a } from "./a.js";\n', "a.js": 'export const a = 1;\nconst b = "open;\n'}
    )
    with pytest.raises(BundleError, match=r"^a\.js: line 2: a string is not closed on its line$"):
        bundle(entry)
