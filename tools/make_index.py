"""Write notebooks/00_index.ipynb, the gallery, as a course (run from the repository root).

Order: the course week by week (week 1 "Why DP" → weeks 2–4 the first lecture, "Start here" → the course
modules) → the five papers as research explorations → the class poll. Each entry has its level, prerequisites,
minutes and the textbook chapters it matches; edit the lists below to add one. A number quoted here holds over
the seeds it names and is recomputed by tests (tests/basics/test_index.py).

Why "Why DP" comes first: every surveyed course opens with the attack that motivates the definition (Dinur &
Nissim's reconstruction, membership inference on released statistics), and the page needs nothing but "noise
on counts"; its DP-bound panels are a preview that page 2 of the first lecture explains.
"""

from pathlib import Path

import nbformat

#: (week, file, title, level, prerequisites, minutes, chapters, what it teaches): the course modules around the
#: first lecture, in week order
WEEK_1 = ("1", "10_why_dp_attacks.ipynb", "Why DP · Reconstruction and membership attacks",
          "introductory", "none", 30,
          "Dwork & Roth §8.1; Vadhan §5; Dinur & Nissim 2003; Homer et al. 2008; Dwork, Smith, Steinke, Ullman & "
          "Vadhan 2015",
          "why releasing many slightly noisy statistics destroys privacy (a linear program rebuilds a secret column "
          "once the noise is below √n; attribute frequencies reveal who is in a study), and why a total budget ε, "
          "each count getting ε/m, caps every attacker.")
LATER_WEEKS = [
    ("5", "11_private_statistics.ipynb", "Private statistics: counts, histograms, means, medians",
     "introductory", "Start here 1–3", 40,
     "Near & Abuah, *Programming Differential Privacy* ch. 5 and 7; Dwork & Roth §2.3 (group privacy), §3.3; "
     "Smith 2011 (quantiles)",
     "sensitivity and clipping (clipping bias² against noise variance, and the best bound), private histograms "
     "and what post-processing costs, private medians by the exponential mechanism, the unit of privacy and "
     "group privacy, and from an accuracy target to ε and what that ε allows an attacker."),
    ("6", "12_selection.ipynb", "Selection: exponential mechanism, noisy max, sparse vector",
     "intermediate", "Start here 1–3", 40,
     "*Programming Differential Privacy* ch. 9–10; Dwork & Roth §3.3–3.6; McKenna & Sheldon 2020; Lyu, Su & Li "
     "2017",
     "the exponential mechanism, report noisy max and permute-and-flip with their exact output laws, the sparse "
     "vector technique — and the published SVT variants that are not private, refuted by the audit."),
    ("7", "13_private_ml.ipynb", "Private machine learning · DP-SGD",
     "intermediate", "Start here 1–3 (composition)", 40,
     "Abadi et al. 2016 (Algorithm 1); *Programming Differential Privacy* ch. 12; Mironov, Talwar & Zhang 2019; "
     "Steinke, Nasr & Jagielski 2023",
     "how DP-SGD's clipping, noise and subsampling trade accuracy for ε, how PLD and RDP accounting count the "
     "cost and what amplification by subsampling buys, and how a gradient-canary audit catches an "
     "implementation whose ε is wrong."),
    ("8", "14_local_model.ipynb", "The local model · Frequency oracles, and local vs shuffle vs central",
     "intermediate", "Start here 1–3", 40,
     "*Programming Differential Privacy* ch. 13; Wang, Blocki, Li & Jha 2017; Erlingsson, Pihur & Korolova 2014 "
     "(RAPPOR); Acharya, Sun & Zhang 2019",
     "five frequency oracles (k-RR, basic RAPPOR, OUE, OLH, Hadamard response) with unbiased estimates and their "
     "exact variances, which one to use for a given k and ε, and local vs shuffle vs central at the same ε, the "
     "shuffle accounted by paper 4's certified worst case; an audit refutes an OUE set for 2ε."),
    ("9", "15_deployments.ipynb", "Real deployments · The 2020 Census TopDown lab and an ε registry",
     "intermediate", "Start here 1–3; Private statistics (post-processing)", 35,
     "Abowd et al. 2022 (the 2020 Census TopDown Algorithm, HDSR); Canonne, Kamath & Steinke 2020; Bun & Steinke "
     "2016; Dwork & Roth §2.3, §3.5",
     "how the 2020 Census adds discrete-Gaussian noise under a zCDP budget split across levels, what its "
     "post-processing (non-negative whole counts that add up, exact state totals) costs small areas in bias, how "
     "ρ becomes (ε, δ), and what published deployments' ε mean to an attacker over a day, a year or a family."),
]

