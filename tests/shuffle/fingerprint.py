"""Fingerprint of dpexplore.shuffle's public numbers (issue 28: the layout refactor changes none of them).

``python tests/shuffle/fingerprint.py --write`` stores the current outputs in ``fingerprint.json``;
tests/shuffle/test_layout.py recomputes them and compares exactly (``repr`` of every float). The
file was written from the code *before* the package was split into layers; where a later change
moves a number on purpose (a faster branch and bound, the new composition bracket), the case is
listed in ``CHANGED`` with the reason, and compared with that tolerance instead.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

FILE = Path(__file__).with_name("fingerprint.json")
def _close(a, b, rel=1e-9) -> bool:
    return abs(float(a) - float(b)) <= rel * max(abs(float(a)), abs(float(b)))


def _bnb_moved(new, old) -> bool:
    """Issue 28 (binary): the branch and bound's blocks are chosen differently (another width rule, narrower
    windows for the block pairs), so its upper end moves *inside the certificate*: the lower end (an exact
    pair, the same k) is unchanged and the new upper end is in [lower, lower·(1 + 1e-3)] (the number of
    pairs evaluated is not compared: it is what the width rule changes)."""
    up, lo, k, _, method = new
    up0, lo0, k0, _, method0 = old
    return (_close(lo, lo0) and k == k0 and method == method0
            and float(lo) <= float(up) <= float(lo) * (1 + 1e-3))


def _delta_bnb_moved(new, old) -> bool:
    """As :func:`_bnb_moved` for the δ curve: lower unchanged, upper in [lower, lower·(1 + 1e-3) + 1e-18]."""
    (up, lo, ex), (_, lo0, ex0) = new, old
    return (ex == ex0 and all(map(_close, lo, lo0))
            and all(float(b) <= float(a) <= float(b) * (1 + 1e-3) + 1e-18 for a, b in zip(up, lo)))


def _first_moved(rel):
    """The first number (from the certified worst-case ε, whose upper end moved inside its 1e-3 bracket,
    see :func:`_bnb_moved`) within ``rel`` of before; the others unchanged."""
    return lambda new, old: _close(new[0], old[0], rel) and all(map(_close, new[1:], old[1:]))


#: cases whose numbers changed on purpose after the split: key -> check(new, old) (with the reason)
CHANGED: dict[str, object] = {
    "bnb_b4_2e4": _bnb_moved,
    "bnb_b1_1e5": _bnb_moved,
    "bnb_b8_1e5": _bnb_moved,
    "worst_delta_b1_bnb": _delta_bnb_moved,
    # affordable ε0 under exact accounting: the root of the certified ε(ε0), which moved by ≤ 1e-3 relative
    "solver": _first_moved(1e-3),
    # shuffled_epsilon(accounting="exact") is the certified worst case (n = 1e5, ε0 = 4): moved inside its bracket
    "accountings": _first_moved(1e-3),
    # compose_rounds now composes the exact blanket with M revealed (binary RR: the same FMT23 pair as before);
    # its certified upper end may only be tighter (up to the PLD grid's rounding, ≤ 1e-4 relative here)
    "compose_b2": lambda new, old: float(new[0]) <= float(old[0]) * (1 + 1e-4),
    "compose_k3": lambda new, old: float(new[0]) <= float(old[0]) * (1 + 1e-4),
}


def _f(x):
    if isinstance(x, (np.ndarray, list, tuple)):
        return [_f(v) for v in np.asarray(x, dtype=float).ravel()]
    return repr(float(x))


def cases() -> dict[str, object]:
    from dpexplore import shuffle as S
    from dpexplore.shuffle.worst import third_symbol_epsilon

    out: dict[str, object] = {}
    b1, b2, b4 = S.binary_rr(1.0), S.binary_rr(2.0), S.binary_rr(4.0)
    k3, k4, k16 = S.k_rr(2.0, 3), S.k_rr(1.0, 4), S.k_rr(1.0, 16)
    out["constants"] = _f([S.chi_square(b1), S.fisher_constant(k3, 0.3), S.mu3(b2),
                           S.mixture_constant(k3, 0.2)])
    out["exact_pair_b1_1e3"] = _f(S.exact_epsilon(b1, 1000, 1e-6, k=0))
    out["exact_pair_b1_k5"] = _f(S.exact_delta(b1, 3000, [0.05, 0.2], k=5))
    out["worst_delta_exhaustive"] = _f(S.exact_delta(b2, 500, [0.1, 0.5]))
    w = S.worst_case_epsilon(b2, 200, 1e-3)
    out["worst_exhaustive"] = [_f(w.epsilon), _f(w.lower), w.pair, w.method]
    for name, R, n in (("bnb_b4_2e4", b4, 20_000), ("bnb_b1_1e5", b1, 100_000),
                       ("bnb_b8_1e5", S.binary_rr(8.0), 100_000)):
        w = S.worst_case_epsilon(R, n, 1e-6)
        out[name] = [_f(w.epsilon), _f(w.lower), w.pair_k, w.pairs_evaluated, w.method]
    for name, R, n in (("krr3_1e3", k3, 1000), ("krr16_1e5", k16, 100_000), ("krr4_300", k4, 300)):
        w = S.worst_case_epsilon(R, n, 1e-6)
        out["worst_" + name] = [_f(w.epsilon), _f(w.lower), w.pair, w.method]
    up, lo, ex = S.worst_case_delta(k4, 5000, [0.05, 0.2])
    out["worst_delta_krr4"] = [_f(up), _f(lo), ex]
    up, lo, ex = S.worst_case_delta(b1, 5000, [0.05, 0.2])
    out["worst_delta_b1_bnb"] = [_f(up), _f(lo), ex]
    out["dominating"] = _f([*S.dominating_pair_epsilon(b4, 100_000, 1e-6),
                            S.dominating_pair_delta(k3, 10_000, 0.1),
                            S.dominating_pair_delta(k3, 10_000, 0.1, bound="lower")])
    out["blanket_pair"] = _f([S.blanket_pair_delta(k3, 10_000, 0.1),
                              S.blanket_pair_delta(k3, 10_000, 0.1, bound="lower")])
    out["fmt"] = _f([*S.fmt_epsilon_bracket(4.0, 100_000, 1e-6), S.fmt_epsilon(4.0, 100_000, 1e-6),
                     S.fmt21_epsilon(4.0, 100_000, 1e-6), *S.fmt_delta(2.0, 10_000, [0.1, 0.3])])
    out["vr"] = _f([S.variation_ratio_epsilon(2.0, 1000, 1e-6, k=3),
                    *S.variation_ratio_delta(2.0, 10_000, [0.05, 0.1], k=2)])
    out["blanket"] = _f([S.blanket_epsilon(1.0, 100_000, 1e-6, method=m)
                         for m in ("closed_form", "bennett", "exact_blanket")]
                        + [*S.blanket_delta(1.0, 100_000, [0.02, 0.05], k=3)])
    out["third"] = _f([third_symbol_epsilon(k3, 1000, 1e-6), third_symbol_epsilon(k16, 100_000, 1e-6),
                       S.pure_pair(k3, 300, others=2).epsilon(1e-6)])
    prof = S.privacy_profile(b1, 200, deltas=[1e-6, 1e-3], epsilons=[0.1, 0.4])
    out["profile"] = [_f(prof.delta_upper), _f(prof.epsilon_upper), _f(prof.epsilon_lower), prof.method]
    out["solver"] = _f([S.affordable_epsilon0(0.5, 1e-6, 10_000, accounting=a).epsilon0
                        for a in ("exact", "fmt21_numerical", "gdp")]
                       + [S.smallest_n(0.5, 1e-6, 2.0, n_max=10**5).n])
    out["accountings"] = _f([S.shuffled_epsilon(4.0, 100_000, 1e-6, accounting=a) for a in S.ACCOUNTINGS])
    out["asymptotics"] = _f([S.chernoff_epsilon(b1, 1000, 1e-6), S.gdp_epsilon_at(S.gdp_mu(b1, 1000), 1e-6),
                             S.jsd_exact(b1, 100), S.jsd_two_term(b1, 100), *S.poisson_delta(2.0, [0.1, 1.0]),
                             S.gdp_mu_multi(b1, 1000, 4), S.poisson_lambda(3.0, 1000)])
    c = S.compose_rounds(b2, 2000, 10, 1e-6)
    out["compose_b2"] = _f([c.epsilon, c.epsilon_one_round])
    c = S.compose_rounds(S.k_rr(1.0, 3), 5000, 10, 1e-6)
    out["compose_k3"] = _f([c.epsilon, c.epsilon_one_round])
    return out


def main() -> None:
    got = cases()
    if "--write" in sys.argv:
        FILE.write_text(json.dumps(got, indent=1, ensure_ascii=False) + "\n")
        print(f"wrote {FILE}")
    else:
        print(json.dumps(got, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
