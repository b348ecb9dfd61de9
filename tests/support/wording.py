"""The notation rules that the strings (tests/ui/test_glossary.py) and the rendered pages
(tests/app/test_walkthrough_labels.py) are both held to: real subscripts, no ASCII colon in
Chinese, no number in computer notation. Each check takes a text and returns what it found."""

import re

PLACEHOLDER = re.compile(r"\{[^{}]*\}")
# Streamlit's icon shortcode in a label (":material/front_hand: 没听懂"): the icon, not text
ICON = re.compile(r":material/[a-z0-9_]+:")
# a code span, a LaTeX formula or an icon: written as code
NOTATION = re.compile(rf"`[^`]*`|\$[^$]*\$|{ICON.pattern}")

# The paper's names whose subscript is a name, not an index: d_k, d_v, d_ff (like d_model, W_Q,
# W_O, whose capital or long subscripts the index pattern below does not match anyway), and
# Gemma's W_up beside its W_gate and W_down.
SUBSCRIPT_NAMES = {"d_k", "d_v", "d_ff", "W_up"}
INDEX = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z]_(?:[0-9]+|[a-z]{1,2})(?![A-Za-z0-9_])")


def underscore_subscripts(text: str) -> list[str]:
    """A one-letter symbol with an index written after "_" (q_4, s_ij, x_i, a_j, W_1, W_h): in
    visible text an index is a real subscript (q₄, sᵢⱼ, xᵢ, aⱼ, W₁, Wₕ). A placeholder is a
    number ("q_{i}" prints q_4); code spans and LaTeX formulas are code and are left out, and so
    are the names in SUBSCRIPT_NAMES."""
    text = PLACEHOLDER.sub("0", NOTATION.sub(" ", text))
    return [m for m in INDEX.findall(text) if m not in SUBSCRIPT_NAMES]


def ascii_colons(text: str) -> list[str]:
    """Every ASCII ':' of a Chinese string outside code, formulas and a placeholder's format
    (a Chinese sentence takes '：', after a word or after a number or symbol alike)."""
    text = PLACEHOLDER.sub("0", NOTATION.sub(" ", text))
    return [text[max(m.start() - 4, 0) : m.end() + 2] for m in re.finditer(":", text)]


def computer_numbers(text: str) -> list[str]:
    """A number in computer notation (1e-05, 0.0e+00, 3.4E+38), or a placeholder whose format
    can print one ({x:.1e}, {x:g}): a sentence writes 10⁻⁵, 0 or 3.4 × 10³⁸ (power_of_ten)."""
    text = NOTATION.sub(" ", text)
    literal = re.findall(r"\d(?:\.\d+)?[eE][+\-−]?\d+", PLACEHOLDER.sub("0", text))
    formats = [p for p in PLACEHOLDER.findall(text) if re.search(r":[^{}]*[eEgG]\}$", p)]
    return literal + formats
