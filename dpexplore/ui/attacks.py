"""Course module "Why DP": the reconstruction attack (Dinur & Nissim 2003) and membership inference on
released means (Homer et al. 2008; Dwork, Smith, Steinke, Ullman & Vadhan 2015).

Four panels: the fraction of secret bits the attacker's linear program recovers vs the number of
queries m, and vs the noise; the secret and its reconstruction as a picture; the membership attack's ROC
with the DP trade-off bound over it. The audit checks the released counts' claimed total ε (the broken
variant gives each count the whole ε).
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go

from dpexplore.attacks import experiments as X
from dpexplore.attacks import theory as T
from dpexplore.attacks.audit import audit_counts
from dpexplore.attacks.data import class_secret_bits
from dpexplore.attacks.membership import MAX_STUDIES
from dpexplore.core.risk import dp_tradeoff

from . import figures as F
from .audit import AuditReport
from .class_data import load_class_data, read_as_instructor, split_poll_param
from .controls import Control
from .dashboard import Dashboard, Panel

__all__ = ["AttacksDashboard", "ClassAnswers", "membership_figure", "picture_figure", "read_class_answers",
           "recovery_figure"]

#: trials per grid point of the two recovery panels (fresh secret, queries and noise each)
TRIALS = 3
#: the queries grid, as multiples of n
M_FACTORS = (0.25, 0.5, 1.0, 2.0, 4.0)
#: the bounded-noise grid, as multiples of √n; the ε grid of the DP noise models
E_FACTORS = (0.1, 0.5, 1.0, 2.0, 5.0)
EPS_GRID = (0.1, 1.0, 10.0, 100.0, 1000.0)
#: the membership panel: attributes released, studies per trial, reference sample, trials
D_ATTRIBUTES = 500
STUDIES = 1000
REFERENCE = 1000
ROC_TRIALS = 2
DELTA = 1e-5
NOISE_NAMES = {"bounded": "bounded error |e| ≤ E (adversarial)", "laplace": "Laplace at a total ε",
               "gaussian": "Gaussian at a total ε (δ = 10⁻⁵)", "broken": "BROKEN: Laplace, each count gets ε"}
assert MAX_STUDIES >= STUDIES
#: panels 1-3 do not read ε under bounded noise (their counts get the bounded error E; ε appears nowhere on them):
#: a move of ε then redraws panel 4 (the released means) only
_EPSILON_UNUSED = (("epsilon", "noise", "bounded"),)


def noise_kwargs(p: Mapping[str, Any]) -> dict[str, Any]:
    """The library's noise arguments for the page's noise choice."""
    model = p["noise"]
    if model == "bounded":
        return {"noise": "bounded", "bound": float(p["bound"])}
    if model == "broken":
        return {"noise": "laplace", "epsilon": float(p["epsilon"]), "per_query": True}
    return {"noise": model, "epsilon": float(p["epsilon"]), **({"delta": DELTA} if model == "gaussian" else {})}


def dp_bound(p: Mapping[str, Any]) -> tuple[float, str]:
    """The DP recovery bound at the page's ε (what the claim promises) and its kind of guarantee."""
    if p["noise"] == "gaussian":
        return T.release_recovery_bound("gaussian", m=int(p["m"]), epsilon=p["epsilon"], delta=DELTA), "μ-GDP: Φ(μ/2)"
    return T.dp_recovery_bound(p["epsilon"]), "ε-DP: e^ε/(1 + e^ε)"


def _chance(fig, x) -> None:
    F.add_theory(fig, [min(x), max(x)], [0.5, 0.5], name="coin flipping", kind="exact", color="#777777")


