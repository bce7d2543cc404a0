"""What scikit-learn's kernels lack for this package: separating the noise term."""

from __future__ import annotations

from sklearn.gaussian_process.kernels import Sum, WhiteKernel


def split_white_noise(kernel):
    """Split ``kernel`` into its latent part and the level of its ``WhiteKernel`` term.

    Regressors follow ``GaussianProcessRegressor``: the Gaussian noise is a
    ``WhiteKernel`` summand, so a fitted ``GaussianProcessRegressor().kernel_`` can be
    passed as is.

    Returns
    -------
    latent : Kernel
        ``kernel`` without the ``WhiteKernel`` summand.
    noise_level : float

    Raises
    ------
    ValueError
        If there is no ``WhiteKernel`` summand, or nothing but one.
    """
    if isinstance(kernel, Sum):
        if isinstance(kernel.k2, WhiteKernel):
            return kernel.k1, float(kernel.k2.noise_level)
        if isinstance(kernel.k1, WhiteKernel):
            return kernel.k2, float(kernel.k1.noise_level)
        for index, part in enumerate((kernel.k1, kernel.k2)):
            try:
                latent, noise = split_white_noise(part)
            except ValueError:
                continue
            other = kernel.k2 if index == 0 else kernel.k1
            return Sum(latent, other), noise
    raise ValueError(
        f"The kernel {kernel} needs a WhiteKernel summand for the observation noise, "
        "e.g. ConstantKernel() * RBF() + WhiteKernel(0.1), besides a latent part."
    )
