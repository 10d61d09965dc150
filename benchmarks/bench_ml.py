"""Private ML page (issue 43): one DP-SGD training run at the page defaults against the floor (plain numpy
mini-batch SGD of the same size and batches, no per-example gradients, no clipping, no noise), for the logistic
model and the MLP; then each panel's experiment at the page defaults and the audit at its defaults.

    python benchmarks/bench_ml.py [--quick]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _timing import machine_line, median_time, table  # noqa: E402

from dpexplore.ml import accounting as A  # noqa: E402
from dpexplore.ml import experiments as X  # noqa: E402
from dpexplore.ml.audit import audit_dpsgd  # noqa: E402
from dpexplore.ml.data import breast_cancer  # noqa: E402
from dpexplore.ml.mechanisms import _logits, dp_sgd, init_params  # noqa: E402

DEFAULTS = dict(steps=200, sampling_rate=0.05, noise_multiplier=1.0, clip_norm=1.0, lr=0.5)


def floor_sgd(X_, y, *, model, hidden=16, steps=200, q=0.05, lr=0.5, rng=0):
    """Plain mini-batch SGD with the batch's summed gradient by one matrix product (backprop for the MLP)."""
    n, d = X_.shape
    g_init, g_batch, _ = np.random.default_rng(rng).spawn(3)
    theta = init_params(model, d, hidden, g_init)
    for _ in range(steps):
        idx = np.flatnonzero(g_batch.random(n) < q)
        xb, yb = X_[idx], y[idx]
        z, a = _logits(theta, xb, hidden)
        r = 0.5 * (1.0 + np.tanh(0.5 * z)) - yb
        if a is None:
            g = np.concatenate([xb.T @ r, [r.sum()]])
        else:
            w2 = theta[d * hidden + hidden: d * hidden + 2 * hidden]
            dpre = (r[:, None] * w2[None, :]) * (1.0 - a * a)
            g = np.concatenate([(xb.T @ dpre).ravel(), dpre.sum(0), a.T @ r, [r.sum()]])
        theta = theta - lr / (q * n) * g
    return theta


def main() -> None:
    quick = "--quick" in sys.argv
    print(machine_line())
    data = breast_cancer()
    Xt, yt = data.X_train, data.y_train
    rows = []
    for model in ("logistic", "mlp"):
        dp_sgd(Xt, yt, model=model, rng=0, **DEFAULTS)  # the accountant's answer is cached after this
        t_dp = median_time(lambda m=model: dp_sgd(Xt, yt, model=m, rng=0, **DEFAULTS), repeat=5 if quick else 15)
        t_fl = median_time(lambda m=model: floor_sgd(Xt, yt, model=m), repeat=5 if quick else 15)
        rows.append([model, f"{t_dp:.3f}", f"{t_fl:.3f}", f"{t_dp / t_fl:.1f}", "yes" if t_dp <= 0.3 else "NO"])
    print("\n## one training run at the page defaults (T = 200, q = 0.05, n = 455, d = 30; median seconds)\n")
    print(table(["model", "dp_sgd", "floor: plain SGD", "ratio", "≤ 0.3 s"], rows))

    rows = []
    A._epsilon.cache_clear()
    A._one_step_pld.cache_clear()
    A._one_step_rdp.cache_clear()
    for name, fn in (("accuracy vs noise (7 σ × 10 seeds + non-private)", lambda: X.accuracy_vs_noise(rng=0)),
                     ("ε vs steps (4 accountants × 11 T), cold", lambda: X.epsilon_vs_steps()),
                     ("gradient norms (one run)", lambda: X.gradient_norms(rng=0)),
                     ("audit, honest, 20 000 runs × 2, T = 20", lambda: audit_dpsgd(runs=20_000, rng=0)),
                     ("audit, no clipping", lambda: audit_dpsgd("no_clip", runs=20_000, rng=0))):
        t0 = time.perf_counter()
        fn()
        rows.append([name, f"{time.perf_counter() - t0:.2f}"])
    print("\n## each panel's experiment at the page defaults (one call, seconds; accounting caches cleared first)\n")
    print(table(["panel", "seconds"], rows))
    print("\n" + machine_line("at the end"))


if __name__ == "__main__":
    main()
