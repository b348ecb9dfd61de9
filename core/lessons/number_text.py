"""Numbers as the pages print them, one rule for every layer: a true minus sign, and no "−0.00";
indices as real subscripts (q₄, s₄,₁), never q_4; tiny numbers as powers of ten (10⁻⁵,
3.6 × 10⁻¹⁶), never 1e-05 or 0.0e+00; a sum printed with its parts as the sum of the parts as
printed."""

import math
from decimal import Decimal

_SUB = str.maketrans("0123456789,", "₀₁₂₃₄₅₆₇₈₉,")
_SUP = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def num(value: float, decimals: int) -> str:
    """A number as printed on the page, with a true minus sign."""
    text = f"{value:.{decimals}f}"
    if float(text) == 0:
        text = text.lstrip("-")  # no "−0.00"
    return text.replace("-", "−")


def sub(*indices) -> str:
    """Subscript digits: sub(4, 2) -> '₄,₂'."""
    return ",".join(str(i) for i in indices).translate(_SUB)


def power_of_ten(value: float, digits: int = 2) -> str:
    """A small (or large) number in a sentence: '0', '10⁻⁵', '3.6 × 10⁻¹⁶', '−2 × 10⁻⁹'; a
    number between 0.01 and 10 000 as it is ('0.25')."""
    if value == 0:
        return "0"
    if 0.01 <= abs(value) < 1e4:
        return f"{value:.{digits}g}".replace("-", "−")
    exponent = math.floor(math.log10(abs(value)))
    mantissa = float(f"{value / 10.0**exponent:.{digits}g}")
    if abs(mantissa) >= 10:  # 9.99… rounded up to 10
        mantissa, exponent = mantissa / 10, exponent + 1
    power = f"10{str(exponent).translate(_SUP)}"
    if mantissa == 1:
        return power
    if mantissa == -1:
        return f"−{power}"
    return f"{mantissa:g} × {power}".replace("-", "−")


def printed_sum(values, decimals: int) -> tuple[list[str], str]:
    """``values`` as the page prints them (``num``) and their total as the exact sum of those
    printed parts: "0.075 + 1.719 + 29.057 = 30.851" adds up as printed, where the rounded total
    of the unrounded values (30.850) would not. The two differ by at most half a last place per
    part."""
    parts = [num(float(v), decimals) for v in values]
    total = sum((Decimal(p.replace("−", "-")) for p in parts), Decimal(0))
    return parts, num(total, decimals)
