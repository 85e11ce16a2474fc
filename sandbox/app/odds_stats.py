"""The odds' statistics: Wilson intervals of rates, distributions, the aggregate of a run's
rows (win rates per side included), its lines in words and its plot (split from
:mod:`sandbox.app.odds`, which runs the games, to keep each module under 1,000 lines)."""

from __future__ import annotations

import io
import math
from pathlib import Path
from typing import Any, Iterable, Sequence

from ..engine.replay import atomic_write_bytes

#: z for a two-sided 95% interval.
Z95 = 1.959963984540054
#: Outcome flags per body: the row suffix and what it means.
BODY_FLAGS = {
    "destroyed": "destroyed (a 'destroyed' event for it or a piece of it)",
    "disrupted": "Disrupted at any time",
    "knocked_back": "Knocked Back at any time",
    "on_fire": "on Fire at the end",
    "off_table": "fell off the table",
}
#: Numeric outcomes per body: the row suffix and what it means.
BODY_NUMBERS = {
    "damage": "Damage points taken (sum of its 'damage' events, pieces included)",
    "knockback_in": "farthest KnockBack in inches (its or a piece's 'knockback' events)",
    "parts_destroyed": "parts destroyed when it broke (debris of its 'break' events)",
    "pieces": "pieces it broke into ('piece' events of its pieces)",
}
#: Columns every row has before the outcome fields (``fingerprint``: of the scene and actions
#: the row was played from, :func:`run_key`; ``winner``: the game's Outcome, "" with none).
LEAD_COLUMNS = ("seed", "status", "error", "fingerprint", "winner")

def columns(rows: Sequence[dict]) -> list[str]:
    """CSV columns: the lead columns, then every outcome field in first-seen order."""
    seen = dict.fromkeys(LEAD_COLUMNS)
    for r in rows:
        for k in r:
            seen.setdefault(k)
    return list(seen)


# ============================================================================ statistics
def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval (95% by default) for ``k`` successes in ``n`` trials.

    Returns (low, high) within [0, 1]; (0, 1) for ``n == 0``.
    """
    if n <= 0:
        return (0.0, 1.0)
    p = k / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return (round(max(0.0, centre - half), 9), round(min(1.0, centre + half), 9))


def rate(values: Iterable[int]) -> dict:
    """``{"k", "n", "p", "low", "high"}`` of 0/1 values (Wilson 95%)."""
    vals = [int(v) for v in values]
    k, n = sum(vals), len(vals)
    lo, hi = wilson(k, n)
    return {"k": k, "n": n, "p": k / n if n else None, "low": lo, "high": hi}


def distribution(values: Iterable[float]) -> dict:
    """Mean, its 95% interval (normal), quantiles and a histogram of counts by value."""
    vals = sorted(float(v) for v in values)
    n = len(vals)
    if n == 0:
        return {"n": 0}
    mean = sum(vals) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / (n - 1)) if n > 1 else 0.0
    half = Z95 * sd / math.sqrt(n)
    q = lambda f: vals[min(n - 1, int(f * n))]  # noqa: E731
    counts: dict[str, int] = {}
    for v in vals:
        key = f"{v:g}"
        counts[key] = counts.get(key, 0) + 1
    return {"n": n, "mean": mean, "low": mean - half, "high": mean + half, "min": vals[0],
            "median": q(0.5), "p90": q(0.9), "max": vals[-1], "counts": counts}


def aggregate(rows: Sequence[dict]) -> dict:
    """The odds from run rows: per body its flags' rates and numbers' distributions,
    victories and expectations' hit rates, over the runs that finished ("ok")."""
    ok = [r for r in rows if r.get("status") == "ok"]
    failed = [r for r in rows if r.get("status") != "ok"]
    cols = columns(ok)
    bodies: dict[str, dict] = {}
    for c in cols:
        if "." not in c or c.startswith(("victory.", "expect.")):
            continue
        body, what = c.rsplit(".", 1)
        vals = [r[c] for r in ok if r.get(c) not in (None, "")]
        entry = bodies.setdefault(body, {})
        if what in BODY_FLAGS:
            entry[what] = rate(vals)
        elif what in BODY_NUMBERS:
            entry[what] = distribution(vals)
    out: dict[str, Any] = {"runs": len(rows), "ok": len(ok), "failed": len(failed),
                           "bodies": bodies}
    vic = {c[len("victory."):]: rate(r[c] for r in ok if r.get(c) not in (None, ""))
           for c in cols if c.startswith("victory.") and c != "victory.outcome"}
    if vic:
        outcomes: dict[str, int] = {}
        for r in ok:
            o = str(r.get("victory.outcome", ""))
            outcomes[o] = outcomes.get(o, 0) + 1
        out["victory"] = {"forces": vic, "outcomes": outcomes}
    if "winner" in cols:  # win rates per side (the game's Outcome), draws, no winner
        names = sorted({str(r.get("winner") or "") for r in ok} - {"", "draw"})
        won = {w: rate(int(str(r.get("winner") or "") == w) for r in ok) for w in names}
        won["draw"] = rate(int(str(r.get("winner") or "") == "draw") for r in ok)
        won["no winner"] = rate(int(not r.get("winner")) for r in ok)
        out["winners"] = won
    # a run without an expectation's column had nothing to check there: met
    exp = {c[len("expect."):]: rate(1 if r.get(c) in (None, "") else r[c] for r in ok)
           for c in cols if c.startswith("expect.")}
    if exp:
        out["expect"] = exp
    for c in ("impacts", "collision_rolls", "turns", "sim_seconds"):
        if c in cols:
            out[c] = distribution(r[c] for r in ok if r.get(c) not in (None, ""))
    errors: dict[str, list[int]] = {}
    for r in failed:
        errors.setdefault(str(r.get("error", "")), []).append(int(r["seed"]))
    out["errors"] = [{"error": e, "seeds": s} for e, s in errors.items()]
    return out


