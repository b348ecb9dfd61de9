"""120 sessions through deploy/local.sh's three replicas behind nginx, loopback only.

Prints the first renders, the p95 of all sessions rerunning at once, and each replica's share of
the sessions. Run: python bench/deploy.py [sessions] [replicas]   (stops everything it started)

``python bench/deploy.py lost``: a replica lost mid-class (tests/support/replica_loss.py): 30
students answering on three replicas, one SIGKILLed; how long until its students are back, and
the answer counts before and after (targets: within 10 s, none lost or doubled).
"""

import asyncio
import collections
import re
import sys
import tempfile
from contextlib import AsyncExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.classroom import PAGES, everyone_reruns, open_learners, report_renders  # noqa: E402
from tests.support.replica_loss import lose_a_replica  # noqa: E402
from tests.support.servers import deployed  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


async def classroom(base: str, sessions: int) -> dict:
    async with AsyncExitStack() as stack:
        pages = [PAGES[i % len(PAGES)] if i % 2 else "" for i in range(sessions)]  # half on /
        learners, first = await open_learners(base, pages, "lang=en", stack)
        return {
            "first": first,
            "rerun": await everyone_reruns(learners),
            "replicas": collections.Counter(learner.replica for learner in learners),
        }


def lost() -> None:
    password = "bench"
    with tempfile.TemporaryDirectory() as data:
        env = {"REDIS_PASSWORD": password, "REDIS_DATA": data}
        with deployed(3, env) as (base, replicas, redis_port):
            loss = asyncio.run(
                asyncio.wait_for(lose_a_replica(base, replicas, redis_port, password), 300)
            )
    print("30 students over 3 replicas answer the teacher's question; one replica SIGKILLed")
    print(
        f"its {len(loss.back)} students back through nginx in {loss.reconnect_s:.2f} s"
        f" -> within 10 s {'met' if loss.reconnect_s < 10 else 'MISSED'}"
    )
    print(
        f"answers per choice before {loss.before}, after {loss.after}"
        f" -> none lost or doubled {'met' if loss.before == loss.after else 'MISSED'}"
    )


def main():
    if sys.argv[1:] == ["lost"]:
        lost()
        return
    sessions = int(sys.argv[1]) if len(sys.argv) > 1 else 120
    replicas = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    with deployed(replicas) as (base, _pids, _redis_port):
        results = asyncio.run(asyncio.wait_for(classroom(base, sessions), 600))
    print(f"{sessions} sessions through nginx to {replicas} replicas (loopback), every page")
    report_renders(results["first"], results["rerun"])
    for replica, count in sorted(results["replicas"].items()):
        name = re.sub(r"^127\.0\.0\.1:", "port ", replica)
        print(f"replica {name}: {count} sessions ({count / sessions:.0%})")


if __name__ == "__main__":
    main()
