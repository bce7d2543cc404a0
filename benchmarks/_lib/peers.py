"""Sparse GP classifiers of other libraries behind scikit-learn's fit / predict_proba.

Binary problems only; installed by the ``[bench]`` extra. Both use the kernel of
[NGH07] (amplitude × isotropic RBF) and ``M`` inducing inputs initialised at the same
k-means centres as ``FITCGPClassifier``, and learn them with the hyperparameters.

* :class:`GPySparseEP` — GPy's ``SparseGPClassification``: EP on the DTC
  approximation (GPy has no FITC-EP classifier), hyperparameters and inducing inputs
  by L-BFGS-B on its evidence with EP re-run at every evaluation (``ep_mode="nested"``).
  GPy's probit has no bias; a ``Bias`` kernel term plays its part.
* :class:`GPyTorchSVGP` — GPyTorch's variational classifier (Hensman et al. 2015):
  whitened variational strategy, probit (Bernoulli) likelihood, constant mean as the
  bias, full-batch Adam on the ELBO.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.cluster import KMeans


def kmeans_centres(X, n_inducing, random_state=0):
    """The initial inducing inputs shared by all sparse classifiers of a comparison."""
    return (
        KMeans(n_clusters=n_inducing, n_init=1, random_state=random_state)
        .fit(X)
        .cluster_centers_
    )


def binary_svgp(inducing):
    """GPyTorch's whitened variational GP (Hensman et al. 2015) on the inducing inputs
    ``inducing`` (a tensor, learnt): constant mean, amplitude × RBF kernel."""
    import gpytorch

    class Model(gpytorch.models.ApproximateGP):
        def __init__(self):
            distribution = gpytorch.variational.CholeskyVariationalDistribution(
                len(inducing)
            )
            strategy = gpytorch.variational.VariationalStrategy(
                self, inducing, distribution, learn_inducing_locations=True
            )
            super().__init__(strategy)
            self.mean_module = gpytorch.means.ConstantMean()
            self.covar_module = gpytorch.kernels.ScaleKernel(
                gpytorch.kernels.RBFKernel()
            )

        def forward(self, x):
            return gpytorch.distributions.MultivariateNormal(
                self.mean_module(x), self.covar_module(x)
            )

    return Model()


def train_by_minibatches(
    model, likelihood, data, epochs, batch_size, learning_rate, generator
):
    """Adam on the variational ELBO over ``epochs`` shuffled passes through
    ``data = (x, y)`` in batches of ``batch_size`` (the order drawn by ``generator``,
    on the data's device); the model and likelihood are left in evaluation mode."""
    import gpytorch
    import torch

    x, y = data
    model.train()
    likelihood.train()
    optimizer = torch.optim.Adam(
        list(model.parameters()) + list(likelihood.parameters()), lr=learning_rate
    )
    elbo = gpytorch.mlls.VariationalELBO(likelihood, model, num_data=len(y))
    for _ in range(epochs):
        order = torch.randperm(len(y), generator=generator, device=y.device)
        for start in range(0, len(order), batch_size):
            batch = order[start : start + batch_size]
            optimizer.zero_grad()
            loss = -elbo(model(x[batch]), y[batch])
            loss.backward()
            optimizer.step()
    model.eval()
    likelihood.eval()


class _BinaryPeer(ClassifierMixin, BaseEstimator):
    def _encode(self, y):
        self.classes_ = np.unique(y)
        if len(self.classes_) != 2:
            raise ValueError("the peer wrappers handle two classes only")
        return (y == self.classes_[1]).astype(float)

    def predict_proba(self, X):
        p = np.clip(self._positive_probability(np.asarray(X, dtype=float)), 0.0, 1.0)
        return np.column_stack([1.0 - p, p])

    def predict(self, X):
        return self.classes_[(self.predict_proba(X)[:, 1] > 0.5).astype(int)]


class GPySparseEP(_BinaryPeer):
    """GPy's EP-DTC sparse classifier (see the module docstring)."""

    def __init__(self, n_inducing=10, max_iter=100, random_state=0):
        self.n_inducing = n_inducing
        self.max_iter = max_iter
        self.random_state = random_state

    def fit(self, X, y):
        import GPy
        from GPy.inference.latent_function_inference.expectation_propagation import (
            EPDTC,
        )

        X = np.asarray(X, dtype=float)
        target = self._encode(y)[:, None]
        D = X.shape[1]
        kernel = GPy.kern.RBF(D, lengthscale=np.sqrt(D)) + GPy.kern.Bias(D)
        self.model_ = GPy.models.SparseGPClassification(
            X,
            target,
            kernel=kernel,
            Z=kmeans_centres(X, self.n_inducing, self.random_state),
            inference_method=EPDTC(ep_mode="nested"),
        )
        self.model_.optimize("lbfgsb", max_iters=self.max_iter)
        self.inducing_points_ = np.array(self.model_.Z)
        return self

    def _positive_probability(self, X):
        return self.model_.predict(X)[0].ravel()


class GPyTorchSVGP(_BinaryPeer):
    """GPyTorch's variational sparse classifier (see the module docstring)."""

    def __init__(self, n_inducing=10, n_epochs=300, learning_rate=0.05, random_state=0):
        self.n_inducing = n_inducing
        self.n_epochs = n_epochs
        self.learning_rate = learning_rate
        self.random_state = random_state

    def fit(self, X, y):
        import gpytorch
        import torch

        torch.manual_seed(self.random_state)
        X = np.asarray(X, dtype=float)
        train_x = torch.as_tensor(X, dtype=torch.float64)
        train_y = torch.as_tensor(self._encode(y), dtype=torch.float64)
        inducing = torch.as_tensor(
            kmeans_centres(X, self.n_inducing, self.random_state), dtype=torch.float64
        )

        model = binary_svgp(inducing).double()
        model.covar_module.base_kernel.lengthscale = float(np.sqrt(X.shape[1]))
        likelihood = gpytorch.likelihoods.BernoulliLikelihood().double()
        model.train()
        likelihood.train()
        optimizer = torch.optim.Adam(
            list(model.parameters()) + list(likelihood.parameters()),
            lr=self.learning_rate,
        )
        elbo = gpytorch.mlls.VariationalELBO(likelihood, model, num_data=len(train_y))
        for _ in range(self.n_epochs):
            optimizer.zero_grad()
            loss = -elbo(model(train_x), train_y)
            loss.backward()
            optimizer.step()
        model.eval()
        likelihood.eval()
        self.model_, self.likelihood_ = model, likelihood
        self.inducing_points_ = (
            model.variational_strategy.inducing_points.detach().numpy()
        )
        return self

    def _positive_probability(self, X):
        import gpytorch
        import torch

        with torch.no_grad(), gpytorch.settings.fast_pred_var():
            x = torch.as_tensor(X, dtype=torch.float64)
            return self.likelihood_(self.model_(x)).mean.numpy()


class GPyTorchMinibatchSVGP(_BinaryPeer):
    """GPyTorch's variational classifier for large n, as its tutorial trains it on a
    GPU: whitened variational strategy with learnt inducing inputs (k-means centres of
    a sample of 20·M points to start), amplitude × RBF kernel, constant mean, probit
    (Bernoulli) likelihood, ``n_epochs`` epochs of minibatch Adam on the ELBO
    (Hensman et al. 2015), float32 on ``device`` ("cuda" when a GPU is present)."""

    def __init__(
        self,
        n_inducing=200,
        n_epochs=3,
        batch_size=1024,
        learning_rate=0.01,
        device="auto",
        random_state=0,
    ):
        self.n_inducing = n_inducing
        self.n_epochs = n_epochs
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.device = device
        self.random_state = random_state

    def _device(self):
        import torch

        if self.device != "auto":
            return torch.device(self.device)
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")

    def fit(self, X, y):
        import gpytorch
        import torch

        torch.manual_seed(self.random_state)
        device = self._device()
        X = np.asarray(X, dtype=np.float32)
        sample = np.random.default_rng(self.random_state).choice(
            len(X), size=min(len(X), 20 * self.n_inducing), replace=False
        )
        centres = kmeans_centres(X[sample], self.n_inducing, self.random_state)
        train_x = torch.as_tensor(X, device=device)
        train_y = torch.as_tensor(self._encode(y), dtype=torch.float32, device=device)
        inducing = torch.as_tensor(centres, dtype=torch.float32, device=device)

        model = binary_svgp(inducing).to(device)
        model.covar_module.base_kernel.lengthscale = float(np.sqrt(X.shape[1]))
        likelihood = gpytorch.likelihoods.BernoulliLikelihood().to(device)
        generator = torch.Generator(device=device).manual_seed(self.random_state)
        train_by_minibatches(
            model,
            likelihood,
            (train_x, train_y),
            self.n_epochs,
            self.batch_size,
            self.learning_rate,
            generator,
        )
        if device.type == "cuda":
            torch.cuda.synchronize()
        self.model_, self.likelihood_, self.device_ = model, likelihood, device
        return self

    def _positive_probability(self, X):
        import gpytorch
        import torch

        with torch.no_grad(), gpytorch.settings.fast_pred_var():
            x = torch.as_tensor(X, dtype=torch.float32, device=self.device_)
            parts = [
                self.likelihood_(self.model_(x[i : i + 8192])).mean
                for i in range(0, len(x), 8192)
            ]
            return torch.cat(parts).double().cpu().numpy()


class GPyTorchMultiClassSVGP(ClassifierMixin, BaseEstimator):
    """GPyTorch's variational classifier for C classes: one latent GP per class on
    shared inducing inputs (k-means centres, learnt), an amplitude × RBF kernel per
    class, a softmax likelihood, minibatch Adam on the ELBO (Hensman et al. 2015) for
    at least ``n_steps`` steps (three epochs or more)."""

    def __init__(
        self,
        n_inducing=200,
        n_steps=3000,
        batch_size=256,
        learning_rate=0.01,
        random_state=0,
    ):
        self.n_inducing = n_inducing
        self.n_steps = n_steps
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.random_state = random_state

    def fit(self, X, y):
        import gpytorch
        import torch

        torch.manual_seed(self.random_state)
        X = np.asarray(X, dtype=float)
        self.classes_, codes = np.unique(y, return_inverse=True)
        C = len(self.classes_)
        train_x = torch.as_tensor(X, dtype=torch.float64)
        train_y = torch.as_tensor(codes)
        centres = kmeans_centres(X, self.n_inducing, self.random_state)
        inducing = torch.as_tensor(np.tile(centres, (C, 1, 1)), dtype=torch.float64)

        class Model(gpytorch.models.ApproximateGP):
            def __init__(self):
                distribution = gpytorch.variational.CholeskyVariationalDistribution(
                    inducing.shape[1], batch_shape=torch.Size([C])
                )
                strategy = gpytorch.variational.IndependentMultitaskVariationalStrategy(
                    gpytorch.variational.VariationalStrategy(
                        self, inducing, distribution, learn_inducing_locations=True
                    ),
                    num_tasks=C,
                )
                super().__init__(strategy)
                self.mean_module = gpytorch.means.ConstantMean(
                    batch_shape=torch.Size([C])
                )
                self.covar_module = gpytorch.kernels.ScaleKernel(
                    gpytorch.kernels.RBFKernel(batch_shape=torch.Size([C])),
                    batch_shape=torch.Size([C]),
                )

            def forward(self, x):
                return gpytorch.distributions.MultivariateNormal(
                    self.mean_module(x), self.covar_module(x)
                )

        model = Model().double()
        model.covar_module.base_kernel.lengthscale = float(
            np.sqrt(np.sum(np.var(X, axis=0)))
        )
        likelihood = gpytorch.likelihoods.SoftmaxLikelihood(
            num_classes=C, mixing_weights=False
        ).double()
        batches = -(-len(train_y) // self.batch_size)
        train_by_minibatches(
            model,
            likelihood,
            (train_x, train_y),
            max(3, -(-self.n_steps // batches)),
            self.batch_size,
            self.learning_rate,
            torch.Generator().manual_seed(self.random_state),
        )
        self.model_, self.likelihood_ = model, likelihood
        self.inducing_points_ = (
            model.variational_strategy.base_variational_strategy.inducing_points[0]
            .detach()
            .numpy()
        )
        return self

    def predict_proba(self, X):
        import gpytorch
        import torch

        with torch.no_grad(), gpytorch.settings.num_likelihood_samples(256):
            x = torch.as_tensor(np.asarray(X, dtype=float), dtype=torch.float64)
            parts = [
                self.likelihood_(self.model_(x[i : i + 2048])).probs.mean(0).numpy()
                for i in range(0, len(x), 2048)
            ]
        return np.concatenate(parts)

    def predict(self, X):
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]