def odds_lines(odds: dict, most: int = 5, names: dict[str, str] | None = None) -> list[str]:
    """The likeliest outcomes in words, for a panel: ``guard destroyed 33% (22–47%)``;
    ``names`` turns scene ids into the bodies' names."""
    names = names or {}
    items = []
    for body, e in odds["bodies"].items():
        for k in BODY_FLAGS:
            r = e.get(k)
            if r and r["k"]:
                items.append((r["p"], f"{names.get(body, body)} {k.replace('_', ' ')}", r))
    for force, r in odds.get("victory", {}).get("forces", {}).items():
        items.append((r["p"] or 0, f"{force} wins", r))
    items.sort(key=lambda t: -t[0])
    lines = [f"Odds over {odds['ok']} seeds" + (f" ({odds['failed']} refused or failed)"
                                               if odds["failed"] else "") + ":"]
    for _, label, r in items[:most]:
        lines.append(f"  {label} {100 * r['p']:.0f}% ({100 * r['low']:.0f}–{100 * r['high']:.0f}%)")
    if len(lines) == 1:
        lines.append("  nothing is destroyed, Disrupted, Knocked Back or set on Fire")
    dmg = [(d["damage"]["mean"], b) for b, d in odds["bodies"].items()
           if d.get("damage", {}).get("n") and d["damage"]["mean"] > 0]
    if dmg:
        m, b = max(dmg)
        lines.append(f"  most Damage: {names.get(b, b)}, {m:.1f} on average")
    return lines


# ============================================================================ pictures, replays
def plot_odds(odds: dict, path: Path, title: str = "") -> Path:
    """``odds.png``: per body the rates of its outcome flags (bars, 95% intervals), then
    histograms of Damage and KnockBack; victories and expectations when there are any."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bars = []  # (label, rate dict)
    for body, e in odds["bodies"].items():
        for k in BODY_FLAGS:
            if k in e and e[k]["k"]:
                bars.append((f"{body} {k.replace('_', ' ')}", e[k]))
    for force, r in odds.get("victory", {}).get("forces", {}).items():
        bars.append((f"victory: {force}", r))
    for name, r in odds.get("expect", {}).items():
        bars.append((f"expect {name}", r))
    hists = [(f"{b} {label}", e[k]) for b, e in odds["bodies"].items()
             for k, label in (("damage", "Damage"), ("knockback_in", 'KnockBack (")'))
             if k in e and e[k].get("n") and e[k]["max"] > 0]
    n_h = min(len(hists), 6)
    hist_rows = math.ceil(n_h / 3)
    top_h = max(1.6, 0.28 * len(bars) + 0.9)
    fig = plt.figure(figsize=(12, top_h + 2.8 * hist_rows))
    gs = fig.add_gridspec(1 + hist_rows, 3, height_ratios=[top_h] + [2.8] * hist_rows)
    top = fig.add_subplot(gs[0, :])
    hist_axes = [fig.add_subplot(gs[1 + i // 3, i % 3]) for i in range(n_h)]
    if bars:
        ys = list(range(len(bars)))
        ps = [b[1]["p"] or 0 for b in bars]
        err = [[p - b[1]["low"] for p, b in zip(ps, bars, strict=True)],
               [b[1]["high"] - p for p, b in zip(ps, bars, strict=True)]]
        colours = ["#27ae60" if b[0].startswith("expect") else "#2980b9"
                   if b[0].startswith("victory") else "#c0392b" for b in bars]
        top.barh(ys, ps, xerr=err, color=colours, capsize=3, alpha=0.85,
                 error_kw={"elinewidth": 1})
        top.set_yticks(ys, [b[0] for b in bars], fontsize=8)
        top.invert_yaxis()
        for y, p, b in zip(ys, ps, bars, strict=True):
            top.text(1.02, y, f"{100 * p:.0f}%  ({b[1]['k']}/{b[1]['n']}; "
                     f"{100 * b[1]['low']:.0f}–{100 * b[1]['high']:.0f}%)",
                     va="center", fontsize=8)
    else:
        top.text(0.5, 0.5, "no outcome happened in any run", ha="center", va="center")
    top.set_xlim(0, 1.3)
    top.set_xticks([0, 0.25, 0.5, 0.75, 1.0])
    top.axvline(1.0, color="#999", lw=0.5)
    top.set_xlabel("chance (error bars: 95% Wilson intervals)")
    top.set_title(f"{title}: {odds['ok']} runs" + (f", {odds['failed']} failed"
                                                  if odds["failed"] else ""))
    for ax, (label, d) in zip(hist_axes, hists[:n_h], strict=True):
        xs = sorted(d["counts"], key=float)
        whole = all(float(x).is_integer() for x in xs)
        ax.bar([float(x) for x in xs], [d["counts"][x] for x in xs],
               width=0.8 if whole else 0.3, color="#2c3e50")
        if whole and len(xs) <= 12:
            ax.set_xticks([float(x) for x in xs], xs)
        elif whole:
            ax.xaxis.get_major_locator().set_params(integer=True)
        ax.set_title(f"{label}: mean {d['mean']:.2f} (median {d['median']:g})", fontsize=9)
        ax.set_ylabel("runs", fontsize=8)
        ax.yaxis.get_major_locator().set_params(integer=True)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    plt.close(fig)
    return atomic_write_bytes(path, buf.getvalue())


