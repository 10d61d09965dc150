"""DP-SGD (Abadi et al. 2016) on numpy models: per-example gradients, clipping, noise, subsampling.

One step of DP-SGD with Poisson subsampling at rate q, clip norm C and noise multiplier σ:

1. each training example joins the batch independently with probability q;
2. each example's gradient g_i is clipped to norm ≤ C: ḡ_i = g_i · min(1, C/‖g_i‖);
3. the clipped gradients are summed and Gaussian noise N(0, σ²C²·I) is added;
4. θ ← θ − η · (noisy sum) / (q·n)   (dividing by the *expected* batch size, a public number).

Steps 2–3 are :func:`noisy_clipped_sum`, which the audit (:mod:`dpexplore.ml.audit`) calls too, so the
audit tests this code and not a copy. Its ``variant`` argument builds the deliberately broken versions
(never the default): ``"no_clip"`` skips step 2, ``"noise_unscaled"`` adds N(0, σ²·I) (forgets the factor
C). Fixed-size batches (``sampling="fixed"``: B = round(q·n) examples without replacement, divided by B) are
offered with their own accounting (:func:`dpexplore.ml.accounting.dpsgd_epsilon`).

Models (numpy only): ``"logistic"`` regression (weights and a bias) and ``"mlp"``, one hidden layer of
tanh units and a logistic output; per-example gradients are computed in one vectorised pass
(:func:`per_example_gradients`). The loss is the binary cross-entropy.

Randomness: the generator is split once into three spawned streams — the initial weights, the batches, the
noise — so a run with σ = 0 draws exactly the batches of plain SGD (:func:`sgd`) from the same seed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpexplore.core.random import RNGLike, as_generator
from dpexplore.core.validation import check_array, check_choice, check_delta, check_int, check_probability, check_real

from .accounting import MAX_STEPS, check_noise_multiplier, dpsgd_epsilon

__all__ = ["MAX_EXAMPLES", "MAX_FEATURES", "MAX_HIDDEN", "MAX_STEPS", "MODELS", "VARIANTS", "DPSGDResult",
           "accuracy", "dp_sgd", "init_params", "loss", "n_params", "noisy_clipped_sum", "per_example_gradients",
           "predict_proba", "sgd", "train_logistic_batch"]

MODELS = ("logistic", "mlp")
VARIANTS = ("honest", "no_clip", "noise_unscaled")
#: public maxima
MAX_EXAMPLES = 100_000
MAX_FEATURES = 1_000
MAX_HIDDEN = 256
MAX_LR = 1e3
MAX_CLIP = 1e6


def n_params(model: str, d: int, hidden: int = 16) -> int:
    """Number of parameters: d + 1 (logistic), d·h + 2h + 1 (mlp).

    Examples
    --------
    >>> n_params("logistic", 30), n_params("mlp", 30, 16)
    (31, 513)
    """
    return d + 1 if model == "logistic" else d * hidden + 2 * hidden + 1


def init_params(model: str, d: int, hidden: int, rng: np.random.Generator) -> np.ndarray:
    """Initial weights: zeros (logistic); N(0, 1/d) input weights, N(0, 1/h) output weights (mlp)."""
    if model == "logistic":
        return np.zeros(d + 1)
    w1 = rng.normal(0.0, 1.0 / math.sqrt(d), (d, hidden))
    w2 = rng.normal(0.0, 1.0 / math.sqrt(hidden), hidden)
    return np.concatenate([w1.ravel(), np.zeros(hidden), w2, [0.0]])


def _logits(theta: np.ndarray, X: np.ndarray, hidden: int):
    d = X.shape[-1]
    if theta.size == d + 1:
        return X @ theta[:d] + theta[d], None
    w1 = theta[: d * hidden].reshape(d, hidden)
    b1 = theta[d * hidden : d * hidden + hidden]
    w2 = theta[d * hidden + hidden : d * hidden + 2 * hidden]
    a = np.tanh(X @ w1 + b1)
    return a @ w2 + theta[-1], a


def predict_proba(theta: np.ndarray, X: np.ndarray, hidden: int = 16) -> np.ndarray:
    """P(y = 1 | x) under the model with parameters ``theta``."""
    z, _ = _logits(theta, X, hidden)
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # the logistic function, without overflow


def loss(theta: np.ndarray, X: np.ndarray, y: np.ndarray, hidden: int = 16) -> float:
    """Mean binary cross-entropy."""
    z, _ = _logits(theta, X, hidden)
    return float(np.mean(np.logaddexp(0.0, z) - y * z))


def accuracy(theta: np.ndarray, X: np.ndarray, y: np.ndarray, hidden: int = 16) -> float:
    """Fraction of examples classified correctly (threshold 1/2)."""
    z, _ = _logits(theta, X, hidden)
    return float(np.mean((z > 0) == (y == 1)))


def per_example_gradients(theta: np.ndarray, X: np.ndarray, y: np.ndarray, hidden: int = 16) -> np.ndarray:
    """The gradient of each example's loss, shape (b, n_params), in one vectorised pass.

    Examples
    --------
    >>> X, y = np.array([[1.0, 2.0]]), np.array([1])
    >>> per_example_gradients(np.zeros(3), X, y)  # (σ(0) − 1)·[x, 1]
    array([[-0.5, -1. , -0.5]])
    """
    z, a = _logits(theta, X, hidden)
    r = 0.5 * (1.0 + np.tanh(0.5 * z)) - y  # dloss/dz
    if a is None:
        return np.concatenate([X * r[:, None], r[:, None]], axis=1)
    d = X.shape[1]
    w2 = theta[d * hidden + hidden : d * hidden + 2 * hidden]
    dpre = (r[:, None] * w2[None, :]) * (1.0 - a * a)
    gw1 = (X[:, :, None] * dpre[:, None, :]).reshape(X.shape[0], d * hidden)
    return np.concatenate([gw1, dpre, a * r[:, None], r[:, None]], axis=1)


def noisy_clipped_sum(grads: np.ndarray, *, clip_norm: float, noise_multiplier: float, rng: np.random.Generator,
                      variant: str = "honest") -> tuple[np.ndarray, np.ndarray]:
    """Steps 2–3 of DP-SGD: clip each row of ``grads`` (shape (..., b, p)) to norm ≤ C, sum over b, add noise.

    Returns ``(noisy_sum, norms)``: the noisy sum (shape (..., p)) and each example's gradient norm before
    clipping. ``variant`` ``"no_clip"`` / ``"noise_unscaled"`` are the broken versions (module docstring).
    With σ = 0 no noise is drawn.

    Examples
    --------
    >>> s, norms = noisy_clipped_sum(np.array([[3.0, 4.0]]), clip_norm=1.0, noise_multiplier=0.0,
    ...                              rng=np.random.default_rng(0))
    >>> s, norms
    (array([0.6, 0.8]), array([5.]))
    """
    norms = np.sqrt(np.einsum("...ij,...ij->...i", grads, grads))
    if variant == "no_clip":
        total = grads.sum(axis=-2)
    else:
        with np.errstate(divide="ignore"):
            scale = np.minimum(1.0, clip_norm / norms) if math.isfinite(clip_norm) else np.ones_like(norms)
        total = np.einsum("...ij,...i->...j", grads, scale)
    if noise_multiplier > 0.0:
        sd = noise_multiplier * (1.0 if variant == "noise_unscaled" else clip_norm)
        total = total + rng.normal(0.0, sd, total.shape)
    return total, norms


@dataclass(frozen=True)
class DPSGDResult:
    """What :func:`dp_sgd` returns.

    Attributes
    ----------
    weights : ndarray
        The trained parameters (flattened; see :func:`n_params`).
    losses : ndarray, shape (steps,)
        Mean loss of each step's batch (a diagnostic computed on private data: not part of the release).
    norms_before, norms_after : ndarray
        Every per-example gradient norm before and after clipping, all steps concatenated.
    epsilon, delta : float
        The privacy spent (``inf`` when σ = 0); ``accountant`` says by which accountant.
    model, accountant, sampling, variant : str
    hidden, steps, batch_sizes : int, int, ndarray
    sampling_rate, noise_multiplier, clip_norm, lr : float
    """

    weights: np.ndarray
    losses: np.ndarray
    norms_before: np.ndarray
    norms_after: np.ndarray
    epsilon: float
    delta: float
    accountant: str
    model: str
    hidden: int
    steps: int
    sampling: str
    sampling_rate: float
    noise_multiplier: float
    clip_norm: float
    lr: float
    batch_sizes: np.ndarray
    variant: str = "honest"

    @property
    def clipped_fraction(self) -> float:
        """Fraction of per-example gradients that clipping shortened."""
        n = self.norms_before.size
        return float(np.mean(self.norms_before > self.clip_norm)) if n else 0.0

    def accuracy(self, X, y) -> float:
        """The trained model's accuracy on (X, y)."""
        return accuracy(self.weights, np.asarray(X, float), np.asarray(y), self.hidden)


