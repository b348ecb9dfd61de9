"""Where a walkthrough rerun's CPU and a learner's memory go (issue 67, item 1: profile first).

The walkthrough (app.py's default page, default settings) for N learners, each with a sentence of
their own (?sentence=...), in one process through Streamlit's AppTest; each learner runs once
(cold: the trace and the figures built), then every learner reruns, in turn, as a class does.

1. CPU of a warm rerun, in the script's thread (its CPU clock, so the machine's other load does
   not count), by bucket: the trace (core/), figure building (Plotly's objects and validators,
   ui/figures, the charts' text alternative), figure -> JSON (plotly.io, to_dict), element ids and
   message hashes (Streamlit hashes every message, and every chart's JSON for its id),
   protobuf/marshalling, Streamlit's script run, widgets and session state, layout, markdown and
   text, tables, i18n lookups, the app's own code, other. The buckets come from a sampler that
   reads the script thread's Python stack about every millisecond and weighs each stack by the
   CPU that thread spent since the last sample; the table's ms are those shares of the rerun's
   CPU measured without any profiler. A C call (protobuf, numpy, md5) counts for the Python
   function that called it. Beside it: cProfile's top functions by own time (C calls by name),
   the reruns in the other order (each learner's reruns back to back), how many figures a rerun
   builds, and how many bytes of figure JSON it makes. The server's own work after the script
   (serializing each message for the websocket) is not in AppTest's run: measured on the
   messages a rerun made, and shown as its own line.
   Then what three savings buy, tried: the trace's cache big enough for the class, a shared
   figure's JSON made once, and (for scale; Streamlit's own) no message hashes: each learner's
   rerun done once per variant, one right after the other, each variant with a trace cache of
   its own.
2. Memory of one more learner with a sentence of their own: the process's resident growth for
   M new learners (each run once, then rerun once) divided by M, and tracemalloc's (Python's
   allocations, numpy's arrays included), against the parts: the learner's session state, the
   trace cached for their sentence, the figures cached for it (ui/kit/shared_cache.py), what
   their page's downloads keep (Streamlit holds each download button's callable, and its
   arguments, for the session), and the page's messages. AppTest's own copy of the page (its
   element tree) is not a server's, and is shown apart.
3. A class of --crowd learners (120, the issue's) rerunning in turn: what the shared caches
   hold against what the class asks of them (each builds what it lost), and a rerun's CPU then.
4. A real server (streamlit run app.py on loopback): its resident memory as --server learners
   with their own sentences arrive at once and rerun at once (its CPU per rerun, all threads),
   then as many with one sentence between them, then after they leave.

Measured on a shared 2-core machine: read the shares, and the rows measured side by side.

    .venv/bin/python bench/rerun_profile.py [--learners 20] [--rounds 5] [--new 20]
        [--crowd 120] [--server 60] [--step S] [--save FILE]
"""

import argparse
import cProfile
import gc
import io
import pickle
import pstats
import sys
import threading
import time
import tracemalloc
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import plotly.basedatatypes  # noqa: E402
import streamlit.testing.v1.app_test as app_test  # noqa: E402
import streamlit.testing.v1.local_script_runner as local_script_runner  # noqa: E402
from streamlit.runtime.media_file_manager import MediaFileManager  # noqa: E402
from streamlit.runtime.runtime_util import serialize_forward_msg  # noqa: E402
from streamlit.runtime.scriptrunner.script_cache import ScriptCache  # noqa: E402
from streamlit.runtime.scriptrunner.script_runner import ScriptRunner  # noqa: E402
from streamlit.testing.v1.local_script_runner import LocalScriptRunner  # noqa: E402

from bench.classroom import SENTENCES  # noqa: E402
from tests.support.app import run_app  # noqa: E402

# ---------------------------------------------------------------------------------------------
# The script thread: its CPU clock, its id for the sampler, its profiler, its figures and messages

SCRIPT_CACHE = ScriptCache()  # as a server's: one for every session (AppTest makes one a run)
app_test.ScriptCache = local_script_runner.ScriptCache = lambda: SCRIPT_CACHE


class Watch:
    """What the last script runs did, seen from inside their thread."""

    def __init__(self):
        self.ident = None  # the running script thread's id (the sampler reads its stack)
        self.clock = None  # and its CPU clock
        self.cpu = []  # CPU seconds of each script run
        self.figures = 0  # Plotly figures constructed in script threads
        self.profile = None  # a cProfile.Profile to enable in the script thread, or None
        self.messages = []  # the ForwardMsgs of the last run


WATCH = Watch()
_run_script_thread = ScriptRunner._run_script_thread


def _watched_run(self):
    WATCH.ident = threading.get_ident()
    WATCH.clock = time.pthread_getcpuclockid(WATCH.ident)
    profile = WATCH.profile
    start = time.thread_time()
    if profile is not None:
        profile.enable()
    try:
        return _run_script_thread(self)
    finally:
        if profile is not None:
            profile.disable()
        WATCH.cpu.append(time.thread_time() - start)
        WATCH.ident = None


ScriptRunner._run_script_thread = _watched_run
_figure_init = plotly.basedatatypes.BaseFigure.__init__


def _counted_init(self, *args, **kwargs):
    if threading.get_ident() == WATCH.ident:
        WATCH.figures += 1
    return _figure_init(self, *args, **kwargs)


plotly.basedatatypes.BaseFigure.__init__ = _counted_init
_forward_msgs = LocalScriptRunner.forward_msgs