#: (file, title, level, prerequisites, minutes, chapters, what it teaches): the first lecture, course weeks 2–4
START_HERE = [
    ("00_intro_1_randomized_response_laplace.ipynb", "1 · One count, released privately",
     "first lecture", "none", 30, "Dwork & Roth §3.2–3.3 and App. A; *Programming Differential Privacy* ch. 3",
     "randomized response, the Laplace and the Gaussian mechanism on one counting query: the two output "
     "distributions of neighbouring data sets drawn over each other, the privacy loss, and the price in error."),
    ("00_intro_2_what_epsilon_means.ipynb", "2 · What ε means to an attacker",
     "first lecture", "page 1", 30, "Dwork & Roth §2.3; Kairouz, Oh & Viswanath 2015; Dong, Roth & Su 2022",
     "trade-off curves of (ε, δ)-DP and μ-GDP, the best advantage of an attacker guessing A or B (replacement "
     "neighbours; membership inference is the add/remove version), the posterior from a prior — and a game: "
     "guess which data set the page used, and see your success rate against the bound."),
    ("00_intro_3_composition.ipynb", "3 · Many releases: composition",
     "first lecture", "pages 1–2", 25,
     "Dwork & Roth §3.5; *Programming Differential Privacy* ch. 4, 6 and 8",
     "k releases counted by basic, advanced, zCDP, Rényi-DP and PLD accounting against an audit of the composed "
     "mechanism; splitting a budget over k answers."),
]

PAPERS = [
    ("01_spectral_clustering.ipynb", "Private spectral graph clustering",
     "Koskela, Seif, Poor, Goldsmith (arXiv:2510.07136)", "graduate", "Start here 1–3; eigenvectors", 45,
     "randomized response with a vertex relabelling (matrix shuffling) against Analyze Gauss and the noisy "
     "power method — and an audit showing that the claimed amplification by shuffling does not hold under worst-case "
     "edge DP (two re-identifiable hubs keep ε = ε0 at every n). Charged soundly (ε0 = ε), matrix shuffling's "
     "misclassification still falls with n, because the blocks' signal grows faster than the noise: at ε = 1 "
     "(k = 3, p = 0.3, q = 0.05; 3 graphs per seed) from {lo150}–{hi150} % at n = 150 to "
     "{lo1200}–{hi1200} % at n = 1200 (each range is the lowest and highest of seeds 0–9: a new seed lands "
     "inside about 4 times in 5)."),
    ("02_private_pca.ipynb", "DP PCA by adaptive power iteration",
     "Nguyen, Ene, Nguyen (arXiv:2602.11454)", "graduate", "Start here 1–3; PCA", 45,
     "why worst-case private PCA pays √d, and how filtering rows with the sparse vector technique "
     "beats worst-case noisy power iteration on low-coherence data (and where it stops helping)."),
    ("03_markov_trajectories.ipynb", "DP Markov-chain state trajectories",
     "Benvenuti, Hale", "advanced undergraduate", "Start here 1–2; Markov chains", 40,
     "releasing a state trajectory online with permute-and-flip over −log P shortest-path distances, "
     "and why the private path stays plausible and close."),
    ("04_shuffle_asymptotics.ipynb", "Shuffle-model asymptotics",
     "Shvets (arXiv:2602.09029)", "research", "Start here 1–3; local DP", 50,
     "exact finite-n privacy curves of the shuffle model, the Fisher constant I_π, and the Gaussian (GDP) "
     "limit μ = √(I_π/n)."),
    ("05_quadratic_objective_perturbation.ipynb", "Quadratic objective perturbation",
     "Cortild, Cartis (arXiv:2605.05905)", "graduate", "Start here 1–3; least squares", 45,
     "private ERM whose error does not grow with the parameter box, unlike linear objective perturbation — "
     "and what that depends on: a good anchor, paid for with output noise when it is not exact."),
]

