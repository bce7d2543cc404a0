"""``benchmarks/`` is a package: every script is reachable, every documented command runs one."""

import importlib
import re
import shlex
from pathlib import Path

import numpy as np
import pytest
from benchmarks.__main__ import main, scripts
from benchmarks._lib.tables import TABLES

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = scripts()
DOCUMENTED = re.compile(r"python -m benchmarks run ([a-z_0-9]+)")


def test_no_loose_scripts_at_the_top_of_benchmarks():
    loose = {p.name for p in (ROOT / "benchmarks").glob("*.py")}
    assert loose == {"__init__.py", "__main__.py"}


def test_every_script_lives_in_a_paper_folder_under_a_unique_name():
    on_disk = [
        p.stem
        for p in (ROOT / "benchmarks").glob("*/*.py")
        if p.stem != "__init__" and not p.parent.name.startswith("_")
    ]
    assert sorted(on_disk) == sorted(SCRIPTS)


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_every_script_imports_and_has_an_entry_point(name):
    module = importlib.import_module(SCRIPTS[name])
    source = Path(module.__file__).read_text()
    assert module.__doc__, f"{name} has no docstring"
    assert 'if __name__ == "__main__":' in source


@pytest.mark.parametrize("path", ["BENCHMARKS.md", "benchmarks/README.md", "README.md"])
def test_documented_commands_name_existing_scripts(path):
    named = set(DOCUMENTED.findall((ROOT / path).read_text()))
    assert named <= set(SCRIPTS), named - set(SCRIPTS)


@pytest.mark.parametrize("key", sorted(TABLES))
def test_table_commands_name_scripts_and_read_results_that_exist(key):
    _, commands = TABLES[key]
    written = set()
    for script, *arguments in commands:
        assert script in SCRIPTS
        if "--out" in arguments:
            written.add(arguments[arguments.index("--out") + 1])
        for argument in arguments:
            if argument.endswith(".json") and argument not in written:
                assert (ROOT / argument).exists(), argument


def test_table_dry_run_prints_the_commands_it_would_run(capsys):
    main(["table", "NGH07-table-1", "--dry-run"])
    printed = capsys.readouterr().out.splitlines()
    commands = [shlex.split(line)[4:] for line in printed if line.startswith("python")]
    assert commands == [list(c) for c in TABLES["NGH07-table-1"][1]]


def test_run_executes_a_script_as_main_with_its_arguments(capsys):
    main(["run", "online_omission", "--sizes", "30", "--repetitions", "2"])
    assert "| 30 |" in capsys.readouterr().out


def test_run_of_an_unknown_script_names_the_list_command():
    with pytest.raises(SystemExit, match="benchmarks list"):
        main(["run", "no_such_script"])


def test_benchmarks_md_is_made_from_the_saved_runs_and_stays_short():
    main(["markdown", "--check"])  # raises SystemExit when the file is not current
    # one short section per claim: 530 lines held twenty-two of them
    assert len((ROOT / "BENCHMARKS.md").read_text().splitlines()) <= 530


def test_compare_tells_identical_from_spread_from_moved():
    from benchmarks._lib.compare import compare

    def run(errors, name="a"):
        return [
            {"estimator": name, "dataset": "s", "error": e, "nlp": 0.5} for e in errors
        ]

    earlier = run([0.10, 0.12, 0.14]) + run([0.2, 0.2], "b") + run([0.3, 0.3], "c")
    later = run([0.10, 0.12, 0.14]) + run([0.21, 0.2], "b") + run([0.5, 0.6], "c")
    rows = compare(earlier, later, ["estimator", "dataset"], ["error", "nlp"])
    verdicts = {row[0][0]: (row[-2], row[-1]) for row in rows}
    assert verdicts["a"] == ("3/3", "same")
    assert verdicts["b"] == ("1/2", "moved")  # zero sd: any shift over rounding moves
    assert verdicts["c"] == ("0/2", "moved")
    within = compare(earlier, run([0.11, 0.13, 0.15]), ["estimator"], ["error"])
    assert within[0][-1] == "within" and abs(within[0][6] - 0.5) < 1e-9
    assert abs(within[0][7] - 0.01) < 1e-12  # the largest change of one record


