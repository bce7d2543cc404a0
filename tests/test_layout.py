"""The architecture CONTRIBUTING.md describes, checked: layers, names, function size."""

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[1] / "src" / "sparsegp"
MODULES = sorted(SOURCE.rglob("*.py"))

#: Lines a function may span, signature, docstring, blank lines and comments included.
MAX_FUNCTION_LINES = 60


def function_lines(function):
    start = min([d.lineno for d in function.decorator_list] + [function.lineno])
    return function.end_lineno - start + 1


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SOURCE)))
def test_functions_stay_short(path):
    long = [
        (node.name, function_lines(node))
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and function_lines(node) > MAX_FUNCTION_LINES
    ]
    assert not long


def imported_modules(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            yield "." * node.level + node.module


@pytest.mark.parametrize(
    "path",
    sorted((SOURCE / "approximations").glob("*.py"))
    + sorted((SOURCE / "methods").glob("*.py")),
    ids=lambda p: f"{p.parent.name}/{p.name}",
)
def test_engines_and_methods_never_import_estimators(path):
    """The layers of CONTRIBUTING.md: estimators call methods, methods call engines."""
    assert not [m for m in imported_modules(path) if "estimators" in m]


@pytest.mark.parametrize(
    "path", sorted((SOURCE / "approximations").glob("*.py")), ids=lambda p: p.name
)
def test_engines_never_import_methods(path):
    assert not [m for m in imported_modules(path) if "methods" in m]


#: The public estimator modules: scikit-learn shells, each over its method.
PUBLIC_ESTIMATORS = {
    p.stem for p in (SOURCE / "estimators").glob("*.py") if not p.name.startswith("_")
}


@pytest.mark.parametrize(
    "path",
    sorted(p for p in (SOURCE / "estimators").glob("*.py") if p.name != "__init__.py"),
    ids=lambda p: p.name,
)
def test_no_estimator_module_imports_another(path):
    """A recipe one estimator shares with another lives in ``methods/``: no module of
    ``estimators/`` (``_base`` and the private wrappers included) imports a public
    estimator module but its own."""
    imported = {m.rsplit(".", 1)[-1] for m in imported_modules(path)}
    assert not imported & (PUBLIC_ESTIMATORS - {path.stem})


#: What an estimator may take from the engines besides their types: its fit's thread
#: pool and how it combines its binary models' predictions.
ENGINE_PLUMBING = {"thread_pool", "class_log_probabilities"}


def engine_functions_imported(path):
    """The functions an estimator module imports from ``approximations`` beyond
    :data:`ENGINE_PLUMBING`, and any import of the optimizer: a fitting recipe's
    parts, which belong in ``methods/``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.ImportFrom) or not node.module:
            continue
        if node.module.endswith("_optimize"):
            found.append(node.module)
        elif node.module.startswith("approximations"):
            found += [
                alias.name
                for alias in node.names
                if not alias.name[0].isupper() and alias.name not in ENGINE_PLUMBING
            ]
    return found


@pytest.mark.parametrize(
    "path",
    sorted(p for p in (SOURCE / "estimators").glob("*.py") if p.name != "__init__.py"),
    ids=lambda p: p.name,
)
def test_no_estimator_module_builds_a_fitting_recipe(path):
    """Estimators read parameters and call a method (CONTRIBUTING.md, "Layers"): no
    optimizer, selection, EM or evidence function of the engines in them."""
    assert not engine_functions_imported(path)


def test_the_recipe_check_finds_an_engine_function(tmp_path):
    recipe = tmp_path / "recipe.py"
    recipe.write_text(
        "from ..approximations.ivm import select_active_set\n"
        "from .._optimize import maximize\n"
        "from ..approximations.blocks import thread_pool\n"
        "from ..approximations.evidence import EvidenceSettings\n"
    )
    assert engine_functions_imported(recipe) == ["select_active_set", "_optimize"]


def _module_name(path):
    parts = list(path.relative_to(SOURCE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph():
    """``{module: modules of the package it imports}``, local and ``TYPE_CHECKING``
    imports included; ``from . import x`` counts as importing ``x`` where ``x`` is a
    module."""
    modules = {_module_name(path): path for path in MODULES}
    graph = {}
    for name, path in modules.items():
        package = name.split(".")[: None if path.name == "__init__.py" else -1]
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                target = node.module or ""
                if node.level:
                    base = package[: len(package) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                inner = [f"{target}.{alias.name}" for alias in node.names]
                inner = [module for module in inner if module in modules]
                found |= set(inner) if len(inner) == len(node.names) else {target}
        graph[name] = {module for module in found if module in modules} - {name}
    return graph


def left_in_circles(graph):
    """The modules that cannot be ordered so that each comes after what it imports
    (Kahn's algorithm): those on an import circle, and those that only a circle's
    modules import. Empty for a graph without circles."""
    importers = {module: 0 for module in graph}
    for imported in graph.values():
        for module in imported:
            importers[module] += 1
    free = [module for module, count in importers.items() if count == 0]
    while free:
        for module in graph[free.pop()]:
            importers[module] -= 1
            if importers[module] == 0:
                free.append(module)
    return {module for module, count in importers.items() if count > 0}


def test_no_import_circle():
    """A circle needs a local import to break it at run time, and ties the modules'
    order to whichever is imported first."""
    assert not left_in_circles(import_graph())


def test_the_circle_check_finds_a_circle():
    assert left_in_circles({"a": {"b"}, "b": {"c"}, "c": {"b"}}) == {"b", "c"}
    assert not left_in_circles({"a": {"b", "c"}, "b": {"c"}, "c": set()})


def test_estimator_modules_do_not_share_an_engines_name():
    engines = {p.stem for p in (SOURCE / "approximations").glob("*.py")}
    estimators = {p.stem for p in (SOURCE / "estimators").glob("*.py")}
    assert engines & estimators == {"__init__"}


#: scikit-learn's GP estimators, which no estimator of the package builds either.
SKLEARN_GPS = {"GaussianProcessClassifier", "GaussianProcessRegressor"}

#: Estimator modules that still fit another estimator inside their own: none (one
#: method composes another through the approximation protocol).
STILL_BUILD_ESTIMATORS: set[str] = set()


def estimators_built(path, names):
    """The estimator classes ``names`` called in ``path``, other than its own."""
    tree = ast.parse(path.read_text())
    own = {node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if name in names and name not in own:
                yield name


@pytest.mark.parametrize(
    "path", sorted((SOURCE / "estimators").glob("*.py")), ids=lambda p: p.name
)
def test_no_estimator_module_builds_another_estimator(path):
    import sparsegp

    names = set(sparsegp.__all__) | SKLEARN_GPS
    built = set(estimators_built(path, names))
    if path.name in STILL_BUILD_ESTIMATORS:
        assert built, f"{path.name} no longer builds one: drop it from the list"
    else:
        assert not built


def test_one_fitted_model_class():
    classes = {
        node.name
        for folder in ("estimators", "methods")
        for path in (SOURCE / folder).glob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ClassDef) and node.name.endswith("Model")
    }
    assert classes == {"FittedModel"}


#: Modules whose functions are linear algebra: the engines' business, not the


def predictor_definitions():
    """``(module, class or function, returns)`` for every predictor builder in
    ``src``: each ``predictor``/``*_predictor`` function and each class that
    predicts latent moments itself."""
    found = []
    for path in MODULES:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and any(
                isinstance(item, ast.FunctionDef)
                and item.name == "latent_mean_and_variance"
                and item.args.args[1:]
                and item.args.args[1].arg == "K_cross"
                for item in node.body
            ):
                found.append((path.stem, node.name, "class"))
            if isinstance(node, ast.FunctionDef) and (
                node.name == "predictor" or node.name.endswith("_predictor")
            ):
                returns = ast.unparse(node.returns) if node.returns else None
                found.append((path.stem, node.name, returns))
    return found


def test_every_engine_returns_the_one_predictor_type():
    definitions = predictor_definitions()
    assert ("predictor", "Predictor", "class") in definitions
    others = [d for d in definitions if d != ("predictor", "Predictor", "class")]
    assert len(others) >= 8  # every engine builds one
    wrong = [d for d in others if "Predictor" not in (d[2] or "")]
    assert not wrong, f"engines predicting in a form of their own: {wrong}"


#: estimators' (CONTRIBUTING.md, "Layers").
LINEAR_ALGEBRA = ("_linalg", "linalg", "scipy.linalg", "numpy.linalg")


@pytest.mark.parametrize(
    "path", sorted((SOURCE / "estimators").glob("*.py")), ids=lambda p: p.name
)
def test_no_linear_algebra_in_estimators(path):
    imported = [m for m in imported_modules(path) if m.split(".")[-1] in LINEAR_ALGEBRA]
    tree = ast.parse(path.read_text())
    calls = [
        ast.unparse(node)
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr == "linalg"
    ]
    assert not imported and not calls


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SOURCE)))
def test_docstrings_state_facts_not_runs(path):
    """Measurements live in BENCHMARKS.md, made from the saved runs; a docstring that
    cites one goes stale with the next run."""
    if path.name == "cli.py":  # the ``benchmark`` command re-runs its tables
        return
    assert "BENCHMARKS.md" not in path.read_text()


#: What a measurement looks like in prose: a date, a time in seconds, an error rate.
MEASUREMENTS = {
    "a date": re.compile(r"\b20\d\d-\d\d-\d\d\b"),
    "seconds": re.compile(r"\b\d+(?:\.\d+)?(?:[-–]\d+(?:\.\d+)?)? ?m?s\b(?![\w(])"),
    "an error rate": re.compile(
        r"\b\d+(?:\.\d+)? ?%.{0,40}\berror|\berror\b.{0,40}\d ?%"
    ),
}


def comments_and_docstrings(source):
    """``(line, text)`` of every comment and every line of every docstring."""
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    for node in ast.walk(ast.parse(source)):
        if isinstance(
            node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef
        ) and (docstring := ast.get_docstring(node, clean=False)):
            first = node.body[0].lineno
            for offset, line in enumerate(docstring.splitlines()):
                yield first + offset, line


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SOURCE)))
def test_comments_give_reasons_not_measurements(path):
    """A number measured once goes stale with the next run: it lives in docs/ (cited by
    section), the code's text gives the reason."""
    found = [
        (line, kind, text.strip())
        for line, text in comments_and_docstrings(path.read_text())
        for kind, pattern in MEASUREMENTS.items()
        if pattern.search(text)
    ]
    assert not found


def test_the_measurement_patterns_find_measurements():
    source = (
        '"""Fits in 12.5 s."""\n'
        "# 2 of 10 fits ended at 32.4 % test error (2026-11-28)\n"
        "x = 1  # the central 95 % interval, O(n·d²) flops, 2·b·M² of them\n"
    )
    kinds = {
        kind
        for _, text in comments_and_docstrings(source)
        for kind, pattern in MEASUREMENTS.items()
        if pattern.search(text)
    }
    assert kinds == set(MEASUREMENTS)
    assert not any(
        pattern.search("the central 95 % interval, O(n·d²) flops, 2·b·M² of them")
        for pattern in MEASUREMENTS.values()
    )


def _kernel_class_names():
    import inspect

    from sklearn.gaussian_process import kernels

    return {
        name
        for name, value in vars(kernels).items()
        if inspect.isclass(value) and issubclass(value, kernels.Kernel)
    }


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SOURCE)))
def test_only_kernel_expression_tells_kernel_classes_apart(path):
    """Every kernel path reads a kernel through ``kernel_expression.parse``, so they
    all accept the same kernels (CONTRIBUTING.md)."""
    if path.name == "kernel_expression.py":
        return
    names = _kernel_class_names()

    def named(node):
        """Kernel classes named in ``node``: bare, or as ``kernels.X`` / ``sk.X``."""
        found = set()
        for n in ast.walk(node):
            if isinstance(n, ast.Name):
                found.add(n.id)
            elif isinstance(n, ast.Attribute) and getattr(n.value, "id", "") in {
                "kernels",
                "sk",
            }:
                found.add(n.attr)
        return found & names

    tests = [
        ast.unparse(node)
        for node in ast.walk(ast.parse(path.read_text()))
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", "") == "isinstance"
            and named(node.args[1])
        )
        or (
            isinstance(node, ast.Compare)
            and any(isinstance(op, ast.Is | ast.IsNot) for op in node.ops)
            and any(named(c) for c in node.comparators)
        )
    ]
    assert not tests
