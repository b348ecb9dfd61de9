"""The notation rules that the strings (tests/ui/test_glossary.py) and the rendered pages
(tests/app/test_walkthrough_labels.py) are both held to: real subscripts, no ASCII colon in
Chinese, no number in computer notation, no English word in Chinese (beside symbols and the
names in NAMES; the notebooks' printed labels are held to it too). Each check takes a text and
returns what it found."""

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


# Names and notation a Chinese learner meets as they are: library, model and file names, function
# names printed in formulas, units, and the textbook's English beside its Chinese term.
NAMES = {
    *("softmax", "token", "Concat", "MultiHead", "FFN", "LayerNorm", "ReLU", "tanh", "sin", "cos"),
    *("diag", "axis", "pos", "inf", "NaN", "pad", "UNK", "AV", "QK", "PE", "MB", "zip"),
    *("Query", "Key", "Value"),  # 查询 Query, 键 Key, 值 Value: the textbooks' pairing
    *("NumPy", "CuPy", "Python", "tracemalloc", "jieba", "GPU", "CPU", "RNN", "CNN"),
    *("Transformer", "FlashAttention", "BERT", "XLM-R", "all-MiniLM-L6-v2"),
    *("multilingual-e5-small", "float32", "float64", "CSV", "HTML", "PDF", "PNG", "npz"),
    *("bench", "gpu_timing.py", "core", "reference.py", "tiny"),  # bench/…, core/… shown
    "Adam",  # the optimizer, by its name (the /train notebook)
    "Redis",  # the room store's server, named as the teacher's admin knows it
    "Esc",  # the key that closes the projector's "how to join" card
    *("Gemma", "RoPE", "RMSNorm", "QK-norm", "GeGLU", "GELU", "top-k", "top-p"),  # the decoder's
    *("SmolLM2-135M", "Llama", "Qwen"),  # decoders by their names
    *("SentencePiece", "BPE", "UTF-8"),  # the tokenizers' kinds, and the bytes they fall back to
    "Jupyter",  # the notebooks (ui/notebooks), as the learner's tool names it
    *("logit", "log", "bos", "NUL"),  # parts, the rules' names, −log p, <bos>, the NUL character
    "nat",  # the unit of a loss in natural logarithms, as the inside page's losses are given
    "ln",  # chance as ln 16, the natural logarithm's name
    # the accessibility statement (a11y.toml): its standard, the keys by the names on them, the
    # tools it was tested with, Streamlit's issues by their numbers, the element it names
    *("WCAG", "AA", "Tab", "Shift", "Enter", "Streamlit", "streamlit", "SVG", "axe-core"),
    *("Chromium", "ACCESSIBILITY.md", "html", "lang"),
    *("KiB", "MiB", "GiB"),  # binary sizes by their units' names (1 KiB = 1,024 bytes)
}
GRADIENT = re.compile(r"d[A-Z]")  # dO, dA, dS: the gradient of O, A, S (the train page)


def english_words(text: str) -> set[str]:
    """Latin words in a Chinese text that are neither symbols nor allowed names.

    A symbol is one letter (Q, d, i), or carries an underscore or a digit (W_Q, d_k, s_ij):
    the paper's notation; so is a gradient's name, d and a capital (dO, dS). Placeholders are
    values, not words, and are left out, and so is a model's input quoted “…” (the inside
    page's preset “montagne”) and code in backticks (`np.sqrt(d_k)`, the practice page's).
    """
    text = ICON.sub(" ", PLACEHOLDER.sub(" ", text))  # an icon's name is not a word
    text = re.sub(r"“[^”]*”", " ", text)
    text = re.sub(r"`[^`]*`", " ", text)  # code, as the learner types it (np.where, keepdims=)
    words = re.findall(r"[A-Za-z][A-Za-z0-9_.\-]*[A-Za-z0-9]|[A-Za-z]", text)
    return {
        w
        for w in words
        if len(w) > 1
        and not re.search(r"[_0-9]", w)
        and w not in NAMES
        and not GRADIENT.fullmatch(w)
    }