def _check_data(X, y) -> tuple[np.ndarray, np.ndarray]:
    X = check_array(X, "X", ndim=2, min_size=1, max_size=MAX_EXAMPLES * MAX_FEATURES)
    n, d = X.shape
    if not 2 <= n <= MAX_EXAMPLES or not 1 <= d <= MAX_FEATURES:
        raise ValueError(f"X must have 2 to {MAX_EXAMPLES:,} rows and 1 to {MAX_FEATURES:,} columns; got shape "
                         f"{X.shape}")
    y = check_array(y, "y", ndim=1, max_size=MAX_EXAMPLES, allow_bool=True)
    if y.shape[0] != n:
        raise ValueError(f"y must have one label per row of X ({n}); got {y.shape[0]}")
    if not np.all((y == 0) | (y == 1)):
        raise ValueError("y must contain only 0/1 labels")
    return X, y


def _train(X, y, *, model, hidden, steps, q, sigma, clip, lr, sampling, variant, rng):
    n, d = X.shape
    g_init, g_batch, g_noise = as_generator(rng).spawn(3)
    theta = init_params(model, d, hidden, g_init)
    batch = max(1, int(round(q * n)))
    denom = q * n if sampling == "poisson" else batch
    losses, before, sizes = np.empty(steps), [], np.empty(steps, dtype=np.int64)
    for t in range(steps):
        idx = np.flatnonzero(g_batch.random(n) < q) if sampling == "poisson" else g_batch.choice(n, batch,
                                                                                                  replace=False)
        sizes[t] = idx.size
        xb, yb = X[idx], y[idx]
        grads = per_example_gradients(theta, xb, yb, hidden)
        total, norms = noisy_clipped_sum(grads, clip_norm=clip, noise_multiplier=sigma, rng=g_noise, variant=variant)
        if idx.size:
            z, _ = _logits(theta, xb, hidden)
            losses[t] = float(np.mean(np.logaddexp(0.0, z) - yb * z))
        else:
            losses[t] = math.nan
        before.append(norms)
        theta = theta - (lr / denom) * total
    nb = np.concatenate(before) if before else np.empty(0)
    return theta, losses, nb, sizes


