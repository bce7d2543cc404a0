"""``python -m benchmarks list | run SCRIPT [ARGS...] | gate ESTIMATOR [ARGS...] | table
KEY [--dry-run] | markdown | compare RUN --against REV``.

Run from the repository root. ``run`` executes one script of the paper folders as
``__main__`` with ``ARGS`` (its results record the command); ``table`` runs the commands
of one paper table of BENCHMARKS.md (``benchmarks/_lib/tables.py``), each in a fresh
interpreter, stopping at the first failure. ``gate`` runs the defaults gate
(``across_methods/gate.py``: a candidate default against the current one over every
public set; CONTRIBUTING.md's rule). ``markdown`` writes BENCHMARKS.md from the
saved runs (``benchmarks/_lib/claims.py``); ``--check`` only says whether it is current.
``compare`` sets a saved run beside its version at a git revision
(``benchmarks/_lib/compare.py``).
"""

import argparse
import pkgutil
import runpy
import shlex
import subprocess
import sys
from pathlib import Path

from benchmarks._lib.claims import document
from benchmarks._lib.compare import report
from benchmarks._lib.tables import TABLES

PACKAGE = Path(__file__).parent


def scripts():
    """``{name: module}`` of every script in the paper folders (names are unique)."""
    found = {}
    for folder in sorted(p for p in PACKAGE.iterdir() if (p / "__init__.py").exists()):
        if folder.name.startswith("_"):
            continue
        for info in pkgutil.iter_modules([str(folder)]):
            if info.name in found:
                raise RuntimeError(f"two benchmark scripts are named {info.name!r}")
            found[info.name] = f"benchmarks.{folder.name}.{info.name}"
    return found


def summary(module):
    """First line of a script's docstring."""
    path = PACKAGE.joinpath(*module.split(".")[1:]).with_suffix(".py")
    source = path.read_text()
    docstring = source.split('"""')[1] if source.startswith('"""') else ""
    return docstring.strip().splitlines()[0] if docstring.strip() else ""


def list_scripts():
    for name, module in scripts().items():
        folder = module.split(".")[1]
        print(f"{folder:15s} {name:18s} {summary(module)}")
    print("\ntables (python -m benchmarks table KEY):")
    for key, (title, _) in TABLES.items():
        print(f"  {key:18s} {title}")


def run(name, arguments):
    """Run script ``name`` as ``__main__`` with ``arguments``."""
    modules = scripts()
    if name not in modules:
        raise SystemExit(
            f"no benchmark script {name!r}; python -m benchmarks list shows them"
        )
    sys.argv = [f"python -m benchmarks run {name}", *arguments]
    sys.modules.pop(modules[name], None)  # imported before (tests): run it afresh
    runpy.run_module(modules[name], run_name="__main__", alter_sys=True)


def table(key, dry_run=False):
    """Run (or print) the commands of paper table ``key``."""
    if key not in TABLES:
        raise SystemExit(f"no table {key!r}; known: {', '.join(TABLES)}")
    title, commands = TABLES[key]
    print(f"# {key}: {title}")
    for command in commands:
        print("python -m benchmarks run " + shlex.join(command), flush=True)
        if not dry_run:
            subprocess.run(
                [sys.executable, "-m", "benchmarks", "run", *command], check=True
            )


def markdown(check=False):
    """Write BENCHMARKS.md from the saved runs, or (``check``) fail if it differs."""
    text = document()
    path = PACKAGE.parent / "BENCHMARKS.md"
    if check:
        if path.read_text() != text:
            raise SystemExit(
                "BENCHMARKS.md is not current: python -m benchmarks markdown"
            )
        return
    path.write_text(text)
    print(f"{path}: {len(text.splitlines())} lines")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="the scripts by paper folder, and the tables")
    runner = commands.add_parser("run", help="run one script")
    runner.add_argument("script")
    runner.add_argument("arguments", nargs=argparse.REMAINDER)
    gate = commands.add_parser(
        "gate", help="a candidate default against the current one (gate.py)"
    )
    gate.add_argument("arguments", nargs=argparse.REMAINDER)
    tables = commands.add_parser(
        "table", help="re-run one paper table of BENCHMARKS.md"
    )
    tables.add_argument("key", choices=sorted(TABLES))
    tables.add_argument(
        "--dry-run", action="store_true", help="print the commands only"
    )
    writer = commands.add_parser(
        "markdown", help="write BENCHMARKS.md from the saved runs"
    )
    writer.add_argument(
        "--check", action="store_true", help="fail if BENCHMARKS.md is not current"
    )
    comparer = commands.add_parser(
        "compare", help="a saved run against its version at a git revision"
    )
    comparer.add_argument("run", help="the name of benchmarks/results/RUN.json")
    comparer.add_argument("--against", default="HEAD", help="git revision")
    comparer.add_argument("--key", nargs="+", default=["estimator", "dataset"])
    comparer.add_argument("--metrics", nargs="+", default=["error", "nlp"])
    args = parser.parse_args(argv)
    if args.command == "list":
        list_scripts()
    elif args.command == "run":
        run(args.script, args.arguments)
    elif args.command == "gate":
        run("gate", args.arguments)
    elif args.command == "markdown":
        markdown(args.check)
    elif args.command == "compare":
        report(args.run, args.against, args.key, args.metrics)
    else:
        table(args.key, args.dry_run)


if __name__ == "__main__":
    main()
