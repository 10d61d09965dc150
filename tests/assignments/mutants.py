"""Wrong solutions for the mutation test of each assignment's grader (tests/assignments/test_assignments.py).

``MUTANTS[assignment]`` is a list of mutant notebooks. Each mutant replaces whole code cells of the reference
(solution) notebook: ``cells`` maps a string that identifies the cell (it occurs in that cell only) to the wrong
source; ``scores`` is the score each question must then get (questions not named keep full marks). Every
autograded question has at least one mutant that scores 0 on it. ``None`` as ``cells`` means the student notebook
as handed out (every ``...`` left in place): every autograded question scores 0.
"""

MUTANTS = {
    "intro": [
        {"name": "unanswered", "cells": None, "scores": "zero"},
        {
            "name": "textbook-slips",
            "cells": {
                # q1: the mean of the released bits, not debiased
                "def rr_debias(": "def rr_debias(released, epsilon):\n    return float(np.mean(released))",
                # q2: noise scale epsilon instead of 1/epsilon
                "def laplace_count(": "def laplace_count(bits, epsilon, rng):\n    rng = as_generator(rng)\n"
                                      "    return float(np.sum(bits) + rng.laplace(0.0, epsilon))",
                # q3: one week's epsilon, not composed (a); k * mu instead of mu * sqrt(k) (b)
                "eps_basic =": "eps_basic = 0.25\neps_gdp = gdp_epsilon(0.3 * 12, 1e-5)",
                # q4: the classic sigma (Dwork & Roth A.1), not the analytic one
                "sigma =": "sigma = 1e-3 * math.sqrt(2 * math.log(1.25 / 1e-5)) / 1.0",
                # q5: prior * e^eps, not the Bayes posterior
                "posterior =": "posterior = 0.01 * math.e",
                # q6: the bug left in place
                "def rr_answer_fixed(": "def rr_answer_fixed(bit, epsilon, rng):\n    rng = as_generator(rng)\n"
                                        "    if rng.random() < 1 / (1 + math.exp(epsilon)):\n"
                                        "        return int(rng.random() < 0.5)\n    return int(bit)",
            },
            "scores": {"q1": 0, "q2": 0, "q3": 0, "q4": 0, "q5": 0, "q6": 0},
        },
        {
            "name": "half-fixes",
            "cells": {
                # q1: divides by (1 - mu) instead of (1 - 2 mu)
                "def rr_debias(": "def rr_debias(released, epsilon):\n    mu = flip_probability(epsilon)\n"
                                  "    return float((np.mean(released) - mu) / (1 - mu))",
                # q2: no noise at all
                "def laplace_count(": "def laplace_count(bits, epsilon, rng):\n    return float(np.sum(bits))",
                # q3 (b) only: k * mu instead of mu * sqrt(k)
                "eps_basic =": "eps_basic = 12 * 0.25\neps_gdp = gdp_epsilon(0.3 * 12, 1e-5)",
                # q4: sensitivity 1 (the sum's), not 1/n (the mean's)
                "sigma =": "sigma = gaussian_sigma(1.0, 1e-5, 1.0)",
                # q6: random answers with probability 1.5 mu: true eps = log((1 - 0.75 mu)/(0.75 mu)) = 1.38
                "def rr_answer_fixed(": "def rr_answer_fixed(bit, epsilon, rng):\n    rng = as_generator(rng)\n"
                                        "    if rng.random() < 1.5 / (1 + math.exp(epsilon)):\n"
                                        "        return int(rng.random() < 0.5)\n    return int(bit)",
            },
            "scores": {"q1": 0, "q2": 0, "q3": 1, "q4": 0, "q6": 0},
        },
        {
            "name": "over-noised",
            "cells": {
                # q6: private (random answers 90 % of the time: true eps = log(0.55/0.45) = 0.2) but the debiased
                # estimate's sd is 5.2x correct randomized response's: loses the accuracy point only
                "def rr_answer_fixed(": "def rr_answer_fixed(bit, epsilon, rng):\n    rng = as_generator(rng)\n"
                                        "    if rng.random() < 0.9:\n        return int(rng.random() < 0.5)\n"
                                        "    return int(bit)",
            },
            "scores": {"q6": 3},
        },
        {
            "name": "constant",
            "cells": {
                # q6: always "no": private (eps = 0) and useless: no points
                "def rr_answer_fixed(": "def rr_answer_fixed(bit, epsilon, rng):\n    return 0",
            },
            "scores": {"q6": 0},
        },
    ],
    "statistics": [
        {"name": "unanswered", "cells": None, "scores": "zero"},
        {
            "name": "textbook-slips",
            "cells": {
                # q1: the sum's sensitivity (upper - lower), not the mean's (upper - lower)/n
                "def clipped_mean(": "def clipped_mean(x, lower, upper, epsilon, rng):\n    rng = as_generator(rng)\n"
                                     "    x = np.clip(np.asarray(x, dtype=float), lower, upper)\n"
                                     "    return float(x.mean() + rng.laplace(0.0, (upper - lower) / epsilon))",
                # q2: the Laplace scale b for the sd (not sqrt(2) b); the bias with its sign flipped
                "noise_sd =": "noise_sd = 100 / (incomes.size * 0.5)\n"
                              "bias = incomes.mean() - np.clip(incomes, 0, 100).mean()",
                # q3: the bug left in place (no clipping)
                "def mean_release_fixed(": "def mean_release_fixed(x, lower, upper, epsilon, rng):\n"
                                           "    rng = as_generator(rng)\n    x = np.asarray(x, dtype=float)\n"
                                           "    return float(x.mean()\n"
                                           "                 + rng.laplace(0.0, (upper - lower) / (x.size * epsilon)))",
            },
            "scores": {"q1": 0, "q2": 0, "q3": 0},
        },
        {
            "name": "half-fixes",
            "cells": {
                # q1: half the Laplace scale (true eps = 2 eps)
                "def clipped_mean(": "def clipped_mean(x, lower, upper, epsilon, rng):\n    rng = as_generator(rng)\n"
                                     "    x = np.clip(np.asarray(x, dtype=float), lower, upper)\n"
                                     "    return float(x.mean()\n"
                                     "                 + rng.laplace(0.0, (upper - lower) / (2 * x.size * epsilon)))",
                # q2 (a) only: the Laplace scale b for the sd
                "noise_sd =": "noise_sd = 100 / (incomes.size * 0.5)\n"
                              "bias = np.clip(incomes, 0, 100).mean() - incomes.mean()",
                # q3: clipped, but half the noise: true eps = 2 on the audit's pair (its tail audit finds >= 1.75 in
                # 40 of 40 seeds)
                "def mean_release_fixed(": "def mean_release_fixed(x, lower, upper, epsilon, rng):\n"
                                           "    rng = as_generator(rng)\n"
                                           "    x = np.clip(np.asarray(x, dtype=float), lower, upper)\n"
                                           "    return float(x.mean()\n"
                                           "        + rng.laplace(0.0, (upper - lower) / (2 * x.size * epsilon)))",
            },
            "scores": {"q1": 0, "q2": 1, "q3": 0},
        },
        {
            "name": "over-noised",
            "cells": {
                # q3: private (3x the noise: eps/3) but 3x the sd: loses the accuracy point only
                "def mean_release_fixed(": "def mean_release_fixed(x, lower, upper, epsilon, rng):\n"
                                           "    rng = as_generator(rng)\n"
                                           "    x = np.clip(np.asarray(x, dtype=float), lower, upper)\n"
                                           "    return float(x.mean()\n"
                                           "        + rng.laplace(0.0, 3 * (upper - lower) / (x.size * epsilon)))",
            },
            "scores": {"q3": 3},
        },
        {
            "name": "constant",
            "cells": {
                # q3: always 5.0, the middle of [0, 10]: private (eps = 0) and useless: no points
                "def mean_release_fixed(": "def mean_release_fixed(x, lower, upper, epsilon, rng):\n    return 5.0",
            },
            "scores": {"q3": 0},
        },
    ],
    "selection": [
        {"name": "unanswered", "cells": None, "scores": "zero"},
        {
            "name": "textbook-slips",
            "cells": {
                # q1: the smallest noisy score
                "def noisy_max(": "def noisy_max(scores, epsilon, sensitivity, rng):\n    rng = as_generator(rng)\n"
                                  "    q = np.asarray(scores, dtype=float)\n"
                                  "    return int(np.argmin(q + rng.laplace(0.0, 2 * sensitivity / epsilon, q.size)))",
                # q2: Delta/eps instead of 2 Delta/eps
                "loss =": "loss = (1 / 0.5) * (math.log(100) + 3)",
                # q3: the bug left in place
                "def exp_mech_fixed(": "def exp_mech_fixed(scores, epsilon, sensitivity, rng):\n"
                                       "    rng = as_generator(rng)\n"
                                       "    q = np.asarray(scores, dtype=float)\n"
                                       "    w = np.exp(epsilon * (q - q.max()) / sensitivity)\n"
                                       "    return int(rng.choice(q.size, p=w / w.sum()))",
            },
            "scores": {"q1": 0, "q2": 0, "q3": 0},
        },
        {
            "name": "half-fixes",
            "cells": {
                # q1: scale Delta/eps (the monotone scale, for general scores)
                "def noisy_max(": "def noisy_max(scores, epsilon, sensitivity, rng):\n    rng = as_generator(rng)\n"
                                  "    q = np.asarray(scores, dtype=float)\n"
                                  "    return int(np.argmax(q + rng.laplace(0.0, sensitivity / epsilon, q.size)))",
                # q3: a uniformly random candidate: private (eps = 0), average loss 7.7 x the exponential
                # mechanism's: no points
                "def exp_mech_fixed(": "def exp_mech_fixed(scores, epsilon, sensitivity, rng):\n"
                                       "    return int(as_generator(rng).integers(len(scores)))",
            },
            "scores": {"q1": 0, "q3": 0},
        },
        {
            "name": "over-noised",
            "cells": {
                # q3: private (eps/4) but its average loss on (0, 2, ..., 18) is 5.25, above 2 x 1.16
                "def exp_mech_fixed(": "def exp_mech_fixed(scores, epsilon, sensitivity, rng):\n"
                                       "    rng = as_generator(rng)\n"
                                       "    q = np.asarray(scores, dtype=float)\n"
                                       "    w = np.exp(epsilon * (q - q.max()) / (8 * sensitivity))\n"
                                       "    return int(rng.choice(q.size, p=w / w.sum()))",
            },
            "scores": {"q3": 3},
        },
    ],
}

