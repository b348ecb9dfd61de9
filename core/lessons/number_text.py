"""Numbers as the pages print them, one rule for every layer: a true minus sign, and no "−0.00"."""


def num(value: float, decimals: int) -> str:
    """A number as printed on the page, with a true minus sign."""
    text = f"{value:.{decimals}f}"
    if float(text) == 0:
        text = text.lstrip("-")  # no "−0.00"
    return text.replace("-", "−")
