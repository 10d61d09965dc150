"""Write notebooks/00_index.ipynb, the gallery, as a course (run from the repository root).

Order: the intro track ("Start here") → the five papers as research explorations → the class poll. Each entry
has its level, prerequisites and minutes; edit the lists below to add one. A number quoted here holds over the
seeds it names and is recomputed by tests (tests/basics/test_index.py).
"""

from pathlib import Path

import nbformat

#: (file, title, level, prerequisites, minutes, what it teaches)
START_HERE = [
    ("00_intro_1_randomized_response_laplace.ipynb", "1 · One count, released privately",
     "first lecture", "none", 30,
     "randomized response, the Laplace and the Gaussian mechanism on one counting query: the two output "
     "distributions of neighbouring data sets drawn over each other, the privacy loss, and the price in error."),
    ("00_intro_2_what_epsilon_means.ipynb", "2 · What ε means to an attacker",
     "first lecture", "page 1", 30,
     "trade-off curves of (ε, δ)-DP and μ-GDP, the best membership-inference advantage, the posterior from a "
     "prior — and a game: guess which data set the page used, and see your success rate against the bound."),
    ("00_intro_3_composition.ipynb", "3 · Many releases: composition",
     "first lecture", "pages 1–2", 25,
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


def _meta(level: str, prereq: str, minutes: int) -> str:
    return f"*{level} · prerequisites: {prereq} · about {minutes} min*"


def _link(here: Path, fname: str, title: str) -> str:
    return f"**[{title}]({fname})**" if (here / fname).exists() else f"**{title}** (not written yet)"


def main() -> None:
    here = Path("notebooks")
    start = [f"{i}. {_link(here, f, t)} — {_meta(lv, pr, m)}. Teaches {what}"
             for i, (f, t, lv, pr, m, what) in enumerate(START_HERE, 1)]
    papers = [f"- {_link(here, f, t)} — {authors}. {_meta(lv, pr, m)}. Teaches {what.format(**SPECTRAL_RANGE)}"
              for f, t, authors, lv, pr, m, what in PAPERS]
    f, t, authors, lv, pr, m, what = POLL
    poll = f"- {_link(here, f, t)} — {authors}. {_meta(lv, pr, m)}. Teaches {what}"
    cells = [
        nbformat.v4.new_markdown_cell(
            "# dpexplore — differential privacy you can move\n\n"
            "A course in three parts: a first lecture on differential privacy (**Start here**), five research "
            "papers to explore with live sliders, and a class poll. Every page runs its mechanisms live and plots "
            "what it measures beside the theory — labelled as *exact*, a *bound*, a *rate* with a stated constant, "
            "or an *approximation*.\n\n"
            "## Start here: a first lecture (about 90 minutes)\n\n" + "\n".join(start) + "\n\n"
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
