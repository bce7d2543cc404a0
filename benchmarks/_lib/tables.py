"""The tables of BENCHMARKS.md that reproduce a paper's table or figure, as commands.

Each entry is the list of ``python -m benchmarks run …`` argument lists that produce the
results (``benchmarks/results/``) and print the table. Keys are ``PAPER-ITEM`` with the
paper's key from ``docs/references.md``.
"""

#: Data sets of [NGH07] Table 1 (synth and crabs besides the IDA suite).
_FITC_SETS = (
    "synth crabs banana breast_cancer diabetis flare_solar german heart image ringnorm "
    "splice thyroid titanic twonorm waveform"
).split()
#: Data sets of [SSK09] Tables 2-4.
_NLP_SETS = (
    "image splice_002 banana breast_cancer diabetis german heart ringnorm thyroid "
    "titanic twonorm waveform"
).split()
_IDA = ["--realizations", "10", "--n-jobs", "2"]
_RESULTS = "benchmarks/results/"

TABLES = {
    "RW06-ida": (
        "Full EP GP on the 13 IDA sets beside [NGH07]'s and [SSK09]'s full-GP columns",
        [
            ["ida", "--estimators", "ep", "svc", "sklearn_gpc", *_IDA,
             "--out", _RESULTS + "ida_ep.json"],
            ["report_full_gp", _RESULTS + "ida_ep.json"],
        ],
    ),
    "LSH02-table-1": (
        "IVM against libsvm on MNIST 13×13, each digit against the rest",
        [["mnist_ivm", "--n-jobs", "1", "--out", _RESULTS + "mnist_ivm_13_randomized.json"]],
    ),
    "NGH07-table-1": (
        "FITC-EP on synth, crabs and the IDA suite with M = 2-20 pseudo-inputs",
        [
            ["ida", "--datasets", *_FITC_SETS, "--estimators", "fitc", "svc", *_IDA,
             "--out", _RESULTS + "ida_fitc.json"],
            ["ida", "--datasets", "synth", "crabs", "--estimators", "ep", "sklearn_gpc",
             *_IDA, "--out", _RESULTS + "ripley_ep.json"],
            ["report_fitc", _RESULTS + "ida_fitc.json", _RESULTS + "ida_ep.json",
             _RESULTS + "ripley_ep.json"],
        ],
    ),
    "NGH07-ivm-column": (
        "The IVM on the IDA suite beside [NGH07] Table 1's IVM column",
        [
            ["ida", "--estimators", "ivm", "svc", *_IDA, "--out", _RESULTS + "ida_ivm.json"],
            ["report_ivm", _RESULTS + "ida_ivm.json", _RESULTS + "ida_ep.json"],
        ],
    ),
    "NGH07-figure-1": (
        "xor: pseudo-inputs needed for < 15 % error as N grows",
        [["xor_curve", "--seeds", "5", "--n-jobs", "2", "--out", _RESULTS + "xor_curve.json"]],
    ),
    "SSK09-tables-2-4": (
        "The NLP classifier on the IDA suite: error, NLP and time beside EP and the IVM",
        [
            ["ida", "--datasets", *_NLP_SETS, "--estimators", "ep", "nlp", "nlp_random",
             "ivm_n5", "svc", *_IDA, "--out", _RESULTS + "ida_nlp.json"],
            ["ida", "--datasets", "image", "thyroid", "--estimators", "nlp_n20", "nlp_n10",
             "nlp_n4", "nlp_n3", "nlp_n2", *_IDA, "--out", _RESULTS + "ida_nlp_dmax.json"],
            ["ida", "--datasets", *_NLP_SETS, "--estimators", "ivm_002", *_IDA,
             "--out", _RESULTS + "ida_nlp_ivm.json"],
            ["report_nlp", _RESULTS + "ida_nlp.json", _RESULTS + "ida_nlp_dmax.json",
             _RESULTS + "ida_nlp_ivm.json"],
        ],
    ),
    "Csa02-ida": (
        "The sparse online GP classifier on the IDA suite beside full EP",
        [
            ["ida", "--datasets", *_FITC_SETS[2:], "--estimators", "online_n5",
             "online_n2", *_IDA, "--out", _RESULTS + "ida_online.json"],
            ["report_online", _RESULTS + "ida_online.json", _RESULTS + "ida_ep.json"],
        ],
    ),
    "Csa02-friedman": (
        "Friedman #1: test error against basis size, time against exact GP regression",
        [["online_friedman", "--out", _RESULTS + "online_friedman.json"]],
    ),
    "Csa02-figure-3.4": (
        "Omission rate of the cheap deletion score",
        [["online_omission", "--sizes", "75", "150", "300", "--repetitions", "100"]],
    ),
    "QW03-figure-3": (
        "Mackey-Glass: Subspace EM against batch EM, error and time against N",
        [
            ["rvm_mackey_glass", "--sizes", "100", "200", "400", "800", "1600", "2400",
             "--repetitions", "10", "--out", _RESULTS + "rvm_mackey_glass.json"],
        ],
    ),
    "QW03-mnist": (
        "MNIST ones against the rest with 800 basis functions",
        [
            ["rvm_mnist", "--methods", "ssem", "batch", "--batch-max-iter", "60",
             "--peer-size", "2000", "--out", _RESULTS + "rvm_mnist.json"],
        ],
    ),
    "VH17-multiclass": (
        "The multinomial FITC model beside libsvm, one-vs-rest FITC, logistic "
        "regression and SVGP on three 10-class sets",
        [
            ["multiclass", "digits", "--out", _RESULTS + "multiclass_digits.json"],
            ["multiclass", "classification",
             "--out", _RESULTS + "multiclass_classification.json"],
            ["multiclass", "mnist", "--out", _RESULTS + "multiclass_mnist.json"],
            ["multiclass", "mnist", "--n-train", "7291", "--n-inducing", "100", "200",
             "400", "--estimators", "svc", "fitc_one_vs_rest",
             "--out", _RESULTS + "multiclass_mnist_7291_sizes.json"],
            ["at_one_vs_rest_priors",
             "--out", _RESULTS + "multiclass_at_one_vs_rest_priors.json"],
            *(["multiclass", data, "--estimators", "fitc_one_vs_rest_isotropic",
               "svc_at_fitc_length_scale", "fitc_one_vs_rest_at_svc_length_scale",
               "--out", _RESULTS + f"multiclass_length_scales_{data}.json"]
              for data in ("digits", "classification", "mnist")),
            ["multiclass", "mnist", "--n-train", "3000", "--estimators", "svc",
             "fitc_one_vs_rest_isotropic", "svc_at_fitc_length_scale",
             "fitc_one_vs_rest_at_svc_length_scale", "ep_one_vs_rest",
             "--out", _RESULTS + "multiclass_mnist_3000_length_scales.json"],
            ["multiclass", "mnist", "--estimators", "logistic",
             "--one-vs-rest-inducing", "300",
             "--out", _RESULTS + "multiclass_mnist_one_vs_rest_300.json"],
        ],
    ),
}  # fmt: skip