def _kept_msgs(self):
    WATCH.messages = list(_forward_msgs(self))
    return WATCH.messages


LocalScriptRunner.forward_msgs = _kept_msgs

# ---------------------------------------------------------------------------------------------
# The sampler and the buckets


class Sampler:
    """Reads the script thread's Python stack every ``interval`` s, each stack weighed by the CPU
    seconds the script thread spent since the previous sample."""

    def __init__(self, interval: float = 0.001):
        self.interval, self.stacks, self.running = interval, Counter(), False
        self.samples = 0
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def __enter__(self):
        self.switch = sys.getswitchinterval()
        sys.setswitchinterval(0.0002)  # the script thread lets the sampler in soon
        self.running = True
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.running = False
        self.thread.join()
        sys.setswitchinterval(self.switch)

    def _loop(self):
        last_ident, last_cpu = None, 0.0
        while self.running:
            time.sleep(self.interval)
            ident, clock = WATCH.ident, WATCH.clock
            frame = sys._current_frames().get(ident) if ident else None
            if frame is None:
                last_ident = None
                continue
            try:
                cpu = time.clock_gettime(clock)
            except OSError:  # the thread ended between the two reads
                continue
            if ident != last_ident:  # a new run: its first sample counts from its start
                last_ident, last_cpu = ident, 0.0
            stack = []
            while frame is not None:
                stack.append(frame.f_code)
                frame = frame.f_back
            self.stacks[tuple(stack)] += cpu - last_cpu
            self.samples += 1
            last_cpu = cpu


SITE = "site-packages/"
APP = str(ROOT) + "/"

# whole-stack rules, first match wins: the work a saving would remove with everything under it
APPTEST = "AppTest only (its mock runtime; not a server's)"
CONTEXT = (
    (APPTEST, lambda f, n: "unittest/mock.py" in f),
    ("trace (core/)", lambda f, n: f.startswith(APP + "core/") or f.endswith("ui/work/traces.py")),
    ("figure -> JSON (plotly.io, to_dict)", lambda f, n: "plotly/io/_json.py" in f
        or ("_plotly_utils/utils.py" in f and "Encoder" in n)
        or (n in ("to_dict", "to_plotly_json") and ("plotly/" in f or "ui/figures/" in f))
        or n == "return_figure_from_figure_or_data"),
    ("element ids + message hashes", lambda f, n: "streamlit/runtime/forward_msg_cache.py" in f
        or n in ("compute_and_register_element_id", "compute_element_id", "calc_hash")),
)  # fmt: skip

# one frame's module, read from the innermost frame outward; None: look further out
MODULE = (
    ("figures: Plotly objects + validators", ("plotly/", "_plotly_utils/")),
    ("figures: text alternative (alt_text)", ("ui/figures/alt_text.py",)),
    ("figures: the app's figure code (ui/figures)", ("ui/figures/",)),
    ("i18n lookups (ui.kit.i18n)", ("ui/kit/i18n.py",)),
    ("protobuf / marshalling", ("google/protobuf", "streamlit/proto/",
                                "streamlit/runtime/forward_msg_queue.py",
                                "streamlit/elements/plotly_chart.py")),
    ("tables (pandas / pyarrow)", ("pandas/", "pyarrow/", "streamlit/dataframe_util.py",
                                   "streamlit/elements/arrow.py", "ui/kit/tables.py")),
    ("markdown / text", ("streamlit/elements/markdown.py", "streamlit/elements/text.py",
                         "streamlit/elements/alert.py", "streamlit/elements/heading.py",
                         "streamlit/elements/html.py", "streamlit/string_util.py",
                         "ui/kit/escape.py")),
    ("layout (containers, columns)", ("streamlit/elements/layouts.py",
                                      "streamlit/elements/lib/layout_utils.py",
                                      "streamlit/elements/space.py")),
    ("widgets + session state", ("streamlit/elements/widgets/", "streamlit/runtime/state/",
                                 "streamlit/elements/lib/policies.py",
                                 "streamlit/elements/lib/utils.py",
                                 "streamlit/elements/lib/options_selector_utils.py",
                                 "streamlit/commands/", "streamlit/navigation/",
                                 "streamlit/elements/lib/js_number.py", "ui/kit/url.py",
                                 "ui/kit/choose.py", "ui/kit/session.py")),
    ("Streamlit: delta generator", ("streamlit/delta_generator",)),
    ("Streamlit: script run machinery", ("streamlit/runtime/scriptrunner/",
                                         "streamlit/runtime/scriptrunner_utils/",
                                         "streamlit/runtime/pages_manager.py",
                                         "streamlit/runtime/fragment.py",
                                         "streamlit/runtime/metrics_util.py")),
    ("Streamlit: other", ("streamlit/",)),
)  # fmt: skip
APP_OWN = "app's own code (ui/, page_scripts/, app.py)"
OTHER = "other (stdlib, numpy, threads)"
ORDER = [name for name, _ in CONTEXT] + [name for name, _ in MODULE] + [APP_OWN, OTHER]


def bucket(stack) -> tuple[str, str]:
    """A sample's bucket, and the function that decided it."""
    frames = [(code.co_filename, code.co_name) for code in stack]
    for name, rule in CONTEXT:
        for f, n in frames:
            if rule(f, n):
                return name, _short(f, n)
    for f, n in frames:  # innermost first
        for name, parts in MODULE:
            if any(part in f for part in parts):
                return name, _short(f, n)
        if f.startswith(APP) and SITE not in f:
            return APP_OWN, _short(f, n)
    return OTHER, _short(*frames[0])