def recovery_figure(res, p: Mapping[str, Any], *, against: str) -> go.Figure:
    """Fraction recovered vs m (``against="m"``) or vs the noise level (``"noise"``), with the bounds."""
    n, model = int(p["n"]), p["noise"]
    x = np.asarray(res.grid, dtype=float)
    dp = model != "bounded"
    if against == "m":
        fig = F.base_figure("", "number of subset counts m (log scale)", "fraction of secret bits recovered",
                            log_x=True, height=360)
    else:
        xt = "total ε of all m counts (log scale)" if dp else "error bound E on every count (log scale)"
        fig = F.base_figure("", xt, "fraction of secret bits recovered", log_x=True, height=360)
    _chance(fig, x)
    bound, what = dp_bound(p)
    if dp and against == "noise":
        bvals = [T.dp_recovery_bound(e) if model != "gaussian" else
                 T.release_recovery_bound("gaussian", m=int(p["m"]), epsilon=e, delta=DELTA) for e in x]
        F.add_theory(fig, x, bvals, name="DP: no attacker can expect more" + (" (as claimed)" if model == "broken"
                                                                                else ""),
                     kind="bound", color=F.COLORS[1], note=what)
    elif dp:
        F.add_theory(fig, [x[0], x[-1]], [bound, bound],
                     name=f"DP at ε = {p['epsilon']:.3g}: no attacker can expect more"
                          + (" (as claimed)" if model == "broken" else ""), kind="bound", color=F.COLORS[1],
                     note=what)
    if not dp:
        e_grid = x if against == "noise" else np.full(x.size, float(p["bound"]))
        F.add_theory(fig, x, [T.exponential_attack_recovery(e, n) for e in e_grid],
                     name="with all m = 2ⁿ counts: at least", kind="bound", color=F.COLORS[4],
                     note="Dwork–Roth Thm 8.1: 1 − 4E/n")
        if against == "noise":
            fig.add_vline(x=T.sqrt_n_threshold(n), line={"color": F.COLORS[3], "dash": "dash", "width": 2})
            fig.add_annotation(text=f"E = √n = {math.sqrt(n):.3g}: Dinur–Nissim scale<br>[rate, constant 1]",
                               x=math.log10(T.sqrt_n_threshold(n)), y=0.62, xref="x", yref="y", showarrow=False,
                               xanchor="left", font={"size": 12, "color": F.COLORS[3]},
                               bgcolor="rgba(255,255,255,0.85)")
    F.add_measured(fig, x, res.mean[0], res.lower[0], res.upper[0], name="the attacker's linear program",
                   color=F.COLORS[0], trials=res.trials, headline=True)
    mark = float(p["m"]) if against == "m" else (float(p["epsilon"]) if dp else float(p["bound"]))
    fig.add_vline(x=mark, line={"color": "#444", "dash": "dot", "width": 1})
    if against == "m" and not dp:
        F.add_note(fig, f"n = {n} people, every count off by at most E = {p['bound']:.3g} (√n = {math.sqrt(n):.3g})",
                   y=0.02)
    elif against == "m":
        F.add_note(fig, f"n = {n}; total ε = {p['epsilon']:.3g} shared by m counts: each count gets ε/m"
                        + (" — except in the BROKEN variant, where each gets ε" if model == "broken" else ""), y=0.02)
    fig.update_yaxes(range=[0.3, 1.03])
    return fig


class ClassAnswers:
    """A class poll's stored answers, as the page uses them: the join code, the question, ε, and the answers
    as a list of 0/1 (the stored, randomized bits: ``yes`` ones and ``responses − yes`` zeros; the store
    gives counts only, never a student's row)."""

    def __init__(self, code: str, question: str, epsilon: float, responses: int, yes: int):
        self.code, self.question, self.epsilon = code, question, float(epsilon)
        self.responses, self.yes = int(responses), int(yes)

    @property
    def answers(self) -> list[int]:
        return [1] * self.yes + [0] * (self.responses - self.yes)

    def says(self, n: int) -> str:
        """Whose data it is, in words (HTML-escaped)."""
        q = html.escape(self.question[:120])
        return (f"the {self.responses} answers stored by the class poll {html.escape(self.code)} (“{q}”, "
                f"{self.yes} yes), as stored: randomized with ε = {self.epsilon:.3g}, not anyone's true answer, "
                f"dealt to a roster of {n} fake students")


def read_class_answers(code: object, environ: Mapping[str, str] | None = None, *, store=None) -> ClassAnswers:
    """The class poll ``code``'s stored answers, read as its creator reads its class view (the page's instructor
    identity, e.g. the instructor link's cookie); raises ``PollError`` (a ``ValueError``) saying why not.

    Examples
    --------
    >>> import tempfile
    >>> from dpexplore.classroom.store import PollStore
    >>> store = PollStore(tempfile.mkdtemp())
    >>> poll = store.create_poll("Ever cheated?", epsilon=1.0)
    >>> for bit in (1, 0, 1):
    ...     store.submit(poll.code, store.issue_token(poll.code), bit)
    >>> read_class_answers(poll.code.lower(), {}, store=store).answers
    [1, 1, 0]
    """
    def read(st, code: str, who: str) -> ClassAnswers:
        from dpexplore.classroom.store import PollError

        t = st.tally(code, creator=who)
        if t.responses == 0:
            raise PollError(f"the class poll {code} has no answers yet")
        return ClassAnswers(code, t.info.question, t.info.epsilon, t.responses, t.yes)

    return read_as_instructor(code, read, environ, store=store)