def test_rvm_augmentation_formulas_equal_the_dense_augmented_posterior():
    """The rank-one augmented predictive of ``rvm_augmentation`` ([RQC05]) against
    the posterior of the RVM with the test input's basis function added, solved
    directly: both at the EP sites of the fitted model's final E-step."""
    from benchmarks.qw03_rvm.rvm_augmentation import design, final_e_step, predictives

    from sparsegp import RVMClassifier
    from sparsegp.datasets import make_xor_clusters

    X, y = make_xor_clusters(120, random_state=0)
    X_test = make_xor_clusters(6, random_state=1)[0]
    clf = RVMClassifier(random_state=0).fit(X, y)
    model, t = clf.estimators_[0], np.where(y == clf.classes_[1], 1.0, -1.0)
    Psi, posterior, sites = final_e_step(model, X, t, clf.sigma_in)
    (mean, var), (aug_mean, aug_var) = predictives(
        model, Psi, posterior, sites, X, X_test, [0.1]
    )
    alpha = model.details["alpha"]
    for j, x in enumerate(X_test):
        P = np.column_stack([Psi, model.kernel(X, x[None, :])[:, 0]])
        Sigma = np.linalg.inv(
            np.diag(np.append(alpha, 0.1)) + P.T @ (sites.omega[:, None] * P)
        )
        f = np.append(design(model, x[None, :])[0], model.kernel.diag(x[None, :]))
        assert aug_mean[j] == pytest.approx(f @ Sigma @ (P.T @ sites.nu), rel=1e-8)
        assert aug_var[j] == pytest.approx(f @ Sigma @ f, rel=1e-8)
        assert aug_var[j] >= var[j]


def test_worst_share_is_the_largest_losses_over_their_sum():
    from benchmarks.qw03_rvm.rvm_augmentation import worst_share

    losses = np.array([[0.1, 9.0], [1.0, 4.0], [2.0, 2.0], [3.0, 1.0]])
    codes = np.array([0, 1, 0, 1])  # the losses of the true classes: 0.1, 4, 2, 1
    assert worst_share(-losses, codes, fraction=0.5) == pytest.approx(6 / 7.1)
    assert worst_share(-losses, codes, fraction=0.01) == pytest.approx(4 / 7.1)


def test_rvm_width_evidence_and_leave_one_out_equal_dense_ep():
    """``rvm_width``'s EP evidence and cavity leave-one-out NLP of a fitted RVM
    against dense EP on its latents' prior ``K = Ψ A⁻¹ Ψᵀ`` run to convergence."""
    from benchmarks.qw03_rvm.rvm_augmentation import design
    from benchmarks.qw03_rvm.rvm_width import evidence_and_leave_one_out
    from scipy.special import log_ndtr

    from sparsegp import RVMClassifier
    from sparsegp.approximations.ep import (
        DensePosterior,
        leave_one_out,
        run_ep,
    )
    from sparsegp.datasets import make_xor_clusters
    from sparsegp.likelihoods import Probit

    X, y = make_xor_clusters(80, random_state=0)
    clf = RVMClassifier(random_state=0).fit(X, y)
    model, t = clf.estimators_[0], np.where(y == clf.classes_[1], 1.0, -1.0)
    Psi = design(model, X)
    K = Psi @ (Psi / model.details["alpha"]).T
    n = len(t)
    state = run_ep(
        DensePosterior(K, np.zeros(n), np.zeros(n)), t, Probit(0.0), tol=1e-12
    )
    mean, var = leave_one_out(state)
    evidence, loo = evidence_and_leave_one_out(clf, X, y)
    assert evidence * n == pytest.approx(state.log_evidence, rel=1e-6)
    assert loo == pytest.approx(
        -np.mean(log_ndtr(t * mean / np.sqrt(1 + var))), rel=1e-6
    )


def test_the_svc_length_scale_is_libsvms_gamma_scale():
    from benchmarks.vh17_multiclass.multiclass import svc_length_scale

    X = np.random.default_rng(0).normal(3.0, 2.0, size=(50, 4))
    assert 0.5 / svc_length_scale(X) ** 2 == pytest.approx(1.0 / (4 * X.var()))


def test_pairwise_coupling_recovers_consistent_pairs_and_minimises_its_objective():
    """``one_vs_one.coupled_probabilities``: from ``r_ij = p_i/(p_i + p_j)`` it returns
    ``p``; from inconsistent pairs, the minimiser of Wu, Lin & Weng's objective
    ``Σ_{i<j} (r_ji p_i − r_ij p_j)²`` on the simplex, found here by a general solver."""
    from benchmarks.vh17_multiclass.one_vs_one import coupled_probabilities
    from scipy.optimize import minimize

    rng = np.random.default_rng(0)
    p = rng.dirichlet(np.ones(5), size=4)
    consistent = p[:, :, None] / (p[:, :, None] + p[:, None, :])
    np.testing.assert_allclose(coupled_probabilities(consistent), p, atol=1e-12)

    r = rng.uniform(0.05, 0.95, size=(3, 4, 4))
    r = np.triu(r, 1) + np.tril(1.0 - np.swapaxes(np.triu(r, 1), 1, 2), -1)
    coupled = coupled_probabilities(r)
    for t in range(len(r)):
        pairs = [(i, j) for i in range(4) for j in range(i + 1, 4)]

        def objective(q, t=t, pairs=pairs):
            return sum((r[t, j, i] * q[i] - r[t, i, j] * q[j]) ** 2 for i, j in pairs)

        best = minimize(
            objective,
            np.full(4, 0.25),
            method="SLSQP",
            bounds=[(0, 1)] * 4,
            constraints={"type": "eq", "fun": lambda q: q.sum() - 1},
            options={"ftol": 1e-14},
        )
        np.testing.assert_allclose(coupled[t], best.x, atol=1e-6)


