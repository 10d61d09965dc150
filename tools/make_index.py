"""Write notebooks/00_index.ipynb, the gallery (run from the repository root).

The gallery lists every paper dashboard that exists in notebooks/; edit PAPERS to add one.
"""

from pathlib import Path

import nbformat

PAPERS = [
    ("01_spectral_clustering.ipynb", "Private spectral graph clustering",
     "Koskela, Seif, Poor, Goldsmith (arXiv:2510.07136)",
     "randomized response with a vertex relabelling (matrix shuffling) against Analyze Gauss and the noisy "
     "power method — and an audit showing that the claimed amplification by shuffling does not hold under worst-case "
     "edge DP (two re-identifiable hubs keep ε = ε0 at every n), so the error does not vanish with n."),
    ("02_private_pca.ipynb", "DP PCA by adaptive power iteration",
     "Nguyen, Ene, Nguyen (arXiv:2602.11454)",
     "why worst-case private PCA pays √d, and how filtering rows with the sparse vector technique "
     "beats worst-case noisy power iteration on low-coherence data (and where it stops helping)."),
    ("03_markov_trajectories.ipynb", "DP Markov-chain state trajectories",
     "Benvenuti, Hale",
     "releasing a state trajectory online with permute-and-flip over −log P shortest-path distances, "
     "and why the private path stays plausible and close."),
    ("04_shuffle_asymptotics.ipynb", "Shuffle-model asymptotics",
     "Shvets (arXiv:2602.09029)",
     "exact finite-n privacy curves of the shuffle model, the Fisher constant I_π, and the Gaussian (GDP) "
     "limit μ = √(I_π/n)."),
    ("05_quadratic_objective_perturbation.ipynb", "Quadratic objective perturbation",
     "Cortild, Cartis (arXiv:2605.05905)",
     "private ERM whose error does not grow with the parameter box, unlike linear objective perturbation — "
     "and what that depends on: a good anchor, paid for with output noise when it is not exact."),
    ("06_class_poll.ipynb", "Class mode: a live randomized-response poll",
     "Warner (JASA 1965)",
     "deniability by coin flips: students answer a sensitive question privately, the class watches the "
     "debiased estimate and its interval converge (needs a shared server, e.g. python -m dpexplore.serve)."),
]


def main() -> None:
    here = Path("notebooks")
    lines = []
    for fname, title, authors, teaches in PAPERS:
        if (here / fname).exists():
            lines.append(f"- **[{title}]({fname})** — {authors}. Teaches {teaches}")
        else:
            lines.append(f"- **{title}** (dashboard not written yet) — {authors}. Will teach {teaches}")
    cells = [
        nbformat.v4.new_markdown_cell(
            "# dpexplore — differential privacy you can move\n\n"
            "One dashboard per research paper. Each has sliders (ε, n, k, eigengap, coherence, … as the paper "
            "needs) that run the paper's mechanisms live and plot the measured error beside the paper's "
            "theory — labelled as *exact*, a *bound*, a *rate* with a stated constant, or an *approximation*.\n\n"
            "## The dashboards\n\n" + "\n".join(lines) + "\n\n"
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
