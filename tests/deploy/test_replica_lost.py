"""A replica lost mid-class: three replicas behind nginx and Redis (deploy/local.sh), a room of 30
students answering the teacher's question, and one replica killed with SIGKILL
(tests/support/replica_loss.py). Its students reconnect through nginx to another replica within
10 s, still in their room, on the teacher's view, with the answer they sent; the teacher's key
still drives the room; the counts stay exact, none lost and none doubled."""

import asyncio

from tests.support.replica_loss import lose_a_replica
from tests.support.servers import deployed

PASSWORD = "a class's own password"
RECONNECT_S = 10


def test_a_room_of_30_loses_a_replica_mid_question_and_nothing_else(tmp_path):
    env = {"REDIS_DATA": str(tmp_path / "redis"), "REDIS_PASSWORD": PASSWORD}
    with deployed(3, env) as (base, replicas, redis_port):
        loss = asyncio.run(
            asyncio.wait_for(lose_a_replica(base, replicas, redis_port, PASSWORD), 300)
        )
    assert loss.before == [15, 15, 0] and loss.after == loss.before  # none lost, none doubled
    assert len(loss.back) == 10 and loss.reconnect_s < RECONNECT_S
    for student, told in zip(loss.back, loss.revealed, strict=True):
        assert student.replica.split(", ")[-1] != loss.killed  # nginx moved them
        texts = " ".join(student.texts)
        assert f"课堂 {loss.code}" in texts and "3 个 token" in texts  # their room, its view
        assert "已提交：" in texts  # the answer they sent, not the choices again
        assert not any(key.startswith("choice_") for key in student.widgets)
        assert "答对了：" in told or "你选的是" in told  # the teacher's key revealed it
