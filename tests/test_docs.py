"""The documentation is self-contained: every theory reference resolves inside the repository.

* no shipped file points at the private specification the theory page replaced, or at a
  directory outside the repository;
* every ``docs/theory.md (x)`` reference in code, CLI output, notebooks, tests and derivations
  names a section anchor that exists in ``docs/theory.md``;
* every relative Markdown link of ``docs/*.md`` and ``README.md`` points at an existing file.
"""
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
THEORY = ROOT / "docs" / "theory.md"
SKIP_DIRS = {".git", "__pycache__", ".ipynb_checkpoints", ".pytest_cache", "build", "dist", "site"}
TEXT_SUFFIXES = {".py", ".md", ".ipynb", ".toml", ".txt", ".cfg", ".json", ".yml", ".yaml", ".rst"}
# spelled in pieces so that this file does not match itself
FORBIDDEN = ["MATH" + ".md", "../" + "shared", "/work/" + "shared"]
REF = re.compile(r"docs/theory\.md \(([a-l](?:\.\d+)*)\)((?:,\s*\([a-l](?:\.\d+)*\))*)")


def shipped_files():
    for dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.endswith(".egg-info")]
        for name in filenames:
            path = Path(dirpath) / name
            if path.suffix in TEXT_SUFFIXES:
                yield path


def anchors():
    return set(re.findall(r'<a id="([^"]+)"></a>', THEORY.read_text(encoding="utf-8")))


def test_the_files_are_found():
    names = {p.relative_to(ROOT).as_posix() for p in shipped_files()}
    assert {"README.md", "docs/theory.md", "srfsym/symbolic/hermite.py", "tests/test_docs.py"} <= names
    assert any(n.startswith("notebooks/") for n in names)


def test_no_reference_to_the_private_specification():
    offenders = []
    for path in shipped_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for bad in FORBIDDEN:
            if bad in text:
                offenders.append(f"{path.relative_to(ROOT)}: {bad}")
    assert offenders == []


def test_theory_page_has_every_section_letter():
    ids = anchors()
    assert set("abcdefghijkl") <= ids
    assert {"j.3", "j.5", "k.7.4", "l.4", "departures", "open"} <= ids


def test_every_theory_reference_resolves():
    ids = anchors()
    found, missing = 0, []
    for path in shipped_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in REF.finditer(text):
            labels = [match.group(1)] + re.findall(r"\(([a-l](?:\.\d+)*)\)", match.group(2))
            for label in labels:
                found += 1
                if label not in ids:
                    missing.append(f"{path.relative_to(ROOT)}: ({label})")
    assert found > 50          # the code, tests and derivations do cite the page
    assert missing == []


@pytest.mark.parametrize("page", ["README.md", "docs/theory.md", "docs/bounds.md",
                                  "docs/vocabulary.md", "docs/index.md"])
def test_relative_links_resolve(page):
    text = (ROOT / page).read_text(encoding="utf-8")
    base = (ROOT / page).parent
    ids = anchors()
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+://", target):
            continue
        file_part, _, frag = target.partition("#")
        if file_part:
            assert (base / file_part).exists(), f"{page}: broken link {target}"
        elif frag:
            assert page == "docs/theory.md" and frag in ids, f"{page}: broken anchor {target}"


def test_mkdocs_site_builds_strict(tmp_path):
    """The documentation site (theory with rendered math, bounds, API from the docstrings)
    builds without a single warning (``mkdocs build --strict``)."""
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    pytest.importorskip("mkdocstrings")
    import subprocess
    import sys
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1",
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    # exactly as the README says: no -q (which hides the warnings from --strict's count)
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                           "-d", str(tmp_path / "site")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-3000:]
    assert "WARNING" not in log and "Aborted" not in log, log[-3000:]
    assert "Documentation built" in log
    theory = (tmp_path / "site" / "theory" / "index.html").read_text(encoding="utf-8")
    assert theory.count('class="arithmatex"') > 100          # the math is rendered by MathJax
    assert all(f'id="{label}"' in theory for label in ("a", "j.3", "k.7.4", "l.4"))
    api = (tmp_path / "site" / "api" / "index.html").read_text(encoding="utf-8")
    assert "hermite_constants" in api and "second_moment" in api
