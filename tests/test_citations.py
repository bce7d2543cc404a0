"""Every citation resolves inside the repository.

Papers are cited by the keys of ``docs/references.md`` (``[NGH07] eq. 9``), the
mathematics as implemented by ``algorithms.md §x.y`` (``docs/algorithms.md``); nothing
points at the design notes or the seed texts the repository does not contain.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
TEXTS = sorted(
    [
        *ROOT.glob("src/sparsegp/**/*.py"),
        *ROOT.glob("benchmarks/**/*.py"),
        *ROOT.glob("benchmarks/*.md"),
        *ROOT.glob("tests/**/*.py"),
        *DOCS.glob("*.md"),
        *ROOT.glob("*.md"),
    ]
)
TEXTS = [path for path in TEXTS if path != Path(__file__).resolve()]

#: The design notes and seed files live beside the repository, not in it; bare seed
#: numbers ("004 eq. 3", "002's") are how they used to be cited.
OUTSIDE = re.compile(
    r"ALGORITHMS\.md|shared/(design|seeds)|\b[Ss]eed 00\d"
    r"|(?<!\d )(?<![\d\w.])00[0-4](?='s| (eqs?\.|§|Fig|Table|fn))"
)
KEY = re.compile(r"\[([A-Z][A-Za-zÖ]{1,3}\d\d)\]")
SECTIONS = re.compile(r"algorithms\.md\s+(§[\d.]+(?:[-–][\d.]+)?(?:,\s*§[\d.]+)*)")


def defined_keys():
    return set(
        re.findall(r"^\| \[([^\]]+)\] \|", (DOCS / "references.md").read_text(), re.M)
    )


def defined_sections():
    headings = re.findall(
        r"^#{2,3} (\d+(?:\.\d+)?)\.? ", (DOCS / "algorithms.md").read_text(), re.M
    )
    return set(headings)


def cited_sections(text):
    for group in SECTIONS.findall(text):
        for number in re.findall(r"\d+(?:\.\d+)?", group):
            yield number.rstrip(".")


@pytest.mark.parametrize("path", TEXTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_citations_resolve_inside_the_repository(path):
    text = path.read_text(encoding="utf-8")
    outside = [m.group(0) for m in OUTSIDE.finditer(text)]
    assert not outside, f"citations of files outside the repository: {outside}"
    unknown_keys = set(KEY.findall(text)) - defined_keys()
    assert not unknown_keys, f"keys not in docs/references.md: {unknown_keys}"
    unknown = set(cited_sections(text)) - defined_sections()
    assert not unknown, f"sections not in docs/algorithms.md: {unknown}"


def test_algorithms_page_cross_references_resolve():
    text = (DOCS / "algorithms.md").read_text()
    cited = {n.rstrip(".") for n in re.findall(r"§(\d+(?:\.\d+)?)", text)}
    assert cited <= defined_sections(), cited - defined_sections()


def test_the_checker_catches_what_it_should():
    assert OUTSIDE.search("see ALGORITHMS.md §5") and OUTSIDE.search("(004 eq. 3)")
    assert OUTSIDE.search("as 002's baseline") and OUTSIDE.search("seed 001")
    assert not OUTSIDE.search("n = 1 004 points") and not OUTSIDE.search("tol 0.001")
    assert "5.3" in set(cited_sections("(algorithms.md §5.3)"))
    assert {"1.2", "1.5"} <= set(cited_sections("algorithms.md §1.2-1.5"))
