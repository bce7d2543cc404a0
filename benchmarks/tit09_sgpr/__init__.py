"""Sparse GP regression with learnt pseudo-inputs ([Tit09] VFE, [SG06] FITC) on the UCI sets."""
