"""The command line end to end: ``demo`` on the shipped data, ``fit``/``predict``/
``evaluate`` on files as users have them."""

import csv
import io
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file, load_iris, make_friedman1, make_moons

from sparsegp import IVMClassifier, __version__
from sparsegp.cli import build_parser, main
from sparsegp.datasets import load_file
from sparsegp.persistence import load_model


def test_demo_prints_table_and_writes_png(tmp_path, capsys):
    out = tmp_path / "demo.png"
    main(["demo", "--out", str(out), "--n-train", "120"])
    printed = capsys.readouterr().out
    for name in (
        "EPGPClassifier",
        "IVMClassifier (d=100)",
        "FITCGPClassifier (M=20)",
        "SparseOnlineGPClassifier (d=80)",
    ):
        assert f"| banana | {name} | " in printed
    assert "runs" not in printed and "±" not in printed
    for name in ("SparseGPRegressor", "IVMRegressor", "RVMRegressor"):
        assert f"| {name} | " in printed
    assert "Next: fit your own data" in printed
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_demo_lists_the_fits_warnings_after_its_table(monkeypatch, capsys):
    """A warning a demo fit gives is printed once, after the table, with the
    estimator's name, rather than through the progress bar (and none escapes)."""
    from sparsegp import RVMClassifier

    monkeypatch.setattr(
        "sparsegp.cli.demo_estimators",
        lambda n_features: {"RVM, one EM step": RVMClassifier(max_iter=1)},
    )
    main(["demo", "--n-train", "120", "--no-plot"])
    printed = capsys.readouterr().out
    table, notes = printed.split("Warnings:")
    assert "| banana | RVM, one EM step | " in table
    assert notes.count("RVM, one EM step: ConvergenceWarning: RVM EM did not") == 1


def _write_csv(path, header, rows):
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)


@pytest.fixture
def labelled_csv(tmp_path):
    """Two moons with string labels in a middle column, split into two files."""
    X, y = make_moons(260, noise=0.2, random_state=0)
    labels = np.where(y == 1, "yes", "no")
    header = ["a", "outcome", "b"]
    rows = [[x0, label, x1] for (x0, x1), label in zip(X, labels, strict=True)]
    _write_csv(tmp_path / "train.csv", header, rows[:200])
    _write_csv(tmp_path / "test.csv", header, rows[200:])
    return tmp_path, X, labels


def test_version(capsys):
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.strip() == f"sparsegp {__version__}"


def test_fit_predict_evaluate_a_csv_with_string_labels(labelled_csv, capsys):
    folder, X, labels = labelled_csv
    model_file = folder / "model.skops"
    main(
        [
            "fit",
            str(folder / "train.csv"),
            "--model",
            "ivm",
            "--target",
            "outcome",
            "--param",
            "active_set_size=40",
            "--param",
            "random_state=0",
            "--output",
            str(model_file),
        ]
    )
    assert "IVMClassifier fitted on 200 samples × 2 features" in capsys.readouterr().out
    model = load_model(model_file)
    expected = IVMClassifier(active_set_size=40, random_state=0).fit(
        X[:200], labels[:200]
    )
    np.testing.assert_allclose(
        model.predict_proba(X[200:]), expected.predict_proba(X[200:])
    )

    predictions = folder / "predictions.csv"
    main(
        [
            "predict",
            str(model_file),
            str(folder / "test.csv"),
            "--target",
            "outcome",
            "--output",
            str(predictions),
        ]
    )
    with open(predictions, newline="") as handle:
        table = list(csv.DictReader(handle))
    assert list(table[0]) == [
        "prediction",
        "proba_no",
        "proba_yes",
        "latent_mean",
        "latent_std",
    ]
    proba = np.array([[float(r["proba_no"]), float(r["proba_yes"])] for r in table])
    np.testing.assert_allclose(proba, expected.predict_proba(X[200:]), rtol=1e-8)
    assert [r["prediction"] for r in table] == list(expected.predict(X[200:]))
    mean, var = expected.latent_mean_and_variance(X[200:])
    np.testing.assert_allclose(
        [float(r["latent_std"]) for r in table], np.sqrt(var), rtol=1e-8
    )

    main(["evaluate", str(model_file), str(folder / "test.csv"), "--target", "outcome"])
    printed = capsys.readouterr().out
    error = np.mean(expected.predict(X[200:]) != labels[200:])
    assert f"| error | {error:.4f} |" in printed
    for metric in ("NLP (nats)", "Brier score", "AUC"):
        assert f"| {metric} |" in printed


