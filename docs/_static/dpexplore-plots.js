// Fit every static plot to the text column. Plotly sizes an autosized figure to its container when it is
// drawn, which can be before the theme's layout settles (the plot was then wider than the column and cut
// off, issue 45); "responsive" refits only on a window resize. So refit once the page has loaded, and
// whenever a plot's container changes width.
(function () {
  function fit(div) {
    if (window.Plotly && div.offsetParent !== null && div._fullLayout) {
      window.Plotly.Plots.resize(div);
    }
  }
  function fitAll() {
    document.querySelectorAll(".plotly-graph-div").forEach(fit);
  }
  window.addEventListener("load", function () {
    fitAll();
    if (window.ResizeObserver) {
      var seen = new WeakMap();
      var ro = new ResizeObserver(function (entries) {
        entries.forEach(function (e) {
          var w = Math.round(e.contentRect.width);
          if (seen.get(e.target) !== w) { seen.set(e.target, w); fit(e.target.querySelector(".plotly-graph-div")); }
        });
      });
      document.querySelectorAll(".plotly-graph-div").forEach(function (d) { ro.observe(d.parentElement); });
    }
  });
})();
