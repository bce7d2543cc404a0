"""mkdocs hook: MathJax served with the site, not from a CDN.

The pages' maths is typeset by MathJax 3 in the reader's browser; loaded from a CDN it
shows as raw TeX offline, behind a firewall or on a machine with no network. The
``django-static-mathjax`` wheel (no dependencies; Django is not needed) ships
MathJax's files: its ``tex-mml-chtml`` component and the CommonHTML fonts, which
MathJax looks for beside the component, are copied into the built site.
"""

import shutil
from pathlib import Path

#: Where the pages load MathJax from, relative to the site (``extra_javascript``).
TARGET = Path("javascripts") / "mathjax"


def on_post_build(config, **kwargs):
    """Copy MathJax's component and fonts into ``site_dir/javascripts/mathjax``."""
    import mathjax  # django-static-mathjax, in the docs and test extras

    source = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5"
    target = Path(config["site_dir"]) / TARGET
    fonts = Path("output") / "chtml" / "fonts" / "woff-v2"
    (target / fonts).mkdir(parents=True, exist_ok=True)
    shutil.copy2(source / "tex-mml-chtml.js", target / "tex-mml-chtml.js")
    for font in (source / fonts).glob("*.woff"):
        shutil.copy2(font, target / fonts / font.name)
