"""Core building blocks: permute-and-flip's exact law vs sampling, and shuffle accountants vs n."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _timing import median_time, table  # noqa: E402

from dpexplore.core import (  # noqa: E402
    clone_pair_epsilon,
    fmt21_closed_form_epsilon,
    gaussian_sigma,
    permute_and_flip,
    permute_and_flip_probabilities,
)


def main() -> None:
    rng = np.random.default_rng(0)
    rows = []
    for k in (10, 100, 1000):
        scores = rng.normal(size=k)
        t_law = median_time(lambda s=scores: permute_and_flip_probabilities(s, 1.0))
        t_one = median_time(lambda s=scores: permute_and_flip(s, 1.0, rng=rng))
        t_argmax = median_time(lambda s=scores: np.argmax(s))
        rows.append([k, f"{t_law * 1e3:.3f}", f"{t_one * 1e6:.1f}", f"{t_argmax * 1e6:.2f}"])
    print("## permute-and-flip\n")
    print(table(["K", "exact law (ms)", "one sample (µs)", "argmax floor (µs)"], rows))

    rows = []
    for n in (10**4, 10**5, 10**6, 10**7):
        t_num = median_time(lambda n=n: clone_pair_epsilon(2.0, n, 1e-6), repeat=3)
        t_closed = median_time(lambda n=n: fmt21_closed_form_epsilon(2.0, n, 1e-6))
        rows.append([f"{n:.0e}", f"{clone_pair_epsilon(2.0, n, 1e-6):.4f}", f"{t_num:.3f}",
                     f"{fmt21_closed_form_epsilon(2.0, n, 1e-6):.4f}", f"{t_closed * 1e6:.1f}"])
    print("\n## shuffle accountants (ε0 = 2, δ = 1e-6)\n")
    print(table(["n", "FMT21 numerical ε", "time (s)", "closed-form ε", "time (µs)"], rows))
    t_sigma = median_time(lambda: gaussian_sigma(1.0, 1e-5))
    print(f"\nanalytic Gaussian σ(ε=1, δ=1e-5): {t_sigma * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
