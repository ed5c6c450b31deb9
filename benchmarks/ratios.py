"""Side-by-side timing: interleaved rounds and per-round ratios (machines here are noisy).

Every round times each operation once, in an order rotated by one each round (A,B,C then
B,C,A then C,A,B ...), so a burst of load from another process hits every operation alike
and no operation always runs first. A ratio is taken *within* a round (``x[r] / base[r]``),
then summarised over rounds by its median and 90th percentile; absolute times are shown
only as context.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence

Timings = dict[str, list[float]]


def interleaved(ops: Mapping[str, Callable[[int], float | None]], rounds: int, *,
                before_round: Callable[[int], object] | None = None,
                after_round: Callable[[int], object] | None = None) -> Timings:
    """Run ``rounds`` rounds of every op; ``op(round)`` returns seconds per unit of work
    (or None: "not measured this round", e.g. a skipped server). ``before_round(r)`` and
    ``after_round(r)`` run untimed around each round. Returns name -> times, NaN where an
    op returned None."""
    names = list(ops)
    times: Timings = {name: [math.nan] * rounds for name in names}
    for r in range(rounds):
        if before_round is not None:
            before_round(r)
        k = r % len(names)
        for name in names[k:] + names[:k]:
            seconds = ops[name](r)
            if seconds is not None:
                times[name][r] = seconds
        if after_round is not None:
            after_round(r)
    return times


def timed(work: Callable[[], object], units: int = 1) -> float:
    """Seconds per unit of one call of ``work`` (which does ``units`` units)."""
    start = time.perf_counter()
    work()
    return (time.perf_counter() - start) / units


def quantile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) by linear interpolation, ignoring NaN; NaN if empty."""
    data = sorted(v for v in values if not math.isnan(v))
    if not data:
        return math.nan
    pos = q * (len(data) - 1)
    lo, hi = math.floor(pos), math.ceil(pos)
    return data[lo] + (data[hi] - data[lo]) * (pos - lo)


def per_round_ratio(times: Timings, name: str, base: str) -> list[float]:
    """``times[name][r] / times[base][r]`` for every round (NaN where either is missing)."""
    return [a / b if b > 0 else math.nan for a, b in zip(times[name], times[base], strict=True)]


def fmt_seconds(seconds: float) -> str:
    """A duration with a readable unit (µs / ms / s)."""
    if math.isnan(seconds):
        return "n/a"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def fmt_ratio(value: float) -> str:
    """A ratio with sensible precision."""
    if math.isnan(value):
        return "n/a"
    if value >= 100:
        return f"{value:.0f}x"
    if value >= 10:
        return f"{value:.1f}x"
    return f"{value:.3g}x"


def print_times(times: Timings, title: str) -> None:
    """One line per op: median and p90 of its absolute time per unit."""
    print(title)
    width = max(len(n) for n in times)
    for name, values in times.items():
        print(f"  {name:<{width}}  median {fmt_seconds(quantile(values, 0.5)):>10}   "
              f"p90 {fmt_seconds(quantile(values, 0.9)):>10}")


def print_ratios(times: Timings, pairs: Sequence[tuple[str, str]], title: str) -> None:
    """One line per (name, base): median and p90 of the per-round ratio name/base."""
    print(title)
    labels = [f"{a} / {b}" for a, b in pairs]
    width = max(len(label) for label in labels)
    for label, (a, b) in zip(labels, pairs, strict=True):
        ratio = per_round_ratio(times, a, b)
        rounds = sum(not math.isnan(v) for v in ratio)
        print(f"  {label:<{width}}  median {fmt_ratio(quantile(ratio, 0.5)):>8}   "
              f"p90 {fmt_ratio(quantile(ratio, 0.9)):>8}   ({rounds} rounds)")
