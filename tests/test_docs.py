"""The documentation site builds with ``mkdocs build --strict`` (broken links, missing
pages and unresolvable API references fail) and documents every public estimator."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import sparsegp

ROOT = Path(__file__).resolve().parents[1]


def test_docs_build_strictly_with_every_estimator(tmp_path):
    site = tmp_path / "site"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "--site-dir",
            str(site),
            "--config-file",
            str(ROOT / "mkdocs.yml"),
        ],
        capture_output=True,
        text=True,
        env=os.environ | {"NO_MKDOCS_2_WARNING": "1"},
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    api = (site / "api" / "index.html").read_text(encoding="utf-8")
    for name in sparsegp.__all__:
        assert f'id="sparsegp.{name}"' in api, name
    assert "active_set_size" in api and "load_model" in api
    # the docstrings' Sphinx roles and maths rendered (docs/griffe_restructuredtext.py)
    assert not re.search(r":(class|func|meth|mod|attr|data|exc):`", api)
    assert ".. math::" not in api and 'class="arithmatex"' in api
    for name in sparsegp.__all__:
        if name.endswith("Classifier"):
            for method in ("predict_proba", "latent_mean_and_variance", "fit"):
                assert f'id="sparsegp.{name}.{method}"' in api, (name, method)
    for type_cell in returns_types(api):  # types, not half sentences or raw markup
        assert "``" not in type_cell and not re.search(r"\b(when|else)\b", type_cell)
    # maths typeset with no network: MathJax and its fonts served with the site
    assert not re.search(r'<script[^>]+src="https?:', api)
    mathjax = site / "javascripts" / "mathjax"
    assert (mathjax / "tex-mml-chtml.js").stat().st_size > 100_000
    assert list((mathjax / "output" / "chtml" / "fonts" / "woff-v2").glob("*.woff"))
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser:  # where a browser is installed: the API page's maths, typeset offline
        dom = subprocess.run(
            [
                browser,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--virtual-time-budget=8000",
                "--dump-dom",
                (site / "api" / "index.html").as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        ).stdout
        assert "<mjx-container" in dom


def returns_types(api):
    """The Type cell of every row of every Returns table of the built API page."""
    tables = re.findall(
        r'doc-section-title">Returns:</span>.*?</table>', api, flags=re.DOTALL
    )
    assert tables, "no Returns tables on the API page"
    cells = []
    for table in tables:
        column = re.findall(r"<th>(.*?)</th>", table).index("Type")
        for row in re.findall(r'<tr class="doc-section-item">(.*?)</tr>', table, re.S):
            cells.append(re.findall(r"<td>(.*?)</td>", row, re.DOTALL)[column])
    return cells


def test_every_example_of_the_docs_runs(capsys):
    """The code blocks of ``docs/examples.md``, run in order, each in a fresh namespace."""
    text = (ROOT / "docs" / "examples.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    assert len(blocks) == 7
    for block in blocks:
        exec(compile(block, "docs/examples.md", "exec"), {})
    printed = capsys.readouterr().out
    assert printed.count("error ") == 4
    assert printed.count("latent [") == 2  # the multi-class example's per-class bars
    assert "relevance vectors" in printed and "basis vectors" in printed