def _check_common(model, hidden, steps, sampling_rate, lr, sampling):
    model = check_choice(model, "model", MODELS)
    hidden = check_int(hidden, "hidden", low=1, high=MAX_HIDDEN)
    steps = check_int(steps, "steps", low=1, high=MAX_STEPS)
    q = check_probability(sampling_rate, "sampling_rate", open_low=True)
    lr = check_real(lr, "lr", low=0.0, high=MAX_LR, low_open=True)
    sampling = check_choice(sampling, "sampling", ("poisson", "fixed"))
    return model, hidden, steps, q, lr, sampling


def dp_sgd(X, y, *, model: str = "logistic", hidden: int = 16, steps: int = 200, sampling_rate: float = 0.05,
           noise_multiplier: float = 1.0, clip_norm: float = 1.0, lr: float = 0.5, delta: float = 1e-5,
           accountant: str = "pld", sampling: str = "poisson", variant: str = "honest",
           rng: RNGLike = None) -> DPSGDResult:
    """Train ``model`` on (X, y) with DP-SGD; return the weights, diagnostics and the ε spent.

    Parameters
    ----------
    X : array, shape (n, d)
    y : array of {0, 1}, shape (n,)
    model : {"logistic", "mlp"}
    hidden : int
        Hidden units of the mlp (ignored for logistic).
    steps : int
        T, the number of noisy steps.
    sampling_rate : float in (0, 1]
        q: Poisson sampling rate (or the batch fraction for ``sampling="fixed"``).
    noise_multiplier : float ≥ 0
        σ: noise standard deviation per coordinate divided by C.
    clip_norm : float > 0 or inf
        C (``inf`` only with σ = 0: no clipping, no noise).
    lr : float > 0
        η, the step size.
    delta : float in (0, 1)
    accountant : {"pld", "rdp", "none", "basic"}
        How ε is counted (:func:`dpexplore.ml.accounting.dpsgd_epsilon`); ``"rdp"`` with ``sampling="fixed"``.
    sampling : {"poisson", "fixed"}
    variant : {"honest", "no_clip", "noise_unscaled"}
        Broken variants for teaching (they still *report* the honest ε, which is then wrong).
    rng : Generator, int or None

    Returns
    -------
    DPSGDResult

    Raises
    ------
    ValueError, TypeError
        A parameter out of range (the message names it, the range and the value).

    References
    ----------
    M. Abadi et al., "Deep learning with differential privacy", CCS 2016 (Algorithm 1).

    Examples
    --------
    >>> from dpexplore.ml.data import breast_cancer
    >>> data = breast_cancer()
    >>> r = dp_sgd(data.X_train, data.y_train, steps=200, sampling_rate=0.05, noise_multiplier=1.0,
    ...            clip_norm=1.0, lr=0.5, rng=0)
    >>> round(r.epsilon, 1), r.accuracy(data.X_test, data.y_test) > 0.85
    (4.8, True)
    """
    model, hidden, steps, q, lr, sampling = _check_common(model, hidden, steps, sampling_rate, lr, sampling)
    X, y = _check_data(X, y)
    sigma = check_noise_multiplier(noise_multiplier)
    clip = check_real(clip_norm, "clip_norm", low=0.0, low_open=True, allow_inf=True)
    if math.isinf(clip) and sigma > 0:
        raise ValueError(f"clip_norm must be finite when noise_multiplier > 0 (the noise is σ·C); got {clip_norm!r}")
    if clip > MAX_CLIP and math.isfinite(clip):
        raise ValueError(f"clip_norm must be <= {MAX_CLIP:g} or inf; got {clip_norm!r}")
    delta = check_delta(delta)
    variant = check_choice(variant, "variant", VARIANTS)
    size = n_params(model, X.shape[1], hidden)
    if X.shape[0] * size > 50_000_000:
        raise ValueError(f"n * n_params must be <= 50,000,000; got {X.shape[0]} * {size}")
    eps = dpsgd_epsilon(sampling_rate=q, noise_multiplier=sigma, steps=steps, delta=delta, accountant=accountant,
                        sampling=sampling, n=X.shape[0])
    theta, losses, nb, sizes = _train(X, y, model=model, hidden=hidden, steps=steps, q=q, sigma=sigma, clip=clip,
                                      lr=lr, sampling=sampling, variant=variant, rng=rng)
    after = nb if variant == "no_clip" else np.minimum(nb, clip)
    return DPSGDResult(theta, losses, nb, after, float(eps), delta, accountant, model, hidden, steps, sampling, q,
                       sigma, clip, lr, sizes, variant)