def test_regression_from_libsvm_to_joblib_and_npz(tmp_path, capsys):
    X, y = make_friedman1(300, noise=1.0, random_state=0)
    dump_svmlight_file(X[:200], y[:200], str(tmp_path / "train.svm"))
    np.savez(tmp_path / "test.npz", X=X[200:], y=y[200:])
    model_file = tmp_path / "model.joblib"
    main(
        [
            "fit",
            str(tmp_path / "train.svm"),
            "--model",
            "online",
            "--standardize",
            "--param",
            "random_state=0",
            "--output",
            str(model_file),
        ]
    )
    assert "SparseOnlineGPRegressor fitted" in capsys.readouterr().out
    main(["predict", str(model_file), str(tmp_path / "test.npz")])
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert rows[0] == ["prediction", "std"] and len(rows) == 101
    model = load_model(model_file)
    mean, std = model.predict(X[200:], return_std=True)
    np.testing.assert_allclose([float(r[0]) for r in rows[1:]], mean, rtol=1e-8)
    main(["evaluate", str(model_file), str(tmp_path / "test.npz")])
    printed = capsys.readouterr().out
    assert "| R² |" in printed and "| RMSE |" in printed
    z = np.abs(y[200:] - mean) / std
    coverage = re.search(r"\| 95 % interval coverage \| ([0-9.]+)", printed)
    assert float(coverage.group(1)) == pytest.approx(np.mean(z <= 1.96), abs=1e-3)


# iris' setosa is separable: the amplitude may end on its bound (a warning)
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_multiclass_predictions_have_error_bars_per_class(tmp_path, capsys):
    X, y = load_iris(return_X_y=True)
    _write_csv(
        tmp_path / "iris.csv",
        ["w", "x", "y", "z", "species"],
        [list(row) + [label] for row, label in zip(X, y, strict=True)],
    )
    model_file = tmp_path / "iris.skops"
    main(
        [
            "fit",
            str(tmp_path / "iris.csv"),
            "--model",
            "fitc",
            "--param",
            "n_inducing=5",
            "--output",
            str(model_file),
        ]
    )
    main(["predict", str(model_file), str(tmp_path / "iris.csv")])
    header = capsys.readouterr().out.splitlines()[1].split(",")
    assert header == ["prediction", "proba_0", "proba_1", "proba_2"] + [
        f"latent_{kind}_{k}" for k in range(3) for kind in ("mean", "std")
    ]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--model", "ep"], "does classification only"),
        (["--model", "ivm", "--target", "nope"], "No column 'nope'"),
        (["--model", "ivm", "--param", "bogus=1"], "Invalid parameter 'bogus'"),
        (["--model", "ivm", "--param", "active_set_size=-3"], "active_set_size"),
        (["--model", "ivm", "--param", "oops"], "NAME=VALUE"),
    ],
)
def test_fit_errors_name_the_problem(tmp_path, capsys, argv, message):
    X, y = make_friedman1(50, random_state=0)
    _write_csv(
        tmp_path / "d.csv",
        [f"x{j}" for j in range(10)] + ["y"],
        [list(row) + [t] for row, t in zip(X, y, strict=True)],
    )
    with pytest.raises(SystemExit) as exit_info:
        main(
            ["fit", str(tmp_path / "d.csv"), "--output", str(tmp_path / "m.skops")]
            + argv
        )
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_a_non_numeric_feature_column_is_named(tmp_path):
    _write_csv(
        tmp_path / "d.csv",
        ["colour", "size", "label"],
        [["red", 1.0, 0], ["blue", 2.0, 1]],
    )
    with pytest.raises(ValueError, match="Column 'colour' of d.csv, line 2: 'red' is"):
        load_file(tmp_path / "d.csv")