def test_the_gate_counts_wins_and_losses_beyond_a_tie_and_applies_its_rule():
    """Per set the two sides' means pair up; a set moves the count only where the NLP
    changes by more than ``TIE``; the rule needs a one-sided sign test at
    ``SIGN_LEVEL``, no loss above ``WORST_LOSS`` and a mean time ratio in budget."""
    from benchmarks.across_methods.gate import summarize

    def pair(dataset, nlp, candidate_nlp, seconds=1.0, candidate_seconds=1.0):
        sides = {
            "current": (nlp, seconds),
            "candidate": (candidate_nlp, candidate_seconds),
        }
        return [
            {
                "dataset": dataset,
                "side": side,
                "error": 0.1,
                "nlp": value,
                "ece": 0.0,
                "fit_seconds": time,
            }
            for side, (value, time) in sides.items()
        ]

    wins = [row for k in range(5) for row in pair(f"w{k}", 0.5, 0.4)]
    tie = pair("t", 0.5, 0.504)
    summary = summarize([*wins, *tie], budget=1.3)
    assert (summary["wins"], summary["losses"], summary["ties"]) == (5, 0, 1)
    assert summary["sign_p"] == pytest.approx(0.5**5)
    assert summary["passes"]
    lost = summarize([*wins, *pair("l", 0.5, 0.56)], budget=1.3)
    assert lost["worst_set"] == "l" and not lost["passes"]  # 12 % > WORST_LOSS
    slow = summarize(
        [row for k in range(5) for row in pair(f"s{k}", 0.5, 0.4, 1.0, 2.0)], budget=1.3
    )
    assert slow["time_ratio"] == pytest.approx(2.0) and not slow["passes"]
    assert not slow["passes_as_speed_fix"]


def test_the_gate_takes_a_faster_setting_that_loses_nothing_clearly_as_a_speed_fix():
    """Half the time, two sets a little worse and two a little better: a speed fix; a
    set 6 % worse (over ``SPEED_FIX_WORST_LOSS``), or losses on clearly more sets
    than wins, is not."""
    from benchmarks.across_methods.gate import summarize

    def pair(dataset, candidate_nlp):
        return [
            {
                "dataset": dataset,
                "side": side,
                "error": 0.1,
                "nlp": nlp,
                "ece": 0.0,
                "fit_seconds": seconds,
            }
            for side, nlp, seconds in (
                ("current", 0.5, 2.0),
                ("candidate", candidate_nlp, 1.0),
            )
        ]

    mixed = [*pair("a", 0.51), *pair("b", 0.51), *pair("c", 0.49), *pair("d", 0.49)]
    summary = summarize(mixed, budget=1.3)
    assert summary["passes_as_speed_fix"] and not summary["passes"]
    assert not summarize([*mixed, *pair("e", 0.53)], 1.3)["passes_as_speed_fix"]
    losing = [row for k in range(5) for row in pair(f"l{k}", 0.51)]
    assert summarize(losing, 1.3)["sign_p_current"] == pytest.approx(0.5**5)
    assert not summarize(losing, 1.3)["passes_as_speed_fix"]


def test_every_result_file_is_referenced():
    """A saved run no table, page or script names is an orphan: git keeps its
    history, the tree keeps current results only."""
    texts = (
        "".join(
            path.read_text()
            for folder in ("benchmarks", "docs")
            for pattern in ("**/*.py", "**/*.md")
            for path in (ROOT / folder).glob(pattern)
        )
        + (ROOT / "BENCHMARKS.md").read_text()
    )
    orphans = [
        path.name
        for path in sorted((ROOT / "benchmarks" / "results").iterdir())
        if path.stem not in texts
    ]
    assert not orphans


def test_the_uci_peers_start_where_our_run_over_every_row_starts():
    """GPy's SGPR is given our screen's end and k-means pseudo-inputs: a kernel of a
    length-scale per feature, a noise and M inputs of the data's width."""
    uci = importlib.import_module("benchmarks.tit09_sgpr.uci_regression")
    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 3))
    y = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(300)
    kernel, noise, Z = uci._our_start(X, (y - y.mean()) / y.std())
    assert np.shape(kernel.k2.length_scale) == (3,)
    assert noise > 0 and Z.shape == (60, 3)