def _short(f: str, n: str) -> str:
    return f"{f.replace(APP, '').split(SITE)[-1].split('/lib/python3')[-1]}({n})"


def page_part(stack) -> str:
    """Which call of app.py or of the page's script a sample is under: the function the script
    called (its own lines: "lines of its own"), or the runner around the script."""
    frames = list(reversed(stack))  # outermost first
    script_at = None
    for i, code in enumerate(frames):
        if code.co_name == "<module>" and code.co_filename.startswith(APP):
            script_at = i
    if script_at is None:
        return "Streamlit's runner, around the script"
    script = frames[script_at].co_filename.replace(APP, "")
    for code in frames[script_at + 1 :]:
        if code.co_name in WRAPPERS:  # a decorator's wrapper: the function it wraps, below it
            continue
        if code.co_filename.startswith(APP) or "streamlit/" in code.co_filename:
            where = code.co_filename.replace(APP, "").split(SITE)[-1].removesuffix(".py")
            where = "st" if where.startswith("streamlit/") else where.rsplit("/", 1)[-1]
            return f"{script.removeprefix('page_scripts/')}: {where}.{code.co_name}"
    return f"{script.removeprefix('page_scripts/')}: lines of its own"


WRAPPERS = ("wrapped_func", "run", "wrapper", "wrapped", "__call__")


# ---------------------------------------------------------------------------------------------
# Sizes


