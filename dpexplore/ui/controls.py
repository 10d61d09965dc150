"""Control specifications: one place that knows a control's range, its widget, its URL form and
its server-side clamp.

Widget values are client-controlled (any websocket client can set any synced trait, ``min`` and
``max`` included), so a :class:`Control` never trusts its widget: :meth:`Control.clamp` bounds the
value with the limits held here, in Python, before any library call sees it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import ipywidgets as widgets

__all__ = ["Control", "LABEL_WIDTH"]

#: width of every control's label column
LABEL_WIDTH = "11em"

_KINDS = ("float", "log", "int", "logint", "choice", "bool", "text")


@dataclass(frozen=True)
class Control:
    """A dashboard control.

    Parameters
    ----------
    name : str
        Keyword used in URLs (``?epsilon=0.5``) and passed to the dashboard's ``compute``.
    label : str
        Text shown next to the widget.
    kind : {"float", "log", "int", "logint", "choice", "bool", "text"}
        ``"log"`` is a ``FloatLogSlider`` (ε and friends), ``"logint"`` a log-scale slider
        rounded to integers (n up to 10⁶), ``"choice"`` a dropdown over ``options``.
    default : Any
    low, high : float, optional
        Bounds for numeric kinds (inclusive).
    step : float, optional
        Slider step (for "log"/"logint": the step of the base-10 exponent).
    options : tuple, optional
        For "choice": ``(value, ...)`` or ``((label, value), ...)``.
    help : str
        Tooltip text.
    max_length : int
        For "text": longest accepted text.
    shown_if : tuple, optional
        ``(control name, value)``: the widget is shown only while that control has that value (a text
        box for a pasted matrix appears when "paste a matrix" is chosen). Its value still counts.
    """

    name: str
    label: str
    kind: str
    default: Any
    low: float | None = None
    high: float | None = None
    step: float | None = None
    options: tuple = field(default_factory=tuple)
    help: str = ""
    max_length: int = 20_000
    shown_if: tuple = ()

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise ValueError(f"kind must be one of {list(_KINDS)}; got {self.kind!r}")
        if self.kind in ("float", "log", "int", "logint") and (self.low is None or self.high is None):
            raise ValueError(f"control {self.name!r}: numeric controls need low and high")
        if self.kind in ("log", "logint") and not (self.low and self.low > 0):
            raise ValueError(f"control {self.name!r}: log controls need low > 0")
        if self.kind == "choice" and not self.options:
            raise ValueError(f"control {self.name!r}: choice controls need options")
        if self.clamp(self.default) != self.default:
            raise ValueError(f"control {self.name!r}: default {self.default!r} is outside its range")

    # -- values -------------------------------------------------------------------------
    @property
    def option_values(self) -> list:
        return [o[1] if isinstance(o, tuple) else o for o in self.options]

    def range_text(self) -> str:
        """Human-readable valid range, used in messages."""
        if self.kind in ("float", "log"):
            return f"a number in [{self.low:g}, {self.high:g}]"
        if self.kind in ("int", "logint"):
            return f"an integer in [{int(self.low)}, {int(self.high)}]"
        if self.kind == "choice":
            return f"one of {self.option_values}"
        if self.kind == "bool":
            return "true or false"
        return f"text of at most {self.max_length} characters"

    def clamp(self, value: Any) -> Any:
        """Bound ``value`` to the valid range (server side). Invalid kinds give the default."""
        k = self.kind
        if k in ("float", "log", "int", "logint"):
            try:
                x = float(value)
            except (TypeError, ValueError):
                return self.default
            if math.isnan(x):  # ±Inf clamp to the bounds below, before any rounding
                return self.default
            x = min(max(x, float(self.low)), float(self.high))
            return int(round(x)) if k in ("int", "logint") else x
        if k == "choice":
            return value if value in self.option_values else self.default
        if k == "bool":
            return bool(value) if isinstance(value, bool) else self.default
        text = value if isinstance(value, str) else self.default
        return text[: self.max_length]

    def parse(self, text: str) -> Any:
        """Parse a URL parameter; raise ValueError with a clear message if it is not valid."""
        k = self.kind
        bad = ValueError(f"URL parameter {self.name}={text!r} ignored: {self.name} must be {self.range_text()}")
        if k in ("float", "log", "int", "logint"):
            try:
                x = float(text)
            except ValueError:
                raise bad from None
            if not math.isfinite(x) or x < self.low or x > self.high:
                raise bad
            if k in ("int", "logint"):
                if not x.is_integer():
                    raise bad
                return int(x)
            return x
        if k == "choice":
            for v in self.option_values:
                if str(v) == text:
                    return v
            raise bad
        if k == "bool":
            low = text.strip().lower()
            if low in ("1", "true", "yes", "on"):
                return True
            if low in ("0", "false", "no", "off"):
                return False
            raise bad
        if len(text) > self.max_length:
            raise bad
        return text

    # -- widget -------------------------------------------------------------------------
    def make_widget(self, value: Any) -> widgets.Widget:
        """Build the ipywidget for this control, set to ``value``."""
        # A fixed label column leaves every slider a usable track (a long "initial"-width label left
        # some 0 px); the label shows its short form, the tooltip the whole label and the help text.
        style = {"description_width": LABEL_WIDTH}
        tip = self.label + (f" — {self.help}" if self.help else "")
        common = dict(description=self.short_label, description_allow_html=False, style=style, tooltip=tip,
                      layout=widgets.Layout(width="100%"))
        k = self.kind
        if k == "float":
            step = self.step or (self.high - self.low) / 100
            return widgets.FloatSlider(value=value, min=self.low, max=self.high, step=step,
                                       continuous_update=False, readout_format=".3g", **common)
        if k in ("log", "logint"):
            step = self.step or 0.05
            w = widgets.FloatLogSlider(value=value, base=10, min=math.log10(self.low), max=math.log10(self.high),
                                       step=step, continuous_update=False,
                                       readout_format=".3g" if k == "log" else ".0f", **common)
            return w
        if k == "int":
            return widgets.IntSlider(value=value, min=int(self.low), max=int(self.high), step=int(self.step or 1),
                                     continuous_update=False, **common)
        if k == "choice":
            longest = max(len(str(o[0] if isinstance(o, tuple) else o)) for o in self.options)
            w = widgets.Dropdown(options=list(self.options), value=value, **common)
            if longest > 24:  # a long option text gets two grid columns instead of being cut (CSS in the kit)
                w.add_class("dpx-wide")
            return w
        if k == "bool":
            return widgets.Checkbox(value=value, indent=False, **common)
        common["layout"] = widgets.Layout(width="100%", height="7em")
        w = widgets.Textarea(value=value, **common)
        w.add_class("dpx-full")  # a whole row of the control grid
        return w

    @property
    def short_label(self) -> str:
        """The label without its parenthetical detail ("n (vertices)" -> "n"), which goes to the tooltip.

        Examples
        --------
        >>> Control("grid", "traffic grid size (intersections per side)", "int", 5, 3, 10).short_label
        'traffic grid size'
        """
        short = self.label.split(" (", 1)[0].strip()
        return short or self.label

    def view_traits(self) -> dict[str, Any]:
        """The widget traits that give a value its meaning (range, step, log base), as this control sets them.

        A client can set any synced trait; :meth:`reset_bounds` puts these back.
        """
        k = self.kind
        if k in ("log", "logint"):
            return {"base": 10.0, "min": math.log10(self.low), "max": math.log10(self.high), "step": self.step or 0.05}
        if k == "float":
            return {"min": self.low, "max": self.high, "step": self.step or (self.high - self.low) / 100}
        if k == "int":
            return {"min": int(self.low), "max": int(self.high), "step": int(self.step or 1)}
        return {}

    def reset_bounds(self, w: widgets.Widget) -> None:
        """Restore every trait that changes the meaning of the widget's value (a client may have changed
        min/max, the step or a log slider's base)."""
        want = self.view_traits()
        if all(getattr(w, name) == val for name, val in want.items()):
            return
        with w.hold_trait_notifications():
            if "max" in want:  # keep min <= max while restoring
                w.max = max(want["max"], w.min)
                w.min = want["min"]
            for name, val in want.items():
                setattr(w, name, val)
