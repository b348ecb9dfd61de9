"""The README's first command, typed as written, runs the production settings of
.streamlit/config.toml: no file watcher, no run on save, the minimal toolbar (no menu, no running
indicator), no usage stats.

Issue 54: every bench and server test switched the file watcher off by a flag while the README's
command did not, and a class's first renders took 19-21 s on what users run against 3.8 s on what
was measured. Here the command is read from the README and run by bash as it stands; only its
port and address come from the environment (a free loopback port instead of 8501)."""

import asyncio
import os
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
from streamlit.proto.NewSession_pb2 import Config

from tests.support import ROOT
from tests.support.servers import free_port
from tests.support.session import connect


def readme_start_command() -> str:
    """The README's first command: the line of its first code block that starts the app."""
    block = (ROOT / "README.md").read_text().split("```bash\n", 1)[1].split("```", 1)[0]
    return block.splitlines()[0]


def inotify_watches(pid: int) -> int:
    """How many inotify instances the process holds: how watchdog, Streamlit's file watcher on
    Linux, watches the app's files."""
    found = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            found += os.readlink(fd) == "anon_inode:inotify"
        except OSError:  # closed meanwhile
            continue
    return found


def server_pid(shell_pid: int) -> int:
    """The streamlit process that the shell running the command started (its descendant)."""
    for _ in range(100):
        for folder in Path("/proc").glob("[0-9]*"):
            try:
                command = (folder / "cmdline").read_bytes().split(b"\0")
                found = b"run" in command and any(c.endswith(b"streamlit") for c in command)
                if found and _descends(int(folder.name), shell_pid):
                    return int(folder.name)
            except OSError:  # ended meanwhile
                continue
        time.sleep(0.2)
    raise AssertionError("the README's command started no streamlit process")


def _descends(pid: int, ancestor: int) -> bool:
    while pid > 1:
        if pid == ancestor:
            return True
        pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    return False


def event_loop(pid: int) -> str:
    """ "uvloop" where the server's process has uvloop's compiled loop mapped (Streamlit runs its
    event loop on uvloop when it is installed), else "asyncio"."""
    maps = Path(f"/proc/{pid}/maps").read_text()
    return "uvloop" if "/uvloop/loop." in maps else "asyncio"


def start(command: str, port: int) -> subprocess.Popen:
    return subprocess.Popen(
        ["bash", "-c", command],
        cwd=ROOT,
        # the README's port (8501) may be taken on a test machine: a free one, on loopback only
        env={**os.environ, "STREAMLIT_SERVER_PORT": str(port),
             "STREAMLIT_SERVER_ADDRESS": "127.0.0.1"},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip


def opened(command: str):
    """(the server's pid, the settings its session was opened with, its inotify instances
    once a session has run a page) for ``command`` run by bash in the repository."""
    port = free_port()
    shell = start(command, port)
    try:
        deadline = time.monotonic() + 600  # the command's pip installs first (all satisfied)
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2)
                break
            except OSError:
                assert shell.poll() is None, f"the command exited: {command}"
                assert time.monotonic() < deadline, "the server did not answer"
                time.sleep(0.3)
        pid = server_pid(shell.pid)

        async def one_session():
            learner = await connect(f"http://127.0.0.1:{port}", "", "lang=en")
            await learner.ws.close()
            return learner.config

        config = asyncio.run(one_session())
        return pid, config, inotify_watches(pid), event_loop(pid)
    finally:
        os.killpg(shell.pid, signal.SIGTERM)
        shell.wait(timeout=30)


def test_the_readme_starts_the_app_with_no_flag():
    command = readme_start_command()
    assert command.endswith("streamlit run serve.py"), command
    assert "--" not in command.rsplit("streamlit run", 1)[1]


@pytest.mark.parametrize("script", ["serve.py", "app.py"])
def test_the_readme_command_as_written_runs_production_settings(script):
    command = readme_start_command().replace("run serve.py", f"run {script}")
    _pid, config, watches, loop = opened(command)
    assert watches == 0, "Streamlit's file watcher is on"
    # every message a rerun sends wakes the event loop from the script's thread: on asyncio's
    # own loop a page's rerun cost the server 30 ms of CPU, on uvloop 20 (issue 67)
    assert loop == "uvloop"
    assert config.allow_run_on_save is False
    assert config.gather_usage_stats is False
    assert config.toolbar_mode == Config.ToolbarMode.MINIMAL  # no English menu, no "Stop"


def test_the_watcher_check_sees_a_watcher_when_one_runs():
    """The check above can fail: the same command with the watcher Streamlit starts by default
    holds an inotify instance once a session has run."""
    watcher = " --server.fileWatcherType=auto"  # why: the control, proving the check can see one
    command = readme_start_command() + watcher
    _pid, _config, watches, _loop = opened(command)
    assert watches >= 1


@pytest.mark.parametrize("entry", ["import preload", "import serve"])
def test_the_process_settings_come_before_numpy_on_both_entry_points(entry):
    """serve.py and preload.py (app.py's first import) set the process's settings (ui/kit/
    process.py) before NumPy loads, where OpenBLAS reads its spin-wait: checked in a fresh
    interpreter, as a server's first session finds it."""
    probe = (
        "import sys, os, gc\n"
        "import builtins\n"
        "real = builtins.__import__\n"
        "seen = {}\n"
        "def watch(name, *a, **k):\n"
        "    if name == 'numpy' and 'numpy' not in sys.modules and 'first' not in seen:\n"
        "        seen['first'] = os.environ.get('OPENBLAS_THREAD_TIMEOUT')\n"
        "    return real(name, *a, **k)\n"
        "builtins.__import__ = watch\n"
        f"{entry}\n"
        "print(seen.get('first'), sys.getswitchinterval(), gc.get_threshold()[0])\n"
    )
    out = subprocess.run(
        [os.sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr[-2000:]
    spin, switch, young = out.stdout.split()[-3:]
    assert (spin, round(float(switch), 6), young) == ("18", 0.05, "20000")
