"""Numbers as the page prints them: true minus signs, no "−0.00" (core/lessons/number_text.py),
subscripts, tiny numbers as powers of ten, brackets in products, positions from 0 or 1."""

from core.lessons.number_text import num, power_of_ten, sub
from ui.kit.i18n import current_lang, t

__all__ = ["num", "sub", "power_of_ten", "factor", "sum_notes", "shown_index", "row_label",
           "indices", "numbered", "byte_size", "one_in", "unbroken", "NBSP"]  # fmt: skip


def factor(value: float, decimals: int) -> str:
    """A number inside a product, in brackets when negative: (−0.50)."""
    text = num(value, decimals)
    return f"({text})" if text.startswith("−") else text


def sum_notes(M, decimals: int, axis: int = 1) -> list[str]:
    """'Σ=1.00' for each row (axis=1) or column (axis=0) of M: notes printed beside a matrix."""
    return [f"Σ={num(total, decimals)}" for total in M.sum(axis=axis)]


def shown_index(i: int, base: int) -> str:
    """Position i (counted from 0 in the code) as the page numbers it: from 0 or from 1."""
    return str(i + base)


def row_label(i: int, token: str, base: int) -> str:
    """'2 · 电影': a row's number and its token, as pickers and tables show them."""
    return f"{i + base} · {token}"


def numbered(base: int, up_to: int = 32) -> dict:
    """A text's code indices as the page numbers them: a string writes index k (counted from 0)
    as {ik}, or as a subscript {sk}; e.g. "layer {i16}" says "layer 17" from 1, "q{s0}" q₁."""
    return {f"i{k}": k + base for k in range(up_to)} | {
        f"s{k}": sub(k + base) for k in range(up_to)
    }


BINARY_UNITS = ("kib", "mib", "gib")  # 2¹⁰, 2²⁰, 2³⁰ bytes: shell.size_<unit>


def byte_size(n: int, lang: str | None = None) -> str:
    """A size in bytes in binary units, named so (shell.size_binary says what they are): "36 KiB",
    "1.05 MiB" (1,105,920 bytes), "72 MiB", "67.5 MiB"; as many decimals as the size needs to be
    exact, up to two ("1.00 MiB" for 1,048,575 bytes: not exactly 1); under 1 KiB in bytes
    ("字节" in Chinese)."""
    n = int(n)
    if n < 2**10:
        return t("shell.size_bytes", lang, n=n)
    power = min(len(BINARY_UNITS), (n.bit_length() - 1) // 10)  # 1 for KiB, 2 for MiB, ...
    if power < len(BINARY_UNITS) and f"{n / 2 ** (10 * power):.2f}" == "1024.00":
        power += 1  # 1,048,575 bytes: "1.00 MiB", not "1024.00 KiB"
    unit = 2 ** (10 * power)
    if n % unit == 0:
        text = str(n // unit)
    else:
        text = f"{n / unit:.1f}" if (n * 10) % unit == 0 else f"{n / unit:.2f}"
    return t(f"shell.size_{BINARY_UNITS[power - 1]}", lang, n=text)


def indices(count: int, base: int) -> list[str]:
    """Axis labels 0 … count−1 (or 1 … count)."""
    return [str(i + base) for i in range(count)]


CHINESE_DIGITS = "一二三四五六七八九"


def one_in(n: int) -> str:
    """The fraction 1/n in the page's language: 四分之一 in Chinese (up to 1/9), else 1/n."""
    if current_lang() == "zh" and 2 <= n <= len(CHINESE_DIGITS):
        return f"{CHINESE_DIGITS[n - 1]}分之一"
    return f"1/{n}"


NBSP = "\u00a0"  # a space no line breaks at


def unbroken(text: str) -> str:
    """``text`` held on one line: its spaces made non-breaking, for a piece's bytes ("E4 BB")
    in a narrow table cell or a caption, which would otherwise wrap as "E4 / BB"."""
    return text.replace(" ", NBSP)
