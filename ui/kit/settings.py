"""The app's settings: the one table that the sidebar, the URL's checks, the trace's cache key,
the pages' "not used here" notes, the lessons' links and a room's view all read.

Adding a setting means one row here and its strings (its label, and its help if it has one);
the sidebar draws it (ui/shell/sidebar.py), a shared link carries it and a room follows it as its
row says.
"""

from collections.abc import Callable
from dataclasses import dataclass, field, make_dataclass

import core
from core.decoder import MODELS as DECODERS

MAX_TOKENS = 512
MAX_CHARS = 5000  # checked before tokenizing: jieba on 100,000 characters takes minutes


def _flag(true: str, false: str) -> Callable[[str], bool]:
    """A URL's two words for a switch, e.g. ``true``/``false``; anything else raises KeyError."""
    return lambda text: {true: True, false: False}[text.lower()]


@dataclass(frozen=True)
class Setting:
    name: str  # its field in Settings
    type: type  # the field's type; the widget's value is turned into it
    widget: str  # how the sidebar draws it (ui/shell/sidebar.py's DRAW), or "page" for a page's own
    label: str  # its label's string key
    default: object  # the widget's value when the URL says nothing
    choices: tuple = ()  # the widget's values a URL may ask for; () when any
    parse: Callable = str  # a URL's text -> the widget's value; raises on nonsense
    url: str = ""  # its key in the URL (default: name); also the widget's key unless ``key``
    key: str = ""
    group: str = ""  # the sidebar's heading it sits under (a string key)
    help: str = ""  # its help's string key
    coded: str = ""  # a coded choice: the string-key prefix of its choices' labels
    bound: bool = False  # Streamlit binds the widget to the URL itself (bind="query-params")
    layer: bool = False  # a setting of the attention layer (and of the trace's cache key)
    followed: bool = False  # a room's students take the teacher's value
    reset: bool = False  # a lesson item that does not name it puts it back to its default
    at: tuple = field(default=())  # a number widget's (lowest, highest)

    @property
    def in_url(self) -> str:
        return self.url or self.name

    @property
    def state_key(self) -> str:
        return self.key or self.in_url

    def valid(self, text: str) -> bool:
        """Whether a URL's ``text`` names one of this setting's values."""
        try:
            value = self.parse(text)
        except (ValueError, KeyError):
            return False
        return not self.choices or value in self.choices


def _decoder(text: str) -> str:
    """A model's registry name as the URL gives it (KeyError: none such, read when asked: a model
    registered later, a test's, is one too)."""
    return DECODERS[text].name


SETTINGS = (
    Setting("lang", str, "lang", "language", "en", ("en", "zh")),
    Setting("sentence", str, "text", "shell.sentence", "", group="shell.sidebar_input", help="shell.sentence_help",
            bound=True, layer=True, followed=True),
    Setting("mode", str, "choice", "shell.tokenizer", "auto", core.MODES, group="shell.sidebar_input",
            help="shell.tokenizer_help", coded="shell.mode", layer=True, followed=True, reset=True),
    Setting("d_model", int, "select", "shell.d_model", 8, (2, 4, 6, 8, 12, 16, 32, 64, 128, 256, 512),
            int, group="shell.sidebar_model", bound=True, layer=True, followed=True, reset=True),
    Setting("n_heads", int, "select", "shell.n_heads", 2, (1, 2, 3, 4, 8), int, group="shell.sidebar_model",
            bound=True, layer=True, followed=True, reset=True),
    Setting("seed", int, "number", "shell.seed", 0, tuple(range(10000)), int, group="shell.sidebar_model",
            bound=True, layer=True, followed=True, reset=True, at=(0, 9999)),
    Setting("positional", bool, "toggle", "shell.positional", True, (True, False), _flag("true", "false"),
            url="pe", group="shell.sidebar_model", bound=True, layer=True, followed=True, reset=True),
    Setting("mask", str, "radio", "shell.mask", "none", ("none", "causal"), group="shell.sidebar_model",
            coded="shell.mask", layer=True, followed=True, reset=True),
    Setting("decimals", int, "slider", "shell.decimals", 2, tuple(range(5)), int, bound=True, at=(0, 4)),
    Setting("presentation", bool, "toggle", "shell.presentation", False, (True, False),
            _flag("true", "false"), url="big", bound=True),
    # one numbering for every page (rows, tokens, layers, heads), kept by a lesson's links and
    # followed by a room; from 1 unless the learner asks for Python's 0 (base=0 in the URL)
    Setting("base", int, "coded_toggle", "shell.number_from_one", True, (True, False),
            _flag("1", "0"), key="base_toggle", help="shell.number_from_one_help", followed=True),
    # the walkthrough's own, in its URL and a room's view (its choices are its steps and rows)
    Setting("step", str, "page", "step", "tokens", followed=True, reset=True),
    Setting("head", int, "page", "walkthrough.head", 0, parse=int, followed=True, reset=True),
    Setting("focus", int, "page", "focus", None, parse=int, followed=True),
    # the decoder /generate and /inside run (Gemma first), in their URL and a room's view; a
    # lesson's item that names none goes back to Gemma, whose layers the lessons tell of
    Setting("model", str, "page", "generate.model", core.first_decoder(), parse=_decoder,
            followed=True, reset=True),
    # /generate's own, in its URL and a room's view: a class following the teacher writes the
    # teacher's prompt with the teacher's rules, as far as the teacher has written (one
    # generation for the whole room: ui/work/decoding.py shares it)
    Setting("gen_prompt", str, "page", "generate.prompt", "", bound=True, followed=True),
    Setting("gen_t", float, "page", "generate.temperature", 1.0, parse=float, bound=True,
            followed=True),
    Setting("gen_k", int, "page", "generate.top_k", 0, parse=int, bound=True, followed=True),
    Setting("gen_p", float, "page", "generate.top_p", 1.0, parse=float, bound=True, followed=True),
    Setting("gen_mode", str, "page", "generate.mode", "greedy", ("greedy", "sample"),
            followed=True),
    Setting("gen_seed", int, "page", "generate.seed", 0, parse=int, bound=True, followed=True),
    Setting("gen_written", int, "page", "generate.written", 0, parse=int, url="written",
            key="gen_written", followed=True),
)  # fmt: skip

SIDEBAR = tuple(s for s in SETTINGS if s.widget not in ("lang", "page"))
LAYER = tuple(s.in_url for s in SETTINGS if s.layer)  # what a page without the layer sets aside
FOLLOWED = tuple(s for s in SETTINGS if s.followed)
BY_URL = {s.in_url: s for s in SETTINGS}

Settings = make_dataclass(
    "Settings",
    [(s.name, s.type, field(default=s.type(s.default))) for s in SETTINGS if s.widget != "page"],
    frozen=True,
)
Settings.__doc__ = (
    "The settings app.py drew in this run: one field per row of SETTINGS but the pages' own."
)
Settings.__module__ = __name__


def settings_from(values: dict) -> Settings:
    """Settings from each row's widget value (by name), each turned into its field's type."""
    return Settings(
        **{s.name: s.type(values[s.name] or s.type()) for s in SETTINGS if s.name in values}
    )