def picture_figure(res, p: Mapping[str, Any]) -> go.Figure:
    """The secret bits, the attacker's guess and where they differ, as rows of cells."""
    secret = res.values[0, :, 0].astype(int)
    guess = res.values[1, :, 0].astype(int)
    wrong = (secret != guess).astype(int)
    n = secret.size
    z = np.vstack([wrong * 2, guess, secret]).astype(float)  # 0/1 bits, 2 = a wrong guess
    fig = F.base_figure("", "person", "", height=230)
    rows = ["wrong guesses", "reconstruction", "secret"]
    fig.add_trace(go.Heatmap(z=z, x=list(range(n)), y=[0, 1, 2], name="secret, reconstruction, wrong guesses",
                             colorscale=[[0, "#f2f2f2"], [0.5, "#0072B2"], [1, "#D55E00"]], zmin=0, zmax=2,
                             showscale=False, xgap=1, ygap=3,
                             hovertemplate="person %{x}: row %{y}, value %{z}<extra></extra>"))
    fig.update_yaxes(tickvals=[0, 1, 2], ticktext=rows, range=[-0.6, 2.6], showgrid=False)
    whose = p.get("secret_source") or "fair coins"
    F.add_note(fig, f"{n - int(wrong.sum())} of {n} secret bits recovered ({1 - wrong.mean():.0%}) from m = "
                    f"{p['m']} noisy counts (one attack, seed {p['seed']}); blue: bit 1, orange: wrong guess. "
                    f"Secret bits: {whose}.", y=1.25)
    fig.update_layout(margin={"l": 120, "r": 20, "t": 60, "b": 40})
    return fig


def membership_figure(results: Mapping[str, Any], p: Mapping[str, Any]) -> go.Figure:
    """ROC of the membership test on released means: without noise, with the page's noise, the DP bound."""
    fig = F.base_figure("", "false-positive rate (non-members called members)",
                        "true-positive rate (members found)", height=380)
    F.add_theory(fig, [0, 1], [0, 1], name="coin flipping", kind="exact", color="#777777")
    eps = float(p["epsilon"])
    a = np.linspace(0, 1, 201)
    n = int(p["n"])
    if p["noise"] == "gaussian":
        bound = T.membership_tpr_bound(a, "gaussian", n=n, d=D_ATTRIBUTES, epsilon=eps, delta=DELTA)
        note = "1 − G_μ(α), exact trade-off of the Gaussian release"
    else:
        bound = 1 - dp_tradeoff(eps, 0.0, a)
        note = "1 − f_ε(α), the ε-DP trade-off curve"
    F.add_theory(fig, a, bound, name=f"DP at ε = {eps:.3g}: no test does better" + (" (as claimed)" if
                                                                                      p["noise"] == "broken" else ""),
                 kind="bound", color=F.COLORS[1], note=note)
    plain = results["none"]
    fp = np.asarray(plain.grid, dtype=float)
    F.add_measured(fig, fp, plain.mean[0], plain.lower[0], plain.upper[0], name="released exact means",
                   color=F.COLORS[3], trials=plain.trials)
    noisy = results["noisy"]
    label = {"bounded": "Laplace", "laplace": "Laplace", "gaussian": "Gaussian", "broken": "BROKEN per-mean Laplace"}
    F.add_measured(fig, fp, noisy.mean[0], noisy.lower[0], noisy.upper[0],
                   name=f"means with {label[p['noise']]} noise at total ε = {eps:.3g}", color=F.COLORS[0],
                   trials=noisy.trials, headline=True)
    fig.update_xaxes(range=[0, 1])
    fig.update_yaxes(range=[0, 1.02])
    return fig


