"""Published figures the benchmarks are compared with (from [SSK09] Tables 2-4, [NGH07] Table 1).

Errors are fractions, NLP in nats. [SSK09] reports mean ± sd over 100 realizations (20 for
image and splice; its splice uses 7 of the 60 inputs); [NGH07] reports means over 10 folds.
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

#: Sundararajan, Shevade & Keerthi (2009), Tables 2 and 4, the other columns (d_max = N/5
#: except their IVM's): (error, error sd, nlp, nlp sd).
NLP_PAPER_KAPPA59 = {
    "banana": (0.1058, 0.0052, 0.2508, 0.0124),
    "breast_cancer": (0.2688, 0.0464, 0.5513, 0.0681),
    "diabetis": (0.2422, 0.0176, 0.4924, 0.0234),
    "german": (0.2407, 0.0219, 0.4920, 0.0299),
    "heart": (0.1637, 0.0268, 0.4064, 0.0573),
    "image": (0.0451, 0.0053, 0.1214, 0.0099),
    "ringnorm": (0.0426, 0.0109, 0.1198, 0.0150),
    "splice": (0.0613, 0.0055, 0.1892, 0.0076),
    "thyroid": (0.0497, 0.0229, 0.1438, 0.0412),
    "titanic": (0.2274, 0.0112, 0.5198, 0.0164),
    "twonorm": (0.0287, 0.0024, 0.0806, 0.0046),
    "waveform": (0.1013, 0.0046, 0.2301, 0.0070),
}
NLP_PAPER_BASELINE = {
    "banana": (0.1274, 0.0136, 0.3033, 0.0242),
    "breast_cancer": (0.2804, 0.0476, 0.5575, 0.0423),
    "diabetis": (0.2504, 0.0224, 0.5018, 0.0236),
    "german": (0.2540, 0.0235, 0.5137, 0.0246),
    "heart": (0.1871, 0.0371, 0.4343, 0.0472),
    "image": (0.0843, 0.0163, 0.1976, 0.0279),
    "ringnorm": (0.0232, 0.0064, 0.1734, 0.0199),
    "splice": (0.0975, 0.0115, 0.2611, 0.0158),
    "thyroid": (0.0601, 0.0272, 0.1824, 0.0513),
    "titanic": (0.2333, 0.0130, 0.5297, 0.0159),
    "twonorm": (0.0332, 0.0043, 0.1230, 0.0129),
    "waveform": (0.1214, 0.0100, 0.2761, 0.0148),
}
#: [SSK09]'s IVM used the d_max of lowest test NLP: N/2, image N/3, titanic 2N/3.
NLP_PAPER_IVM = {
    "banana": (0.1036, 0.0048, 0.2465, 0.0079),
    "breast_cancer": (0.3510, 0.1226, 0.6319, 0.0434),
    "diabetis": (0.2887, 0.0860, 0.5661, 0.0646),
    "german": (0.2706, 0.0575, 0.6003, 0.0687),
    "heart": (0.2107, 0.0930, 0.4819, 0.0982),
    "image": (0.0399, 0.0083, 0.1529, 0.0145),
    "ringnorm": (0.0183, 0.0018, 0.1324, 0.0061),
    "splice": (0.0561, 0.0067, 0.1978, 0.0230),
    "thyroid": (0.0448, 0.0213, 0.1223, 0.0349),
    "titanic": (0.2554, 0.0920, 0.5768, 0.0551),
    "twonorm": (0.0264, 0.0025, 0.0960, 0.0093),
    "waveform": (0.0997, 0.0044, 0.2318, 0.0074),
}
#: [SSK09], Table 3: test NLP (mean, sd) of NLP(κ = 59) against d_max = N/k.
NLP_PAPER_DMAX = {
    "image": {
        20: (0.2392, 0.0106),
        10: (0.1770, 0.0138),
        5: (0.1214, 0.0099),
        4: (0.1120, 0.0080),
        3: (0.0997, 0.0140),
        2: (0.0976, 0.0108),
    },
    "thyroid": {
        20: (0.2096, 0.0406),
        10: (0.1521, 0.0418),
        5: (0.1438, 0.0412),
        4: (0.1333, 0.0281),
        3: (0.1323, 0.0485),
        2: (0.2062, 0.0359),
    },
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