POLL = ("06_class_poll.ipynb", "Class mode: a live randomized-response poll", "Warner (JASA 1965)",
        "first lecture", "Start here 1", 15,
        "deniability by coin flips: students answer a sensitive question privately, the class watches the "
        "debiased estimate and its interval converge (needs a shared server, e.g. python -m dpexplore.serve).")

#: the range quoted for 01, misclassification in percent over seeds 0–9, low end rounded down and high end up
#: (tests/basics/test_index.py recomputes it and tests the stated rate, inside about 4 times in 5, on seeds 100–119)
SPECTRAL_RANGE = {"lo150": "40", "hi150": "52", "lo1200": "0.02", "hi1200": "0.23"}


def _meta(level: str, prereq: str, minutes: int, chapters: str | None = None) -> str:
    read = f" · reading: {chapters}" if chapters else ""
    return f"*{level} · prerequisites: {prereq} · about {minutes} min{read}*"


def _week(here: Path, entry) -> str:
    week, f, t, lv, pr, m, ch, what = entry
    return f"- **Week {week}** · {_link(here, f, t)} — {_meta(lv, pr, m, ch)}. Teaches {what}"


def _link(here: Path, fname: str, title: str) -> str:
    return f"**[{title}]({fname})**" if (here / fname).exists() else f"**{title}** (not written yet)"


def main() -> None:
    here = Path("notebooks")
    start = [f"{i}. {_link(here, f, t)} — {_meta(lv, pr, m, ch)}. Teaches {what}"
             for i, (f, t, lv, pr, m, ch, what) in enumerate(START_HERE, 1)]
    papers = [f"- {_link(here, f, t)} — {authors}. {_meta(lv, pr, m)}. Teaches {what.format(**SPECTRAL_RANGE)}"
              for f, t, authors, lv, pr, m, what in PAPERS]
    f, t, authors, lv, pr, m, what = POLL
    poll = f"- {_link(here, f, t)} — {authors}. {_meta(lv, pr, m)}. Teaches {what}"
    cells = [
        nbformat.v4.new_markdown_cell(
            "# dpexplore — differential privacy you can move\n\n"
            "A differential-privacy course you can teach with: the course week by week (the attacks that motivate "
            "DP, a first lecture, then private statistics, selection and machine learning), five research papers "
            "to explore with live sliders, and a class poll. Every page runs its mechanisms live and plots what it "
            "measures beside the theory — labelled as *exact*, a *bound*, a *rate* with a stated constant, or an "
            "*approximation* — and has an audit that catches a deliberately broken variant.\n\n"
            "## The course, week by week\n\n"
            "Week 1 comes before the first lecture: the attack that motivates the definition needs nothing but "
            "noise on counts, and every surveyed course opens with it.\n\n" + _week(here, WEEK_1) + "\n\n"
            "### Weeks 2–4 · Start here: a first lecture (about 90 minutes)\n\n" + "\n".join(start) + "\n\n"
            "### Weeks 5–8 · the course modules\n\n" + "\n".join(_week(here, e) for e in LATER_WEEKS) + "\n\n"
            "## Research explorations: one dashboard per paper\n\n" + "\n".join(papers) + "\n\n"
            "## In class\n\n" + poll + "\n\n"
            "Every dashboard has a **Reproduce in code** box with the exact library calls and seed, and "
            "accepts URL parameters (for example `?epsilon=0.5&n=800`) so an instructor can link a class "
            "straight to a setting."
        ),
        nbformat.v4.new_code_cell(
            "import dpexplore\n"
            "print(f'dpexplore {dpexplore.__version__}')\n"
            "print(dpexplore.PRNG_WARNING)"
        ),
        nbformat.v4.new_markdown_cell(
            "## Before you use it\n\n"
            "dpexplore's randomness is NumPy's seedable generator: results are reproducible, and **not "
            "cryptographically secure**. It is a teaching and research tool — never use it to protect a real "
            "data release. Where a paper's algorithm could only be reconstructed from its description, the "
            "dashboard says so."
        ),
    ]
    nb = nbformat.v4.new_notebook(cells=cells, metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"},
    })
    nbformat.write(nb, here / "00_index.ipynb")


if __name__ == "__main__":
    main()
