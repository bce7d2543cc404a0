"""Published figures the benchmarks are compared with (from ALGORITHMS.md §2.7, §5.9).

Errors are fractions, NLP in nats. 002 reports mean ± sd over 100 realizations (20 for
image and splice; its splice uses 7 of the 60 inputs); 004 reports means over 10 folds.
"""

#: Naish-Guzman & Holden (2007), Table 1, "GPC" column: (error, nlp).
FITC_PAPER_GPC = {
    "synth": (0.097, 0.227),
    "crabs": (0.039, 0.096),
    "banana": (0.105, 0.237),
    "breast_cancer": (0.288, 0.558),
    "diabetis": (0.231, 0.475),
    "flare_solar": (0.346, 0.570),
    "german": (0.230, 0.482),
    "heart": (0.178, 0.423),
    "image": (0.027, 0.078),
    "ringnorm": (0.016, 0.071),
    "splice": (0.115, 0.281),
    "thyroid": (0.043, 0.093),
    "titanic": (0.221, 0.514),
    "twonorm": (0.031, 0.085),
    "waveform": (0.100, 0.229),
}

#: Sundararajan, Shevade & Keerthi (2009), Tables 2 and 4, "Full GP" column:
#: (error, error sd, nlp, nlp sd).
NLP_PAPER_FULL_GP = {
    "banana": (0.1060, 0.0057, 0.2462, 0.0178),
    "breast_cancer": (0.2621, 0.0471, 0.5395, 0.0491),
    "diabetis": (0.2343, 0.0186, 0.4783, 0.0204),
    "german": (0.2344, 0.0203, 0.4886, 0.0276),
    "heart": (0.1627, 0.0390, 0.3994, 0.0595),
    "image": (0.0311, 0.0049, 0.0874, 0.0123),
    "ringnorm": (0.0459, 0.0078, 0.1638, 0.0130),
    "splice": (0.0575, 0.0059, 0.1836, 0.0112),
    "thyroid": (0.0408, 0.0210, 0.0997, 0.0369),
    "titanic": (0.2261, 0.0141, 0.5157, 0.0161),
    "twonorm": (0.0274, 0.0040, 0.0759, 0.0146),
    "waveform": (0.0974, 0.0043, 0.2211, 0.0074),
}

#: Naish-Guzman & Holden (2007), Table 1, "IVM" columns: (error, nlp, active set size).
FITC_PAPER_IVM = {
    "synth": (0.096, 0.235, 150),
    "crabs": (0.066, 0.134, 60),
    "banana": (0.105, 0.242, 200),
    "breast_cancer": (0.307, 0.691, 120),
    "diabetis": (0.230, 0.486, 400),
    "flare_solar": (0.340, 0.628, 550),
    "german": (0.290, 0.658, 450),
    "heart": (0.203, 0.455, 120),
    "image": (0.028, 0.082, 400),
    "ringnorm": (0.016, 0.101, 100),
    "splice": (0.225, 0.403, 700),
    "thyroid": (0.041, 0.120, 40),
    "titanic": (0.242, 0.578, 100),
    "twonorm": (0.031, 0.085, 300),
    "waveform": (0.100, 0.232, 250),
}

#: Naish-Guzman & Holden (2007), Table 1, "SPGPC" columns (FITC-EP):
#: (error, nlp, number of pseudo-inputs M).
FITC_PAPER_SPGPC = {
    "synth": (0.087, 0.234, 4),
    "crabs": (0.043, 0.105, 10),
    "banana": (0.107, 0.261, 20),
    "breast_cancer": (0.281, 0.557, 2),
    "diabetis": (0.230, 0.485, 2),
    "flare_solar": (0.338, 0.569, 3),
    "german": (0.236, 0.491, 4),
    "heart": (0.172, 0.414, 2),
    "image": (0.031, 0.087, 200),
    "ringnorm": (0.014, 0.089, 2),
    "splice": (0.126, 0.306, 200),
    "thyroid": (0.037, 0.128, 6),
    "titanic": (0.231, 0.520, 2),
    "twonorm": (0.026, 0.086, 2),
    "waveform": (0.099, 0.228, 10),
}
