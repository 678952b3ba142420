"""The README's harness examples run, for each client, and commit what they should.

The code blocks are taken from README.md's "Testing listeners without a broker" section
itself, so the documentation cannot drift from the harness.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

README = Path(__file__).resolve().parent.parent.parent / "README.md"


def _blocks() -> dict[str, str]:
    text = README.read_text(encoding="utf-8")
    section = text.split("## Testing listeners without a broker", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    by_client = {}
    for block in blocks:
        client = re.search(r"from rebalance_guard\.testing\.(\w+) import", block)
        assert client, block
        by_client[client[1]] = block
    return by_client


BLOCKS = _blocks()


def test_the_readme_has_an_example_per_client() -> None:
    assert set(BLOCKS) == {"kafka_python", "aiokafka", "confluent_kafka", "confluent_kafka_aio"}


def _namespace(client: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": f"readme_{client}"}
    exec(compile(BLOCKS[client], f"README.md ({client})", "exec"), namespace)
    return namespace


@pytest.mark.parametrize("client", sorted(BLOCKS))
def test_the_readme_example_test_passes(client: str) -> None:
    namespace = _namespace(client)
    tests = [v for k, v in namespace.items() if k.startswith("test_")]
    assert len(tests) == 1
    tests[0]()


def test_kafka_python_readme_listener_commits_the_revoked_positions() -> None:
    namespace = _namespace("kafka_python")
    tp = namespace["TopicPartition"]
    harness = namespace["ListenerHarness"](namespace["CommitOnRevoke"](), protocol="eager")
    harness.assign([tp("orders", 0), tp("orders", 1)])
    harness.set_positions({tp("orders", 0): 10, tp("orders", 1): 20})
    harness.rebalance([tp("orders", 1)])  # eager: both revoked, then orders-1 assigned again
    assert harness.commits == [{tp("orders", 0): 10, tp("orders", 1): 20}]
    assert harness.committed == {tp("orders", 0): 10, tp("orders", 1): 20}
    assert harness.assignment == {tp("orders", 1)}


def test_aiokafka_readme_listener_commits_the_revoked_positions() -> None:
    namespace = _namespace("aiokafka")
    tp = namespace["TopicPartition"]
    harness = namespace["ListenerHarness"](namespace["CommitOnRevoke"](), protocol="cooperative")

    async def scenario() -> None:
        await harness.assign([tp("orders", 0), tp("orders", 1)])
        harness.set_positions({tp("orders", 0): 10, tp("orders", 1): 20})
        await harness.rebalance([tp("orders", 1)])

    asyncio.run(scenario())
    assert harness.commits == [{tp("orders", 0): 10, tp("orders", 1): 20}]


def test_confluent_readme_listener_commits_the_revoked_positions() -> None:
    namespace = _namespace("confluent_kafka")
    tp = namespace["TopicPartition"]
    harness = namespace["ListenerHarness"](namespace["CommitOnRevoke"](), protocol="cooperative")
    harness.assign([tp("orders", 0), tp("orders", 1)])
    harness.set_positions({("orders", 0): 10, ("orders", 1): 20})
    harness.rebalance([tp("orders", 1)])
    assert harness.commits == [{("orders", 0): 10, ("orders", 1): 20}]
    assert harness.assignment == {("orders", 1)}
