"""KRB201-KRB203: migration advice towards KIP-1306 listeners; each has a codemod."""

from __future__ import annotations

from collections.abc import Iterator

from rebalance_lint.analysis.clients import CLIENT_LABEL, GUARD_MODULE, Client
from rebalance_lint.analysis.model import Analysis
from rebalance_lint.rules.registry import Hit, per_file


def _module(client: Client | None) -> str:
    return GUARD_MODULE[client] if client else "<client>"


@per_file
def injected_consumer(analysis: Analysis) -> Iterator[Hit]:
    for listener, arg in analysis.injected:
        yield Hit(arg, "KRB201", {"cls": listener.node.name, "param": arg.arg})


@per_file
def one_argument_listener(analysis: Analysis) -> Iterator[Hit]:
    for listener in analysis.listeners:
        if listener.client_base and listener.client is not None:
            fields = {
                "cls": listener.node.name,
                "client": CLIENT_LABEL[listener.client],
                "module": _module(listener.client),
            }
            yield Hit(listener.node, "KRB202", fields)


@per_file
def listener_in_subscribe(analysis: Analysis) -> Iterator[Hit]:
    for reg in analysis.registrations:
        if reg.guard:
            continue
        if "listener" in reg.roles:
            what = "listener"
        else:
            what = "rebalance callbacks (" + ", ".join(f"{r}=" for r in reg.roles) + ")"
        yield Hit(reg.anchor, "KRB203", {"what": what, "fix": _registration_fix(reg.client)})


def _registration_fix(client: Client | None) -> str:
    if client == "confluent":
        return (
            "pass a RebalanceListener to rebalance_guard.confluent_kafka.subscribe(consumer, "
            "topics, listener) or set_rebalance_listener on its Consumer"
        )
    return (
        f"register a RebalanceListener with rebalance_guard.{_module(client)}"
        ".set_rebalance_listener(consumer, listener)"
    )
