"""A griffe extension: the docstrings' reStructuredText as the API reference renders it.

The package's docstrings are numpydoc, with Sphinx roles (``:class:`~sparsegp.X```)
and ``.. math::`` directives, so that ``help()`` reads well. mkdocstrings renders
Markdown, where both would show raw. When the package is loaded for the site, each
role becomes an optional cross-reference (a link where the site documents the target,
code otherwise) and each directive a display-maths block for MathJax
(``pymdownx.arithmatex``). Configured in ``mkdocs.yml``.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

#: ``:role:`target``` or ``:role:`~target```.
ROLE = re.compile(r":(?:class|func|meth|mod|attr|data|exc|obj):`(~?)([\w.]+)(\(\))?`")
#: ``.. math:: first line`` and its indented continuation lines.
MATH = re.compile(
    r"^(?P<indent> *)\.\. math::(?P<body>.*(?:\n(?P=indent) {2,}\S.*)*)", re.M
)


def _identifier(target: str, obj: griffe.Object, loader: griffe.GriffeLoader) -> str:
    """The full path of ``target`` as the docstring of ``obj`` means it: as written, or
    relative to the object's class, its module or the package."""
    scopes = [obj.parent.path if obj.parent else "", obj.module.path, "sparsegp"]
    candidates = [target] + [f"{scope}.{target}" for scope in scopes if scope]
    for candidate in candidates:
        try:
            loader.modules_collection.get_member(candidate)
        except (KeyError, ValueError, AttributeError):
            continue
        return candidate
    return target


def restructuredtext_to_markdown(
    text: str, obj: griffe.Object, loader: griffe.GriffeLoader
) -> str:
    """``text`` with its roles as optional autorefs and its math directives as ``$$``."""

    def role(match: re.Match) -> str:
        short, target, call = match.group(1), match.group(2), match.group(3) or ""
        title = target.rsplit(".", 1)[-1] if short else target
        identifier = _identifier(target, obj, loader)
        return f'<autoref identifier="{identifier}" optional><code>{title}{call}</code></autoref>'

    def maths(match: re.Match) -> str:
        indent = match.group("indent")
        body = " ".join(line.strip() for line in match.group("body").splitlines())
        return f"{indent}$$\n{indent}{body}\n{indent}$$"

    return ROLE.sub(role, MATH.sub(maths, text))


class RestructuredText(griffe.Extension):
    """Rewrite every docstring by :func:`restructuredtext_to_markdown` once the
    package's object tree is complete (so that relative targets resolve)."""

    def on_object(
        self, *, obj: griffe.Object, loader: griffe.GriffeLoader, **kwargs: Any
    ) -> None:
        if obj.docstring is not None:
            obj.docstring.value = restructuredtext_to_markdown(
                obj.docstring.value, obj, loader
            )