class AttacksDashboard(Dashboard):
    """Why DP: reconstruct a secret column from noisy counts; find a person in a study from its means."""

    title = "Why DP · Reconstruction and membership attacks"
    intro = ("n people each have a secret bit (say, a diagnosis). We publish m counts: <i>how many people in this "
             "group have it?</i>, each with a little noise. An attacker who solves a linear program gets almost every "
             "bit back — unless the noise is about √n per count or more, which is what DP at a total ε demands. "
             "The secret bits here are generated (fair coins); opened with <code>?poll=CODE</code> by the poll's "
             "instructor, panel 3 attacks the class poll's stored answers instead (the page says so).")
    paper = ("Dinur &amp; Nissim (2003), <i>Revealing information while preserving privacy</i>; Homer et al. (2008), "
             "<i>Resolving individuals contributing trace amounts of DNA</i>; Dwork, Smith, Steinke, Ullman &amp; "
             "Vadhan (2015), <i>Robust traceability from trace amounts</i>; Dwork &amp; Roth (2014) §8.1; "
             "Vadhan (2017) §5.")
    controls = [
        Control("noise", "noise on each count", "choice", "bounded",
                options=tuple((v, k) for k, v in NOISE_NAMES.items()),
                help="bounded: any error up to E, chosen to mislead; Laplace/Gaussian: DP for all m counts together"),
        Control("bound", "error bound E", "log", 1.0, 0.1, 100.0, step=0.05, shown_if=("noise", "bounded"),
                help="every count is off by at most E (the adversary picks the errors)"),
        Control("epsilon", "total ε", "log", 1.0, 0.1, 1000.0, step=0.05,
                help="the privacy budget of all m counts together (and of the released means in panel 4)"),
        Control("n", "people n", "logint", 100, 20, 500, step=0.05),
        Control("m", "subset counts m", "logint", 400, 10, 2000, step=0.05),
        Control("seed", "seed", "int", 0, 0, 9999),
    ]
    no_headline = {"picture": "an image of the secret bits and the guess, not a curve"}
    panels = [
        Panel("recover", "1. More questions, more secrets",
              depends_on=("noise", "bound", "epsilon", "n", "m", "seed"), unused_when=_EPSILON_UNUSED,
              caption="The attacker's linear program against the number of counts m (the dotted line is the slider). "
                      "Small bounded noise: nearly every bit once m is a few times n. DP noise: never above the "
                      "DP bound, however large m."),
        Panel("noise", "2. How much noise stops it?",
              depends_on=("noise", "bound", "epsilon", "n", "m", "seed"), unused_when=_EPSILON_UNUSED,
              caption="The same attack at the slider's m against the noise. Bounded noise: the attack fails once E "
                      "passes the scale √n. DP noise: recovery follows the DP bound down as ε shrinks."),
        Panel("picture", "3. The secret and the reconstruction",
              depends_on=("noise", "bound", "epsilon", "n", "m", "seed"), unused_when=_EPSILON_UNUSED,
              caption="One attack at the current settings: the secret bits, the attacker's guess, and the wrong "
                      "guesses."),
        Panel("membership", "4. Is the target in the study? (membership inference)",
              depends_on=("noise", "epsilon", "n", "seed"),
              caption="A study publishes 500 attribute frequencies. Without noise the attacker spots members far "
                      "better than chance (it holds the target's attributes and a reference sample of 1,000 "
                      "people); with DP noise at total ε the curve stays under the DP bound."),
    ]

    def _clamp_m(self, p: Mapping[str, Any]) -> int:
        return int(min(int(p["m"]), 8 * int(p["n"])))

    def figure(self, panel: str, p: Mapping[str, Any]) -> go.Figure:
        n, seed = int(p["n"]), int(p["seed"])
        p = dict(p, m=self._clamp_m(p))
        kw = noise_kwargs(p)
        if panel == "recover":
            ms = sorted({max(1, int(round(f * n))) for f in M_FACTORS})
            res = self.experiment("recover", "", X.recovery_vs_queries, n=n, ms=ms, trials=TRIALS, rng=seed, **kw)
            return recovery_figure(res, p, against="m")
        if panel == "noise":
            if p["noise"] == "bounded":
                levels = [round(f * math.sqrt(n), 4) for f in E_FACTORS]
            else:
                levels = list(EPS_GRID)
            kw.pop("bound", None)
            kw.pop("epsilon", None)
            res = self.experiment("noise", "", X.recovery_vs_noise, n=n, m=p["m"], levels=levels, trials=TRIALS,
                                  rng=seed, **kw)
            return recovery_figure(res, p, against="noise")
        if panel == "picture":
            if self._class is None:
                res = self.experiment("picture", "", X.reconstruction_picture, n=n, m=p["m"], rng=seed, **kw)
                return picture_figure(res, p)
            secret = tuple(class_secret_bits(self._class.answers, n, rng=seed).tolist())
            res = self.experiment("picture", "", X.reconstruction_picture, n=n, m=p["m"], secret=secret, rng=seed,
                                  **kw)
            return picture_figure(res, dict(p, secret_source=self._class.says(n)))
        if panel == "membership":
            common = dict(studies=STUDIES, reference=REFERENCE, trials=ROC_TRIALS, rng=seed)
            plain = self.experiment("membership", "no noise", X.membership_roc, n=n, d=D_ATTRIBUTES, noise="none",
                                    **common)
            model = {"bounded": "laplace", "broken": "laplace"}.get(p["noise"], p["noise"])
            noisy = self.experiment("membership", "noisy", X.membership_roc, n=n, d=D_ATTRIBUTES, noise=model,
                                    epsilon=float(p["epsilon"]), delta=DELTA, per_query=p["noise"] == "broken",
                                    **common)
            return membership_figure({"none": plain, "noisy": noisy}, p)
        raise ValueError(f"unknown panel {panel!r}")

    #: the class poll's answers behind panel 3 (``?poll=CODE``), or None: fair coins
    _class: ClassAnswers | None = None

    def _parse_query(self, qs: str):
        """The URL's ``poll=CODE`` (panel 3 attacks the class poll's stored answers), then the kit's parameters."""
        rest, code = split_poll_param(qs)
        values, options, notes = super()._parse_query(rest)
        if code is not None:
            self._class, why = load_class_data(code, read_class_answers)
            if self._class is not None:
                notes.append("Panel 3 attacks the class's own data: " + self._class.says(int(
                    values.get("n", self._controls["n"].default))) + ". Panels 1, 2 and 4 use fair coins.")
            else:
                notes.append(f"URL parameter poll ignored: {why}. The secret bits are generated (fair coins).")
        return values, options, notes

    def reproduce(self, p: Mapping[str, Any]) -> str:
        kw = noise_kwargs(dict(p, m=self._clamp_m(p)))
        args = ", ".join(f"{k}={v!r}" for k, v in kw.items())
        if self._class is not None:
            c = self._class
            secret = (f"answers = [1] * {c.yes} + [0] * {c.responses - c.yes}  # class poll {c.code}, as stored\n"
                      f"x = class_secret_bits(answers, {p['n']}, rng={p['seed']})  # panel 3's roster\n")
        else:
            secret = f"x = secret_bits({p['n']}, rng={p['seed']})\n"
        return ("# one attack by hand\n"
                "from dpexplore.attacks import secret_bits, subset_queries, answer_queries, reconstruct\n"
                + ("from dpexplore.attacks.data import class_secret_bits\n" if self._class is not None else "")
                + secret +
                f"A = subset_queries({p['n']}, {self._clamp_m(p)}, rng={p['seed'] + 1})\n"
                f"release = answer_queries(x, A, {args}, rng={p['seed'] + 2})\n"
                "guess = reconstruct(release.answers, A, method='lp')\n"
                "print(guess.fraction_recovered(x), release.epsilon_per_answer)\n")

    audit_description = (
        "Audits the m noisy counts (Laplace at the page's total ε, or Gaussian when that is chosen; bounded noise "
        "claims no ε, so its audit uses Laplace) on the worst pair: the person in the most queries, bit 0 vs 1. "
        "The test is the likelihood ratio of that person's counts; ε̂ is a lower bound on the true ε at 95 % "
        "confidence (Clopper–Pearson). The broken variant gives each count the whole ε instead of ε/m.")
    audit_runs = (20_000, 200_000)

    def audit_report(self, p, *, broken, runs, rng, progress) -> AuditReport:
        noise = "gaussian" if p["noise"] == "gaussian" else "laplace"
        broken = bool(broken) or p["noise"] == "broken"
        progress(0, runs)
        res = audit_counts(n=int(p["n"]), m=self._clamp_m(p), noise=noise, epsilon=float(p["epsilon"]), delta=DELTA,
                           per_query=broken, runs=runs, rng=rng)
        progress(runs, runs)
        st = res.statistical
        return AuditReport(mechanism=res.mechanism, neighbours=res.neighbours, claimed_epsilon=res.claimed_epsilon,
                           delta=res.delta, exact_epsilon=res.exact_epsilon, epsilon_lower=st.epsilon_lower,
                           confidence=st.confidence, runs=st.runs, seconds=st.seconds)