def _sparsegp(*args):
    """``python -m sparsegp ARGS`` in a subprocess; its standard output."""
    result = subprocess.run(
        [sys.executable, "-m", "sparsegp", *map(str, args)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_the_command_line_as_a_user_runs_it(tmp_path):
    """CSV with string labels and a LIBSVM file, through real subprocesses; the saved
    models, loaded in Python, give the probabilities the command line printed."""
    X, y = make_moons(240, noise=0.25, random_state=1)
    labels = np.where(y == 1, "spam", "ham")
    _write_csv(
        tmp_path / "train.csv",
        ["u", "v", "kind"],
        [[*row, label] for row, label in zip(X[:180], labels[:180], strict=True)],
    )
    _write_csv(
        tmp_path / "test.csv",
        ["u", "v", "kind"],
        [[*row, label] for row, label in zip(X[180:], labels[180:], strict=True)],
    )
    dump_svmlight_file(X[:180], y[:180], str(tmp_path / "train.svm"))
    dump_svmlight_file(X[180:], y[180:], str(tmp_path / "test.svm"))
    for train, test, model in [
        ("train.csv", "test.csv", "csv.skops"),
        ("train.svm", "test.svm", "svm.skops"),
    ]:
        _sparsegp(
            "fit",
            tmp_path / train,
            "--model",
            "fitc",
            "--param",
            "n_inducing=6",
            "--param",
            "random_state=0",
            "--output",
            tmp_path / model,
        )
        printed = _sparsegp("predict", tmp_path / model, tmp_path / test)
        table = list(csv.DictReader(io.StringIO(printed)))
        loaded = load_model(tmp_path / model)
        proba = loaded.predict_proba(X[180:])
        columns = [f"proba_{label}" for label in loaded.classes_]
        np.testing.assert_allclose(
            [[float(row[c]) for c in columns] for row in table], proba, rtol=1e-8
        )
        report = _sparsegp("evaluate", tmp_path / model, tmp_path / test)
        error = np.mean(
            loaded.predict(X[180:]) != (labels if train.endswith("csv") else y)[180:]
        )
        assert f"| error | {error:.4f} |" in report


def test_benchmark_prints_a_paper_tables_commands_from_the_repository():
    repository = Path(__file__).resolve().parents[1]
    printed = _sparsegp(
        "benchmark", "NGH07-table-1", "--dry-run", "--repository", repository
    )
    lines = printed.splitlines()
    assert lines[0].startswith("# NGH07-table-1")
    assert lines[-1].startswith("python -m benchmarks run report_fitc")


def test_benchmark_outside_a_clone_says_where_to_run_it(tmp_path, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["benchmark", "NGH07-table-1", "--repository", str(tmp_path)])
    assert stopped.value.code == 2
    assert "clone of the sparsegp repository" in capsys.readouterr().err


def test_benchmark_of_an_unknown_table_fails_with_the_known_keys(capfd):
    repository = Path(__file__).resolve().parents[1]
    with pytest.raises(SystemExit) as stopped:
        main(["benchmark", "no-such-table", "--repository", str(repository)])
    assert stopped.value.code == 2
    assert "NGH07-table-1" in capfd.readouterr().err


def test_missing_values_and_labels_are_named_by_line_and_column(tmp_path, capsys):
    rows = [[0.1, 1.2, "a"], [0.3, "", "b"], [0.5, 0.7, "a"], ["NA", 0.2, "b"]]
    _write_csv(tmp_path / "features.csv", ["x", "z", "label"], rows)
    with pytest.raises(SystemExit) as exit_info:
        main(
            [
                "fit",
                str(tmp_path / "features.csv"),
                "--model",
                "fitc",
                "--output",
                str(tmp_path / "m.joblib"),
            ]
        )
    assert exit_info.value.code == 2
    message = capsys.readouterr().err
    assert "column 'x' has a missing value on line(s) 5" in message
    rows = [[0.1, 1.2, "a"], [0.3, 0.4, ""], [0.5, 0.7, "b"]]
    _write_csv(tmp_path / "labels.csv", ["x", "z", "label"], rows)
    with pytest.raises(ValueError, match="column 'label' has a missing label on line"):
        load_file(tmp_path / "labels.csv")


@pytest.fixture
def fitted_on_csv(labelled_csv):
    """``sparsegp fit`` run on the moons CSV: the folder, the inputs, the model file."""
    folder, X, _ = labelled_csv
    model = folder / "m.joblib"
    main(
        [
            "fit",
            str(folder / "train.csv"),
            "--model",
            "fitc",
            "--target",
            "outcome",
            "--output",
            str(model),
        ]
    )
    return folder, X, model


def test_evaluate_without_the_label_column_says_so(fitted_on_csv, capsys):
    folder, X, model = fitted_on_csv
    _write_csv(folder / "unlabelled.csv", ["a", "b"], X[200:].tolist())
    with pytest.raises(SystemExit) as exit_info:
        main(["evaluate", str(model), str(folder / "unlabelled.csv")])
    assert exit_info.value.code == 2
    assert "no label column to evaluate against" in capsys.readouterr().err


def test_predict_into_a_closed_pipe_is_quiet(fitted_on_csv):
    folder, _, model = fitted_on_csv
    many = folder / "many.csv"
    with open(folder / "test.csv", newline="") as handle:
        rows = list(csv.reader(handle))
    _write_csv(many, rows[0], rows[1:] * 200)
    command = f"{sys.executable} -m sparsegp predict {model} {many} --target outcome | head -1"
    result = subprocess.run(command, shell=True, capture_output=True, text=True)
    assert len(result.stdout.splitlines()) == 1  # the header, then the pipe closed
    assert "Traceback" not in result.stderr and "BrokenPipeError" not in result.stderr


def test_every_argument_of_every_command_says_what_it_is():
    parser = build_parser()
    commands = next(
        action for action in parser._actions if action.dest == "command"
    ).choices
    for name, command in commands.items():
        for action in command._actions:
            assert action.help, f"sparsegp {name} {action.dest}"
    text = parser.format_help()
    assert "``" not in text and "\\" not in text
    assert "--model ivm --target label --output model.skops\n" in text


def test_the_label_column_is_found_by_the_name_saved_at_fit(fitted_on_csv, capsys):
    folder, _, model = fitted_on_csv  # fitted with --target outcome (a middle column)
    main(["evaluate", str(model), str(folder / "test.csv")])  # no --target needed
    assert "| error |" in capsys.readouterr().out


def test_feature_columns_are_checked_by_name_and_order(fitted_on_csv, capsys):
    folder, X, model = fitted_on_csv
    _write_csv(folder / "swapped.csv", ["b", "a"], X[200:, ::-1].tolist())
    _write_csv(folder / "renamed.csv", ["a", "c"], X[200:].tolist())
    ids = [[k, *x] for k, x in enumerate(X[200:].tolist())]
    _write_csv(folder / "with_id.csv", ["id", "a", "b"], ids)
    for name, says in (
        ("swapped", "another order"),
        ("renamed", "lacks ['b']; has ['c'] besides (drop them)"),
        ("with_id", "has ['id'] besides (drop them):"),
    ):
        for command in ("predict", "evaluate"):
            with pytest.raises(SystemExit) as exit_info:
                main([command, str(model), str(folder / f"{name}.csv")])
            assert exit_info.value.code == 2
            message = capsys.readouterr().err
            assert says in message and "['a', 'b']" in message, message


def test_a_label_column_first_is_not_taken_for_a_feature_silently(tmp_path, capsys):
    X, y = make_moons(60, noise=0.2, random_state=0)
    rows = [[label, *x] for x, label in zip(X.tolist(), y, strict=True)]
    _write_csv(tmp_path / "first.csv", ["label", "f0", "f1"], rows)
    command = ["fit", str(tmp_path / "first.csv"), "--model", "ivm", "--output"]
    with pytest.raises(SystemExit):
        main([*command, str(tmp_path / "m.skops")])
    assert "Pass --target label to classify" in capsys.readouterr().err
    main([*command, str(tmp_path / "m.skops"), "--target", "label"])
    assert "IVMClassifier fitted on 60 samples" in capsys.readouterr().out


def test_a_byte_order_mark_is_not_part_of_the_first_columns_name(tmp_path, capsys):
    """Spreadsheets save CSV with a UTF-8 byte-order mark: a model fitted on such a
    file predicts and evaluates a plain one (and the other way round)."""
    X, y = make_moons(160, noise=0.2, random_state=0)
    header = ["alcohol", "b", "label"]
    rows = [[x0, x1, label] for (x0, x1), label in zip(X, y, strict=True)]
    _write_csv(tmp_path / "plain.csv", header, rows[100:])
    _write_csv(tmp_path / "bom.csv", header, rows[:100])
    marked = tmp_path / "bom.csv"
    marked.write_bytes(b"\xef\xbb\xbf" + marked.read_bytes())
    assert load_file(marked).feature_names == ["alcohol", "b"]
    model_file = tmp_path / "bom.skops"
    main(["fit", str(marked), "--model", "ivm", "--output", str(model_file)])
    main(["predict", str(model_file), str(tmp_path / "plain.csv")])
    main(["evaluate", str(model_file), str(tmp_path / "plain.csv")])
    printed = capsys.readouterr().out
    assert "lacks" not in printed and "error" in printed


def test_fit_refuses_a_whole_number_feature_guessed_as_the_label(tmp_path, capsys):
    """The label column first and a whole-number feature last (wine's proline): the
    last column's many distinct values are no class labels, and ``fit`` says so in
    one line naming both columns and ``--target``, rather than fitting dozens of
    classes."""
    rng = np.random.default_rng(0)
    classes = rng.integers(1, 4, size=120)
    proline = rng.integers(300, 1700, size=120)
    rows = [
        [c, a, p]
        for c, a, p in zip(classes, rng.normal(size=120), proline, strict=True)
    ]
    _write_csv(tmp_path / "first.csv", ["class", "alcohol", "proline"], rows)
    with pytest.raises(SystemExit) as exit_info:
        main(
            [
                "fit",
                str(tmp_path / "first.csv"),
                "--model",
                "ep",
                "--output",
                str(tmp_path / "m.skops"),
            ]
        )
    assert exit_info.value.code == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "'proline'" in line and "--target class" in line


def test_warnings_are_one_line_each_for_a_fit_of_many_problems(tmp_path, capsys):
    """The RVM on five digit classes with one EM step: each one-vs-rest problem warns
    that EM did not converge; the command prints one line for all of them, in the
    form ``sparsegp: warning: …``, not Python's file-and-source form."""
    from sklearn.datasets import load_digits

    X, y = load_digits(n_class=5, return_X_y=True)
    header = [f"p{j}" for j in range(X.shape[1])] + ["digit"]
    _write_csv(
        tmp_path / "d.csv", header, [[*row, t] for row, t in zip(X, y, strict=True)]
    )
    main(
        [
            "fit",
            str(tmp_path / "d.csv"),
            "--model",
            "rvm",
            "--param",
            "max_iter=1",
            "--output",
            str(tmp_path / "m.skops"),
        ]
    )
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "warning" in line.lower()]
    assert len(lines) == 1
    assert lines[0].startswith("sparsegp: warning: ConvergenceWarning: RVM EM")
    assert "(5 fits warned so)" in lines[0]


def test_evaluate_with_an_unseen_label_prints_the_error_alone(fitted_on_csv, capsys):
    """A test label the model never saw is an error before any of the table."""
    folder, X, model = fitted_on_csv
    labels = ["maybe"] + ["yes"] * 59
    rows = [[a, label, b] for (a, b), label in zip(X[200:], labels, strict=True)]
    _write_csv(folder / "unseen.csv", ["a", "outcome", "b"], rows)
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["evaluate", str(model), str(folder / "unseen.csv")])
    printed = capsys.readouterr()
    assert printed.out == "" and "maybe" in printed.err


def test_sgpr_regresses_and_refuses_class_labels(tmp_path, capsys):
    X, y = make_friedman1(200, noise=1.0, random_state=0)
    np.savez(tmp_path / "train.npz", X=X, y=y)
    model_file = tmp_path / "model.joblib"
    main(
        [
            "fit",
            str(tmp_path / "train.npz"),
            "--model",
            "sgpr",
            "--param",
            "n_inducing=20",
            "--output",
            str(model_file),
        ]
    )
    assert "SparseGPRegressor fitted" in capsys.readouterr().out
    np.savez(tmp_path / "labels.npz", X=X, y=(y > y.mean()).astype(int))
    with pytest.raises(SystemExit):
        main(
            [
                "fit",
                str(tmp_path / "labels.npz"),
                "--model",
                "sgpr",
                "--output",
                str(model_file),
            ]
        )
    assert "does regression only" in capsys.readouterr().err