def sgd(X, y, *, model: str = "logistic", hidden: int = 16, steps: int = 200, sampling_rate: float = 0.05,
        lr: float = 0.5, sampling: str = "poisson", rng: RNGLike = None) -> np.ndarray:
    """Plain (non-private) mini-batch SGD with the same batches as :func:`dp_sgd` from the same ``rng``.

    Returns the trained parameters. Equal to ``dp_sgd(..., noise_multiplier=0, clip_norm=inf).weights``.

    Examples
    --------
    >>> from dpexplore.ml.data import breast_cancer
    >>> data = breast_cancer()
    >>> w = sgd(data.X_train, data.y_train, rng=0)
    >>> accuracy(w, data.X_test, data.y_test) > 0.9
    True
    """
    model, hidden, steps, q, lr, sampling = _check_common(model, hidden, steps, sampling_rate, lr, sampling)
    X, y = _check_data(X, y)
    theta, *_ = _train(X, y, model=model, hidden=hidden, steps=steps, q=q, sigma=0.0, clip=math.inf, lr=lr,
                       sampling=sampling, variant="honest", rng=rng)
    return theta


def train_logistic_batch(X, y, *, noise_multipliers, rngs, steps: int = 200, sampling_rate: float = 0.05,
                         clip_norms, lr: float = 0.5) -> np.ndarray:
    """Train R logistic models with DP-SGD at once (Poisson sampling); row r equals
    ``dp_sgd(X, y, model="logistic", noise_multiplier=noise_multipliers[r], clip_norm=clip_norms[r],
    rng=rngs[r], ...).weights`` up to floating-point rounding.

    The speed-up: for logistic regression an example's gradient is r_i·x̃_i (x̃ = [x, 1], r_i = p_i − y_i),
    so its norm is |r_i|·‖x̃_i‖ and the clipped batch sum is one matrix product over all runs. Each run
    draws its batches and noise from its own streams exactly as :func:`dp_sgd` does. Used by the page's
    accuracy panel; a test checks it against :func:`dp_sgd`. Returns weights of shape (R, d + 1).

    Examples
    --------
    >>> from dpexplore.ml.data import breast_cancer
    >>> data = breast_cancer()
    >>> W = train_logistic_batch(data.X_train, data.y_train, noise_multipliers=[1.0, 0.0], clip_norms=[1.0, np.inf],
    ...                          rngs=[0, 1], steps=50)
    >>> one = dp_sgd(data.X_train, data.y_train, noise_multiplier=1.0, clip_norm=1.0, steps=50, rng=0).weights
    >>> bool(np.allclose(W[0], one))
    True
    """
    X, y = _check_data(X, y)
    steps = check_int(steps, "steps", low=1, high=MAX_STEPS)
    q = check_probability(sampling_rate, "sampling_rate", open_low=True)
    lr = check_real(lr, "lr", low=0.0, high=MAX_LR, low_open=True)
    sig = np.array([check_noise_multiplier(v) for v in noise_multipliers], dtype=float)
    clips = np.array([check_real(c, "clip_norms", low=0.0, low_open=True, allow_inf=True) for c in clip_norms])
    if len(rngs) != sig.size or clips.size != sig.size or not 1 <= sig.size <= 1000:
        raise ValueError(f"noise_multipliers, clip_norms and rngs must have the same length (1 to 1000); got "
                         f"{sig.size}, {clips.size}, {len(rngs)}")
    if np.any(np.isinf(clips) & (sig > 0)):
        raise ValueError("clip_norms must be finite where noise_multipliers > 0")
    n, d = X.shape
    R = sig.size
    Xa = np.hstack([X, np.ones((n, 1))])
    xnorm = np.linalg.norm(Xa, axis=1)
    streams = [as_generator(g).spawn(3) for g in rngs]
    W = np.zeros((R, d + 1))
    denom = q * n
    mask = np.empty((R, n))
    noise = np.zeros((R, d + 1))
    for _ in range(steps):
        for r, (_, gb, gn) in enumerate(streams):
            mask[r] = gb.random(n) < q
            if sig[r] > 0:
                noise[r] = gn.normal(0.0, sig[r] * clips[r], d + 1)
        # einsum, not @: BLAS threads on these small products cost far more than they save on a busy machine
        z = np.einsum("rj,nj->rn", W, Xa)
        res = 0.5 * (1.0 + np.tanh(0.5 * z)) - y[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = np.where(np.isinf(clips)[:, None], 1.0,
                             np.minimum(1.0, clips[:, None] / (np.abs(res) * xnorm[None, :])))
        total = np.einsum("rn,nj->rj", mask * res * scale, Xa) + noise
        W = W - (lr / denom) * total
    return W