# the ml assignment (assignments/ml/ml.ipynb); its wrong solutions share the per-example clipping lines
_ML_HEAD = ("def noisy_mean_gradient_fixed(grads, clip_norm, noise_multiplier, batch_size, rng):\n"
            "    rng = as_generator(rng)\n    g = np.asarray(grads, dtype=float)\n")
_ML_CLIP = ("    s = np.minimum(1.0, clip_norm / np.maximum(np.linalg.norm(g, axis=1), 1e-300))\n"
            "    total = (g * s[:, None]).sum(axis=0)\n")
_ML_Q1 = "def clip_and_noise(grads, clip_norm, noise_multiplier, rng):\n" + _ML_HEAD.split("\n", 1)[1] + _ML_CLIP
_ML_PLD = "eps_pld = dpsgd_epsilon(sampling_rate=0.01, noise_multiplier=1.0, steps=1000, delta=1e-5"

MUTANTS["ml"] = [
    {"name": "unanswered", "cells": None, "scores": "zero"},
    {
        "name": "textbook-slips",
        "cells": {
            # q1: one noise draw added to every coordinate (the coordinates' noise perfectly correlated)
            "def clip_and_noise(": _ML_Q1 + "    return total + rng.normal(0.0, noise_multiplier * clip_norm)",
            # q2: the RDP accountant (a); T * mu instead of sqrt(T) * mu (b)
            "eps_pld =": _ML_PLD + ", accountant='rdp')\neps_none = gdp_epsilon(1000 / 1.0, 1e-5)",
            # q3: the bug left in place (the batch's average clipped, not each example)
            "def noisy_mean_gradient_fixed(": _ML_HEAD + "    m = g.sum(axis=0) / batch_size\n"
                                              "    m = m * min(1.0, clip_norm / max(np.linalg.norm(m), 1e-300))\n"
                                              "    return m + rng.normal(0.0, noise_multiplier * clip_norm / batch_size"
                                              ", m.shape)",
        },
        "scores": {"q1": 0, "q2": 0, "q3": 0},
    },
    {
        "name": "half-fixes",
        "cells": {
            # q1: noise sd sigma, not sigma * C (the grader's C = 2: half the sd)
            "def clip_and_noise(": _ML_Q1 + "    return total + rng.normal(0.0, noise_multiplier, total.shape)",
            # q2 (b) only: basic composition of T Gaussian steps at delta/T each, not their GDP composition
            "eps_pld =": _ML_PLD + ")\neps_none = 1000 * gdp_epsilon(1 / 1.0, 1e-5 / 1000)",
            # q3: each example clipped, but the bug's noise sigma*C/B added to the sum before dividing by B: the
            # average's noise sd sigma*C/B^2, B = 10 times too small
            "def noisy_mean_gradient_fixed(": _ML_HEAD + _ML_CLIP
                                              + "    total = total + rng.normal(0.0, noise_multiplier * clip_norm"
                                                " / batch_size, total.shape)\n    return total / batch_size",
        },
        "scores": {"q1": 0, "q2": 1, "q3": 0},
    },
    {
        "name": "over-noised",
        "cells": {
            # q3: private (noise multiplier 3 sigma) but 3x the sd: loses the accuracy point only
            "def noisy_mean_gradient_fixed(": _ML_HEAD + _ML_CLIP
                                              + "    return (total + rng.normal(0.0, 3 * noise_multiplier * clip_norm,"
                                                " total.shape)) / batch_size",
        },
        "scores": {"q3": 3},
    },
    {
        "name": "constant",
        "cells": {
            # q3: always the zero vector: private (eps = 0) and useless: no points
            "def noisy_mean_gradient_fixed(": "def noisy_mean_gradient_fixed(grads, clip_norm, noise_multiplier, "
                                              "batch_size, rng):\n    return np.zeros(np.shape(grads)[1])",
        },
        "scores": {"q3": 0},
    },
]