def deep_size(root, seen: set) -> int:
    """Bytes held by ``root`` and what it reaches (arrays by their buffers), skipping what
    ``seen`` already holds and anything shared by the whole program (modules, classes,
    functions' code)."""
    import types

    size, todo = 0, [root]
    skip = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
            types.CodeType, types.MethodType, threading.Thread)  # fmt: skip
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, skip):
            continue
        seen.add(id(obj))
        if isinstance(obj, np.ndarray):
            size += sys.getsizeof(obj) if obj.base is None else obj.__sizeof__()
            if obj.base is not None:
                todo.append(obj.base)
            continue
        if hasattr(obj, "ByteSize") and hasattr(obj, "SerializeToString"):  # a protobuf
            size += obj.ByteSize() + 64
            continue
        size += sys.getsizeof(obj)
        if isinstance(obj, dict):
            todo.extend(obj.keys())
            todo.extend(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            todo.extend(obj)
        elif hasattr(obj, "func") and hasattr(obj, "args"):  # functools.partial
            todo.extend([obj.func, obj.args, obj.keywords])
        else:
            if hasattr(obj, "__dict__"):
                todo.append(vars(obj))
            for slot in getattr(type(obj), "__slots__", ()):
                if hasattr(obj, slot):
                    todo.append(getattr(obj, slot))
    return size


def shared_caches() -> dict:
    """Every shared cache of the app (ui/kit/shared_cache.py's Shared), by its function's name."""
    from ui.kit.shared_cache import Shared

    found = {}
    for obj in gc.get_objects():
        if isinstance(obj, Shared):
            found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return found


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


# ---------------------------------------------------------------------------------------------


def sentence(i: int) -> str:
    return f"{SENTENCES[i % len(SENTENCES)]} {i}"


def learner(i: int, step: str | None):
    query = {"sentence": sentence(i)}
    if step:
        query["step"] = step
    return run_app(**query)


def rerun(at) -> dict:
    """One rerun of a learner's page: its script CPU (s), figures made, messages."""
    figures = WATCH.figures
    at.run()
    assert not at.exception, at.exception
    return {"cpu": WATCH.cpu[-1], "figures": WATCH.figures - figures, "messages": WATCH.messages}


def message_facts(messages) -> dict:
    """Figure JSON bytes, all bytes, how many messages a browser holding the page's cache would
    get as a hash only, and the CPU (s) of serializing each for the websocket."""
    spec = total = cacheable = 0
    kinds = Counter()
    start = time.thread_time()
    for msg in messages:
        total += len(serialize_forward_msg(msg))
    serialize = time.thread_time() - start
    for msg in messages:
        if msg.WhichOneof("type") == "delta" and msg.delta.WhichOneof("type") == "new_element":
            element = msg.delta.new_element
            kind = element.WhichOneof("type")
            kinds[kind] += 1
            if kind == "plotly_chart":
                spec += len(element.plotly_chart.spec.encode())
        if msg.metadata.cacheable:
            cacheable += msg.ByteSize()
    return {"spec": spec, "total": total, "cacheable": cacheable, "kinds": kinds,
            "count": len(messages), "serialize": serialize}  # fmt: skip


def sample_reruns(order, reruns_of) -> tuple[Counter, float, int]:
    """Reruns in ``order`` under the sampler: weights by bucket, CPU seconds, reruns."""
    with Sampler() as sampler:
        cpu = 0.0
        for at in order:
            cpu += reruns_of(at)["cpu"]
    by_bucket, by_part = Counter(), Counter()
    for stack, weight in sampler.stacks.items():
        name, deciding = bucket(stack)
        by_bucket[name] += weight
        INSIDE[name][deciding] += weight
        by_part["(AppTest only: st.context read through its mock)" if name == APPTEST
                else page_part(stack)] += weight  # fmt: skip
    SAMPLES.append(sampler.samples)
    PARTS.append(by_part)
    return by_bucket, cpu, len(order)


PARTS: list = []  # CPU by the script's call it was under, for each sampled series
INSIDE: dict = defaultdict(Counter)  # bucket -> the functions that decided its samples -> CPU


SAMPLES: list = []  # samples taken by each sampled series


def cpu_section(learners, rounds: int, out) -> dict:
    caches = shared_caches()
    from ui.work.traces import sentence_trace

    class_order = [at for _ in range(rounds) for at in learners]  # each in turn, as a class
    own_order = [at for at in learners for _ in range(rounds)]  # each learner's back to back

    def plain(order):
        builds = sum(c.builds for c in caches.values())
        misses = sentence_trace.cache_info().misses
        runs = [rerun(at) for at in order]
        return {
            "cpu": [r["cpu"] for r in runs],
            "figures": sum(r["figures"] for r in runs) / len(runs),
            "builds": (sum(c.builds for c in caches.values()) - builds) / len(runs),
            "trace_misses": (sentence_trace.cache_info().misses - misses) / len(runs),
            "facts": [message_facts(r["messages"]) for r in runs],
        }

    # side by side, twice, so that a change in the machine's load touches both alike
    plain_class = plain(class_order)
    plain_own = plain(own_order)
    plain_class2 = plain(class_order)
    plain_own2 = plain(own_order)
    ms_class = 1000 * float(np.median(plain_class["cpu"] + plain_class2["cpu"]))
    ms_own = 1000 * float(np.median(plain_own["cpu"] + plain_own2["cpu"]))
    mean_class = 1000 * float(np.mean(plain_class["cpu"] + plain_class2["cpu"]))
    mean_own = 1000 * float(np.mean(plain_own["cpu"] + plain_own2["cpu"]))

    sampled_class, cpu_c, n_c = sample_reruns(class_order, rerun)
    sampled_own, cpu_o, n_o = sample_reruns(own_order, rerun)

    facts = plain_class["facts"]
    serialize_ms = 1000 * float(np.median([f["serialize"] for f in facts]))
    spec_kib = np.mean([f["spec"] for f in facts]) / 1024
    total_kib = np.mean([f["total"] for f in facts]) / 1024
    cacheable_kib = np.mean([f["cacheable"] for f in facts]) / 1024
    kinds = facts[-1]["kinds"]
    count = np.mean([f["count"] for f in facts])

    p = lambda *a: print(*a, file=out)  # noqa: E731
    p(f"== 1. CPU of a warm walkthrough rerun: {len(learners)} learners, each their own sentence,"
      f" {rounds} reruns each ==")  # fmt: skip
    p(f"script thread CPU per rerun, no profiler (median; mean): class order (each learner in "
      f"turn) {ms_class:.1f} ms; {mean_class:.1f} ms | each learner's reruns back to back "
      f"{ms_own:.1f} ms; {mean_own:.1f} ms")  # fmt: skip
    p(
        f"  (the machine is shared: compare the two orders and the shares, measured side by side; "
        f"the sampler's runs took {1000 * cpu_c / n_c:.1f} and {1000 * cpu_o / n_o:.1f} ms)"
    )
    p(f"per rerun, class order: {plain_class['figures']:.2f} Plotly figures constructed, "
      f"{plain_class['builds']:.2f} shared-cache builds, "
      f"{plain_class['trace_misses']:.2f} trace computations (sentence_trace lru_cache(16) "
      f"misses); back to back: {plain_own['figures']:.2f}, {plain_own['builds']:.2f}, "
      f"{plain_own['trace_misses']:.2f}")  # fmt: skip
    p(f"per rerun: {count:.0f} messages, {total_kib:.1f} KiB serialized, of which figure JSON "
      f"{spec_kib:.1f} KiB in {kinds['plotly_chart']} chart(s); {cacheable_kib:.1f} KiB in "
      f"messages marked cacheable (a browser that holds them gets only their hash)")  # fmt: skip
    p("elements per rerun:", ", ".join(f"{k} {v}" for k, v in kinds.most_common()))
    p()
    total_c, total_o = sum(sampled_class.values()), sum(sampled_own.values())
    p(f"{'bucket (script thread)':44s} {'class order':>19s}   {'back to back':>19s}")
    p(f"{'':44s} {'ms/rerun':>9s} {'share':>8s}   {'ms/rerun':>9s} {'share':>8s}")
    for name in ORDER:
        sc, so = sampled_class[name] / total_c, sampled_own[name] / total_o
        p(f"{name:44s} {sc * ms_class:9.1f} {sc:8.1%}   {so * ms_own:9.1f} {so:8.1%}")
    p(f"{'total (script thread)':44s} {ms_class:9.1f} {1:8.1%}   {ms_own:9.1f} {1:8.1%}")
    p(
        f"{'+ websocket: serialize the messages (server)':44s} {serialize_ms:9.1f} "
        f"{serialize_ms / ms_class:8.1%}   (of the script's CPU; not in AppTest's run)"
    )
    p(f"(sampled: {SAMPLES[-2]} and {SAMPLES[-1]} stacks, each weighed by the script thread's CPU "
      f"since the one before; a C call counts for its Python caller)")  # fmt: skip
    p()
    p("inside the largest buckets (both orders): the functions that decided their samples")
    inside_total = sum(sum(c.values()) for c in INSIDE.values())
    per_rerun = (ms_class * n_c + ms_own * n_o) / (n_c + n_o)
    for name, _ in (sampled_class + sampled_own).most_common(7):
        top = INSIDE[name].most_common(4)
        p(
            f"  {name}: "
            + "; ".join(f"{label} {w / inside_total * per_rerun:.1f}" for label, w in top)
            + " (ms/rerun)"
        )
    p()
    parts_c, parts_o = PARTS[-2], PARTS[-1]
    p(
        "the same CPU by where the script was: the call of app.py or of the page's script it was "
        "under (class order; back to back)"
    )
    p(f"{'call':60s} {'ms/rerun':>9s} {'share':>7s} {'ms/rerun':>9s} {'share':>7s}")
    total_pc, total_po = sum(parts_c.values()), sum(parts_o.values())
    for name, weight in parts_c.most_common(22):
        sc, so = weight / total_pc, parts_o[name] / total_po
        p(f"{name[:60]:60s} {sc * ms_class:9.1f} {sc:7.1%} {so * ms_own:9.1f} {so:7.1%}")
    rest = 1 - sum(w for _, w in parts_c.most_common(22)) / total_pc
    p(f"{'(the rest)':60s} {rest * ms_class:9.1f} {rest:7.1%}")
    p()

    profile = cProfile.Profile(time.thread_time)  # CPU: not the waits for the GIL
    WATCH.profile = profile
    for at in class_order:
        rerun(at)
    WATCH.profile = None
    stats = pstats.Stats(profile, stream=io.StringIO())
    reruns = len(class_order)
    rows = []
    for (f, line, name), (_cc, nc, tt, ct, _callers) in stats.stats.items():
        rows.append((tt, ct, nc, f, line, name))
    p(f"top 25 functions by own time (cProfile, class order, {reruns} reruns; ms per rerun; "
      f"cProfile's own overhead inflates call-heavy code)")  # fmt: skip
    p(f"{'own ms':>7s} {'cum ms':>7s} {'calls':>7s}  function")
    own_total = sum(r[0] for r in rows)
    for tt, ct, nc, f, line, name in sorted(rows, reverse=True)[:25]:
        short = f.replace(APP, "").split(SITE)[-1]
        p(
            f"{1000 * tt / reruns:7.2f} {1000 * ct / reruns:7.2f} {nc / reruns:7.0f}  "
            f"{short}:{line}({name})"
        )
    p(f"(all functions' own time under cProfile: {1000 * own_total / reruns:.1f} ms a rerun)")
    p()
    entries = (
        "to_json",
        "populate_hash_if_needed",
        "compute_and_register_element_id",
        "alt_html",
        "t",
        "__call__",
        "sentence_trace",
        "plotly_chart",
        "plot",
        "_enqueue",
        "return_figure_from_figure_or_data",
        "markdown",
        "_run_script",
    )
    by_name = defaultdict(list)
    for _tt, ct, nc, f, line, name in rows:
        if name in entries and ("site-packages/" in f or f.startswith(APP)):
            by_name[name].append((ct, nc, f, line))
    p("entry points, cumulative (cProfile, ms per rerun, calls per rerun):")
    for name in entries:
        for ct, nc, f, line in sorted(by_name.get(name, []), reverse=True)[:2]:
            short = f.replace(APP, "").split(SITE)[-1]
            if ct / reruns >= 0.0005:
                p(f"  {1000 * ct / reruns:7.2f} ms {nc / reruns:6.1f}x  {short}:{line}({name})")
    p()
    return {"ms_class": ms_class, "serialize_ms": serialize_ms}


def what_if(learners, rounds: int, out) -> None:
    """Three savings tried. Each learner's rerun is done once per row, one right after the other
    (the rows' order turning), so that the machine's changing load falls on all rows alike; each
    row has a trace cache of its own, so that none finds the trace another row just computed
    (each row's cache sees the class order, as the server's one cache does)."""
    import functools

    import plotly.io
    import streamlit.runtime.scriptrunner_utils.script_run_context as run_context

    from ui.work import traces

    compute = traces.sentence_trace.__wrapped__
    as_now = traces.sentence_trace.cache_info().maxsize
    original_json = plotly.io.to_json
    kept_json: dict = {}  # id(the shared figure's dict) -> (that dict, its JSON)

    def json_once(fig, *args, **kwargs):
        if isinstance(fig, dict) and _SHARED_DICTS.get(id(fig)) is fig:
            if id(fig) not in kept_json:
                kept_json[id(fig)] = (fig, original_json(fig, *args, **kwargs))
            return kept_json[id(fig)][1]
        return original_json(fig, *args, **kwargs)

    def own_cache(size: int):
        return (traces, "sentence_trace", functools.lru_cache(maxsize=size)(compute))

    changes = {  # the row -> [(module, attribute, its value for the row)]
        "as it is": [own_cache(as_now)],
        f"trace cache lru_cache({as_now}) -> lru_cache(256)": [own_cache(256)],
        "a shared figure's JSON made once, kept with it": [
            own_cache(as_now), (plotly.io, "to_json", json_once)],
        "no message hashes (Streamlit's own work; for scale)": [
            own_cache(as_now), (run_context, "populate_hash_if_needed", lambda msg: None)],
    }  # fmt: skip
    names = list(changes)
    cpu = {name: [] for name in names}
    turn = 0
    for _ in range(rounds):
        for at in learners:
            turn += 1
            for name in names[turn % len(names) :] + names[: turn % len(names)]:
                saved = [(m, a, getattr(m, a)) for m, a, _ in changes[name]]
                for module, attribute, value in changes[name]:
                    setattr(module, attribute, value)
                try:
                    cpu[name].append(rerun(at)["cpu"])
                finally:
                    for module, attribute, value in saved:
                        setattr(module, attribute, value)
    p = lambda *a: print(*a, file=out)  # noqa: E731
    base = np.array(cpu["as it is"])
    p(
        f"what each saving buys, tried: class order, {len(learners)} learners x {rounds} rounds, "
        f"each rerun done once per row, one after the other (script thread CPU)"
    )
    p(f"  {'':54s} {'median':>9s} {'paired difference (median)':>28s}")
    for name in names:
        values = np.array(cpu[name])
        ms, diff = 1000 * np.median(values), 1000 * np.median(values - base)
        p(f"  {name:54s} {ms:6.1f} ms {diff:+13.1f} ms ({diff / (1000 * np.median(base)):+.1%})")
    p()


_SHARED_DICTS: dict = {}  # id -> a SharedFigure's dict, as SharedFigure.to_dict made it


def _remember_shared_dicts() -> None:
    from ui.figures.palette import SharedFigure

    made = SharedFigure.to_dict

    def to_dict(self):
        d = made(self)
        _SHARED_DICTS[id(d)] = d
        return d

    SharedFigure.to_dict = to_dict


def memory_section(old, new_count: int, step, out) -> None:
    p = lambda *a: print(*a, file=out)  # noqa: E731
    from ui.kit.settings import Settings
    from ui.work.traces import TraceKey, sentence_trace

    caches = shared_caches()
    gc.collect()
    tracemalloc.start()
    before_rss, before_py = rss_kib(), tracemalloc.get_traced_memory()[0]
    keys_before = {name: set(c.entries) for name, c in caches.items()}
    trace_entries_before = sentence_trace.cache_info().currsize
    first = len(old)
    fresh, deferred = [], []
    for i in range(first, first + new_count):
        DEFERRED.clear()
        at = learner(i, step)
        rerun(at)
        fresh.append(at)
        deferred.append(list(DEFERRED))  # the last run's download callables
    gc.collect()
    after_rss, after_py = rss_kib(), tracemalloc.get_traced_memory()[0]
    snapshot = tracemalloc.take_snapshot()
    tracemalloc.stop()

    # the parts, per new learner
    state_seen: set = set()
    state_size = sum(deep_size(at._session_state._state, state_seen) for at in fresh) / new_count
    pickled, unpicklable = [], Counter()
    for at in fresh:
        size = 0
        for key in list(at._session_state._state._keys()):
            try:
                size += len(pickle.dumps(at._session_state._state[key]))
            except Exception:  # noqa: BLE001 (a value pickle cannot write, or the test read)
                unpicklable[key] += 1
        pickled.append(size)

    trace_seen: set = set()
    trace_sizes, n_tokens = [], []
    held = min(new_count, sentence_trace.cache_info().maxsize)
    for i in reversed(range(first + new_count - held, first + new_count)):  # newest first: hits
        key = TraceKey.of(Settings(sentence=sentence(i)))
        assert _cached(sentence_trace, key), "the newest sentences' traces are cached"
        data = sentence_trace(key)
        trace_sizes.append(deep_size(data, trace_seen))
        n_tokens.append(data.n)
    trace_each = float(np.mean(trace_sizes))
    n_tokens = float(np.mean(n_tokens))

    download_seen: set = set()
    download_all = sum(deep_size(d, download_seen) for d in deferred) / new_count
    alone_seen = set(trace_seen)  # beyond the trace counted above
    download_beyond = sum(deep_size(d, alone_seen) for d in deferred) / new_count

    import plotly.io

    fig_seen: set = set()
    fig_new, fig_entries, as_dict, as_json = 0, Counter(), 0, 0
    for name, cache in caches.items():
        for key in set(cache.entries) - keys_before[name]:
            value = cache.entries[key]
            fig_new += deep_size(value, fig_seen)
            fig_entries[name.rsplit(".", 1)[-1]] += 1
            for fig in value if isinstance(value, (list, tuple)) else [value]:
                d = getattr(fig, "__dict__", {}).get("_as_dict")
                if d is not None:
                    as_dict += deep_size(d, set())
                    as_json += len(plotly.io.to_json(d, validate=False))

    # a trace's size grows with n^2 (each head's S, S', masked S', A): longer sentences
    longer = {}
    for n in (50, 200):
        key = TraceKey.of(Settings(sentence=" ".join(f"w{j}" for j in range(n))))
        longer[n] = deep_size(sentence_trace.__wrapped__(key), set())
    fig_total = sum(len(c.entries) for c in caches.values())
    fig_cap = {name.rsplit(".", 1)[-1]: c.max_entries for name, c in caches.items()
               if name.rsplit(".", 1)[-1] in fig_entries}  # fmt: skip

    tree_seen: set = set()
    tree_size = sum(deep_size(at._tree, tree_seen) for at in fresh) / new_count
    page_bytes = np.mean([message_facts(rerun(at)["messages"])["total"] for at in fresh[:3]])

    growth_rss = (after_rss - before_rss) / new_count
    growth_py = (after_py - before_py) / 1024 / new_count
    p(
        f"== 2. Memory: {new_count} more learners, each their own sentence ({n_tokens:.0f} tokens;"
        f" after the {first} above), each run once and rerun once, in this process =="
    )
    p(f"trace cache (sentence_trace, lru_cache 16): {trace_entries_before} -> "
      f"{sentence_trace.cache_info().currsize} entries; shared figure caches: {fig_total} "
      f"entries in all; new: " + ", ".join(f"{k} {v} (of at most {fig_cap[k]})"
                                          for k, v in fig_entries.items()))  # fmt: skip
    p()
    rows = [
        ("session state (deep size of its SessionState)", state_size / 1024),
        (
            f"  (its {len(at._session_state._state._keys())} values pickled: "
            f"{np.mean(pickled) / 1024:.1f} KiB; not picklable: "
            f"{', '.join(unpicklable) or 'none'})",
            None,
        ),
        ("the sentence's trace (SentenceTrace; lru_cache and downloads)", trace_each / 1024),
        ("the page's 3 download callables, beyond that trace", download_beyond / 1024),
        (
            f"  (with the trace they pin: {download_all / 1024:.1f} KiB, kept for as long as the "
            f"session shows the page, after the lru_cache let the trace go; a trace of 50 tokens "
            f"is {longer[50] / 1024:.0f} KiB, of 200 {longer[200] / 1024:.0f} KiB)",
            None,
        ),
        ("figures cached for the sentence (shared caches)", fig_new / new_count / 1024),
        (
            f"  (of it the dict Streamlit is given, kept with each figure: "
            f"{as_dict / new_count / 1024:.1f} KiB; as JSON it is {as_json / new_count / 1024:.1f} "
            f"KiB)",
            None,
        ),
        ("Streamlit's forward-message cache", 0.0),
        (
            f"  (none on the server in Streamlit 1.67: the browser keeps it; a page's messages, "
            f"{page_bytes / 1024:.0f} KiB serialized, are held only until sent)",
            None,
        ),
    ]
    p(f"{'part':62s} {'KiB per learner':>15s}")
    found = 0.0
    for name, kib in rows:
        if kib is None:
            p(name)
            continue
        found += kib
        p(f"{name:62s} {kib:15.1f}")
    p(f"{'sum of the parts':62s} {found:15.1f}")
    p(f"{'Python allocations / learner (tracemalloc)':62s} {growth_py:15.1f}")
    p(f"{'resident growth / learner (VmRSS)':62s} {growth_rss:15.1f}")
    p(
        f"{'(AppTest only: its element tree of the page; not a server)':62s} "
        f"{tree_size / 1024:15.1f}"
    )
    p()
    p("tracemalloc: where the new learners' Python memory was allocated (top 12 files)")
    for stat in snapshot.statistics("filename")[:12]:
        name = stat.traceback[0].filename.replace(APP, "").split(SITE)[-1]
        p(
            f"  {stat.size / 1024 / new_count:8.1f} KiB/learner  {stat.count / new_count:7.0f} "
            f"blocks/learner  {name}"
        )
    p()


def crowd_section(count: int, rounds: int, step, out) -> None:
    """A class of ``count`` learners with sentences of their own, each rerunning in turn: what the
    shared caches hold against what the class asks of them, and what a rerun then costs. Beside
    each, side by side, a rerun of one more learner who reruns after every one of theirs (so
    that their own trace and figures stay among the newest, always cached)."""
    from ui.work.traces import sentence_trace

    crowd = [learner(3000 + i, step) for i in range(count)]
    control = learner(2999, step)
    caches = shared_caches()  # (after a run: the app's modules imported)
    cpu, cpu_control, builds, misses, figures = [], [], Counter(), 0, 0
    for round_ in range(rounds):
        for at in crowd:
            before = {name: c.builds for name, c in caches.items()}
            trace_misses, made = sentence_trace.cache_info().misses, WATCH.figures
            cpu.append(rerun(at)["cpu"])
            if round_ == rounds - 1:  # (the first round: the cache's state before the class)
                for name, c in caches.items():
                    builds[name] += c.builds - before[name]
                misses += sentence_trace.cache_info().misses - trace_misses
                figures += WATCH.figures - made
            cpu_control.append(rerun(control)["cpu"])
    p = lambda *a: print(*a, file=out)  # noqa: E731
    size = " (the issue's size)" if count == 120 else ""
    p(f"== 3. A class of {count}{size}, each their own sentence, rerunning in turn ==")
    ms, ms_control = 1000 * np.median(cpu[count:]), 1000 * np.median(cpu_control[count:])
    p(
        f"per rerun (the last of {rounds} rounds): {ms:.1f} ms script CPU (median), against "
        f"{ms_control:.1f} ms for a learner whose trace and figures stay cached (side by side); "
        f"{figures / count:.2f} Plotly figures constructed, {misses / count:.2f} trace "
        f"computations"
    )
    for name, cache in caches.items():
        if builds[name] or cache.entries:
            p(
                f"  shared cache {name.rsplit('.', 1)[-1]}: {len(cache.entries)} of at most "
                f"{cache.max_entries} entries; {builds[name] / count:.2f} builds per rerun"
            )
    info = sentence_trace.cache_info()
    p(f"  trace cache sentence_trace: {info.currsize} of at most {info.maxsize} sentences")
    p()


def server_section(count: int, step, out) -> None:
    """A real server (streamlit run app.py, loopback): its memory as ``count`` learners with
    sentences of their own open the walkthrough at once, then all rerun at once (its CPU per
    rerun), then ``count`` learners with one sentence between them, then after they all leave."""
    import asyncio
    from contextlib import AsyncExitStack
    from urllib.parse import quote

    from bench.classroom import cpu_seconds
    from tests.support.servers import serving
    from tests.support.session import connect

    def status(pid: int) -> dict:
        fields = {}
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM", "Threads"):
                fields[name] = int(value.split()[0])
        return fields

    async def scenario(port: int, pid: int) -> tuple[list, float]:
        base = f"http://127.0.0.1:{port}"
        readings = []
        async with AsyncExitStack() as stack:

            async def arrive(text: str):
                query = "sentence=" + quote(text) + (f"&step={step}" if step else "")
                return await connect(base, "", query, None, stack)

            first = await arrive(sentence(999))
            for _ in range(3):
                await first.run()
            await asyncio.sleep(1)
            readings.append(("one learner, warm", status(pid)))
            own = await asyncio.gather(*(arrive(sentence(1000 + i)) for i in range(count)))
            await asyncio.sleep(1)
            readings.append((f"+{count} learners, each their own sentence, arrived", status(pid)))
            cpu = cpu_seconds(pid)
            await asyncio.gather(*(one.run() for one in own))
            cpu = (cpu_seconds(pid) - cpu) / count
            await asyncio.sleep(1)
            readings.append(("  and all reran at once", status(pid)))
            same = await asyncio.gather(*(arrive(sentence(999)) for _ in range(count)))
            await asyncio.gather(*(one.run() for one in same))
            await asyncio.sleep(1)
            readings.append((f"+{count} learners, the first one's sentence, arrived + reran",
                             status(pid)))  # fmt: skip
        await asyncio.sleep(3)
        readings.append(("all gone (sessions closed)", status(pid)))
        return readings, cpu

    with serving("--server.headless=true") as (port, server):
        readings, cpu = asyncio.run(scenario(port, server.pid))
    p = lambda *a: print(*a, file=out)  # noqa: E731
    p(f"== 4. A real server (streamlit run app.py, loopback): {count} learners at once, twice ==")
    p(
        f"server CPU per rerun while the {count} with their own sentences reran at once: "
        f"{1000 * cpu:.1f} ms (all its threads: the script, the websocket, the event loop)"
    )
    p(f"{'':58s} {'VmRSS MiB':>9s} {'KiB/learner':>11s} {'VmHWM MiB':>9s} {'threads':>7s}")
    last = None
    for name, fields in readings:
        rss = fields["VmRSS"]
        per = f"{(rss - last) / count:11.0f}" if last is not None and name[0] in "+ " else " " * 11
        p(
            f"{name:58s} {rss / 1024:9.1f} {per} {fields['VmHWM'] / 1024:9.1f} "
            f"{fields['Threads']:7d}"
        )
        last = rss
    p()


def _cached(lru, key) -> bool:
    """Whether an lru_cache holds ``key`` (a call would hit): read off its counters."""
    hits = lru.cache_info().hits
    misses = lru.cache_info().misses
    lru(key)
    info = lru.cache_info()
    assert info.hits + info.misses == hits + misses + 1
    return info.hits == hits + 1


DEFERRED: list = []  # the download callables Streamlit was handed in the last runs
_add_deferred = MediaFileManager.add_deferred


def _kept_deferred(self, callable_, *args, **kwargs):
    DEFERRED.append(callable_)
    return _add_deferred(self, callable_, *args, **kwargs)


MediaFileManager.add_deferred = _kept_deferred


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--learners", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--new", type=int, default=20)
    parser.add_argument("--step", default=None, help="a walkthrough step (default: the first)")
    parser.add_argument("--crowd", type=int, default=120, help="a class this big (0: skip)")
    parser.add_argument("--server", type=int, default=60,
                        help="learners per group on a real server (0: skip)")  # fmt: skip
    parser.add_argument("--save", default=None, help="also write the output to this file")
    args = parser.parse_args()

    out = io.StringIO()

    class Tee:
        def write(self, text):
            sys.stdout.write(text)
            out.write(text)

        def flush(self):
            sys.stdout.flush()

    tee = Tee()
    print(
        f"walkthrough rerun profile: step {args.step or 'tokens (the default)'}, "
        f"{time.strftime('%Y-%m-%d')}, python {sys.version.split()[0]}",
        file=tee,
    )
    learners, cold, built = [], [], []
    for i in range(args.learners):
        start, figures = len(WATCH.cpu), WATCH.figures
        learners.append(learner(i, args.step))
        cold.append(sum(WATCH.cpu[start:]))
        built.append(WATCH.figures - figures)
    print(
        f"first runs (a new sentence: its trace and figures built; the first learner's also "
        f"imports the app): median {1000 * np.median(cold[1:]):.1f} ms script CPU, "
        f"{np.mean(built[1:]):.1f} Plotly figures constructed",
        file=tee,
    )
    memory = io.StringIO()  # measured first: the profilers' garbage would hide the growth
    memory_section(learners, args.new, args.step, memory)
    cpu_section(learners, args.rounds, tee)
    _remember_shared_dicts()
    what_if(learners, args.rounds, tee)
    tee.write(memory.getvalue())
    if args.crowd:
        crowd_section(args.crowd, 2, args.step, tee)
    if args.server:
        server_section(args.server, args.step, tee)
    if args.save:
        Path(args.save).write_text(out.getvalue(), encoding="utf-8")


if __name__ == "__main__":
    main()
