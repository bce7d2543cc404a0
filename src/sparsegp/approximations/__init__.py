"""The numerical engines: arrays (or kernel-block callables) in, posteriors out.

Nothing here knows about estimators; each engine can be exercised with a kernel matrix
and labels alone (``docs/algorithms.md`` gives the mathematics, section by module):

- :mod:`~sparsegp.approximations.ep` — the EP loop for any Gaussian prior, the dense
  posterior, the evidence and its gradient (§5.5, §6.1);
- :mod:`~sparsegp.approximations.fitc_ep` — the FITC prior and its EP posterior (§5);
- :mod:`~sparsegp.approximations.adf_active_set` — the sparse ADF state shared by the
  IVM and the NLP method (§1.2-1.5);
- :mod:`~sparsegp.approximations.ivm` — IVM selection and its evidence (§1);
- :mod:`~sparsegp.approximations.nlp_selection` — validation-NLP selection and its
  gradient (§2); :mod:`~sparsegp.approximations.nlp_scoring` — its candidate losses
  in one compiled loop (§2.2);
- :mod:`~sparsegp.approximations.online` — Csató's sparse online GP (§3);
- :mod:`~sparsegp.approximations.rvm_ssem` — the RVM by Subspace EM (§4);
- :mod:`~sparsegp.approximations.partitioned_fitc`,
  :mod:`~sparsegp.approximations.partitioned_ivm` — FITC-EP and IVM selection over
  row blocks on a dask cluster (§5.9, §1.6).
"""

__all__ = [
    "adf_active_set",
    "ep",
    "fitc_ep",
    "ivm",
    "nlp_scoring",
    "nlp_selection",
    "online",
    "partitioned_fitc",
    "partitioned_ivm",
    "rvm_ssem",
]