# attacks (assignments/attacks/attacks.ipynb): q1 and q4 are Laplace subset counts with a given noise scale
_COUNTS = ("def {name}(secret, queries, epsilon, rng):\n    rng = as_generator(rng)\n"
           "    A = np.asarray(queries, dtype=float)\n"
           "    return A @ np.asarray(secret, dtype=float) + rng.laplace(0.0, {scale}, A.shape[0])")
_RECONSTRUCT = ("reconstruct(answer_queries(secret, queries, noise={noise}, rng=3).answers, queries)"
                ".fraction_recovered(secret)")

MUTANTS["attacks"] = [
    {"name": "unanswered", "cells": None, "scores": "zero"},
    {
        "name": "textbook-slips",
        "cells": {
            # q1: each count gets the whole eps (scale 1/eps: the bug of q4)
            "def noisy_counts(": _COUNTS.format(name="noisy_counts", scale="1 / epsilon"),
            # q2: the per-count scale 1/eps; e^eps / 2 instead of e^eps / (e^eps + 1)
            "recovery =": "scale = 1 / 1.0\nrecovery = math.exp(1.0) / 2",
            # q3: no attack: the guess "every bit is 0" (34 of the 60 bits, whatever the release)
            "frac_bounded =": "frac_bounded = frac_dp = frac_broken = float(np.mean(secret == 0))",
            # q4: the bug left in place (scale 1/eps for each count)
            "def release_counts_fixed(": _COUNTS.format(name="release_counts_fixed", scale="1 / epsilon"),
        },
        "scores": {"q1": 0, "q2": 0, "q3": 0, "q4": 0},
    },
    {
        "name": "half-fixes",
        "cells": {
            # q1: scale sqrt(m)/eps (the l2 sensitivity, which calibrates Gaussian noise, not Laplace)
            "def noisy_counts(": _COUNTS.format(name="noisy_counts", scale="math.sqrt(A.shape[0]) / epsilon"),
            # q2 (b) only: the flip probability 1/(e^eps + 1)
            "recovery =": "scale = 240 / 1.0\nrecovery = 1 / (math.exp(1.0) + 1)",
            # q3 (c) only: per_query left out (copied from (b))
            "frac_bounded =": "frac_bounded = " + _RECONSTRUCT.format(noise="'bounded', bound=1.0") + "\n"
                              "frac_dp = frac_broken = " + _RECONSTRUCT.format(noise="'laplace', epsilon=1.0"),
            # q4: scale sqrt(m)/eps: on the audit's pair (m = 4) half the noise, true eps = 2
            "def release_counts_fixed(": _COUNTS.format(name="release_counts_fixed",
                                                        scale="math.sqrt(A.shape[0]) / epsilon"),
        },
        "scores": {"q1": 0, "q2": 1, "q3": 2, "q4": 0},
    },
    {
        "name": "over-noised",
        "cells": {
            # q4: private (eps/3) but 3x the sd: loses the accuracy point only
            "def release_counts_fixed(": _COUNTS.format(name="release_counts_fixed", scale="3 * A.shape[0] / epsilon"),
        },
        "scores": {"q4": 3},
    },
    {
        "name": "constant",
        "cells": {
            # q4: every count released as 0: private (eps = 0) and useless: no points
            "def release_counts_fixed(": "def release_counts_fixed(secret, queries, epsilon, rng):\n"
                                         "    return np.zeros(np.asarray(queries).shape[0])",
        },
        "scores": {"q4": 0},
    },
]
