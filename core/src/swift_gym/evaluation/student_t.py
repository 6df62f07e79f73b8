"""Student's t quantiles, stdlib only, for the interval of a mean of a few episodes.

A mean of n rewards has a t distribution with n - 1 degrees of freedom around the true mean; the
normal quantile (1.96) in its place makes a 95% interval of 5 episodes about 30% too narrow
(2.776 is right). The core does not depend on scipy, so the quantile is computed here: the
exact inverse of the t distribution's tail, which is a regularized incomplete beta function
(a continued fraction), solved by Newton's method kept inside a bracket. It agrees with
scipy.stats.t.ppf to about 1e-14 relatively (tests/swift/test_student_t.py checks it where
ms-swift brings scipy).
"""

from __future__ import annotations

import math
from functools import lru_cache
from statistics import NormalDist

_EPSILON = 1e-15
_TINY = 1e-300
_SERIES_DF = 1e4
"""From these degrees of freedom on, the Cornish-Fisher series is exact to the last bits (4e-16
relatively, even 1e-12 into the tail), where the continued fraction, at x near 1, loses them
(2e-14 here, 6e-12 at a million)."""


@lru_cache(maxsize=1024)
def t_quantile(p: float, df: float) -> float:
    """The `p` quantile of Student's t with `df` degrees of freedom (inf: the normal one)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"a quantile's probability is between 0 and 1, not {p!r}")
    if not df > 0:
        raise ValueError(f"degrees of freedom are above 0, not {df!r}")
    if p == 0.5:
        return 0.0
    tail = min(p, 1.0 - p)  # the upper tail beyond |t|: the quantile is found from the smaller
    sign = 1.0 if p > 0.5 else -1.0
    if math.isinf(df):
        return -NormalDist().inv_cdf(tail) * sign
    if df == 1:  # Cauchy
        return sign / math.tan(math.pi * tail)
    if df == 2:
        return sign * (1.0 - 2.0 * tail) / math.sqrt(2.0 * tail * (1.0 - tail))
    if df >= _SERIES_DF:
        return sign * _cornish_fisher(tail, float(df))
    return sign * _upper_quantile(tail, float(df))


def upper_tail(t: float, df: float) -> float:
    """P(T > t) for t >= 0: half the regularized incomplete beta I_x(df/2, 1/2), x = df/(df+t²).

    x and 1 - x are both computed from t, neither as 1 minus the other, so a large df keeps
    its digits (there 1 - x = t²/(df+t²) is small).
    """
    square = t * t
    a = df / 2.0
    log_x = -math.log1p(square / df)
    log_y = math.log(square / (df + square)) if square else -math.inf
    log_beta = _LOG_GAMMA_HALF - _log_gamma_ratio(a)
    return 0.5 * _regularized_beta(math.exp(log_x), -math.expm1(log_x), a, log_x, log_y, log_beta)


def _density(t: float, df: float) -> float:
    log_norm = _log_gamma_ratio(df / 2.0) - 0.5 * math.log(df * math.pi)
    return math.exp(log_norm - (df + 1) / 2 * math.log1p(t * t / df))


_LOG_GAMMA_HALF = math.lgamma(0.5)


def _log_gamma_ratio(a: float) -> float:
    """log(Γ(a + 1/2) / Γ(a)). Past a = 50 from Stirling's series of the difference, since
    lgamma(a + 1/2) - lgamma(a) loses digits of the two large logs (1e-7 of it at a = 5e8)."""
    if a < 50.0:
        return math.lgamma(a + 0.5) - math.lgamma(a)
    b = a + 0.5
    return (a - 0.5) * math.log1p(0.5 / a) + 0.5 * math.log(b) - 0.5 + _stirling(b) - _stirling(a)


def _stirling(x: float) -> float:
    """log Γ(x) - ((x - 1/2) log x - x + log(2π)/2): its series, exact in doubles past x = 50."""
    inverse = 1.0 / (x * x)
    return (1 / 12 - inverse * (1 / 360 - inverse * (1 / 1260 - inverse / 1680))) / x


def _upper_quantile(tail: float, df: float) -> float:
    """The t > 0 whose upper tail is `tail` (< 0.5): Newton from the Cornish-Fisher estimate,
    bisecting instead wherever a step would leave the bracket known to hold the answer."""
    low, high = 0.0, math.inf
    t = max(_cornish_fisher(tail, df), 1e-3)
    for _ in range(200):
        difference = upper_tail(t, df) - tail
        if difference == 0:
            return t
        if difference > 0:  # the tail is still too heavy: the quantile is further out
            low = t
        else:
            high = t
        step = difference / _density(t, df)
        guess = t + step
        if not low < guess < high:
            guess = 2.0 * t if math.isinf(high) else (low + high) / 2.0
        if abs(guess - t) <= 4 * _EPSILON * t:
            return guess
        t = guess
    return t


def _cornish_fisher(tail: float, df: float) -> float:
    """Abramowitz and Stegun 26.7.5: the quantile as a series in 1/df around the normal one."""
    z = -NormalDist().inv_cdf(tail)
    z2 = z * z
    g1 = (z2 + 1) * z / 4
    g2 = ((5 * z2 + 16) * z2 + 3) * z / 96
    g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384
    g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


def _regularized_beta(
    x: float, y: float, a: float, log_x: float, log_y: float, log_beta: float
) -> float:
    """I_x(a, 1/2), with y = 1 - x, their logs and log B(a, 1/2) given apart; the continued
    fraction on whichever side converges (Numerical Recipes' betai)."""
    b = 0.5
    if y <= 0.0:
        return 1.0
    if x <= 0.0:
        return 0.0
    front = math.exp(a * log_x + b * log_y - log_beta)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_fraction(x, a, b) / a
    return 1.0 - front * _beta_fraction(y, b, a) / b


def _beta_fraction(x: float, a: float, b: float) -> float:
    """The continued fraction of I_x(a, b), by the modified Lentz method."""
    c = 1.0
    d = 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    fraction = d
    for m in range(1, 100_000):
        m2 = 2 * m
        for numerator in (
            m * (b - m) * x / ((a + m2 - 1.0) * (a + m2)),
            -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + numerator / c
            c = c if abs(c) > _TINY else _TINY
            delta = c * d
            fraction *= delta
        if abs(delta - 1.0) < _EPSILON:
            break
    return fraction
