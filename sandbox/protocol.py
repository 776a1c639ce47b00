"""The bot protocol, version 1: JSON Lines over stdin/stdout, UTF-8 (see docs/protocol.md).

Engine -> bot::

    {"type": "hello", "version": 1, "game": "belote", "seat": 2, "params": {...}, "limits": {...},
     "clock": "cpu_wait_excluded"}
    {"type": "act", "id": 7, "observation": {...}, "legal": ["7h", "Ah"], "time_left_ms": 59870}
    {"type": "over", "result": {"scores": [...], "terminal": true, "seat": 2}}

Bot -> engine::

    {"type": "ready"}
    {"id": 7, "action": "Ah"}

The match seed is never sent: deals are derived from it, so a bot knowing it would see all hands.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

PROTOCOL_VERSION = 1
_ENCODE_OPTIONS = orjson.OPT_APPEND_NEWLINE | orjson.OPT_NON_STR_KEYS


class ProtocolViolation(Exception):
    """The bot's line breaks the protocol; the message says how, for the bot's author."""


def encode(message: dict[str, Any]) -> bytes:
    """One protocol line (compact JSON, UTF-8, newline-terminated): the bytes
    ``json.dumps(message, separators=(",", ":"), ensure_ascii=False)`` gives for what the engine
    sends, made by orjson, which takes 2 µs where ``json`` takes 30 for a Belote observation,
    the largest share of the referee's CPU per decision. Raises ``TypeError`` for what JSON
    cannot hold (as ``json`` does; integers beyond 64 bits included)."""
    return orjson.dumps(message, option=_ENCODE_OPTIONS)


def hello(
    game: str,
    seat: int,
    params: dict[str, Any],
    limits: dict[str, int],
    *,
    clock: str = "wall",
) -> dict[str, Any]:
    """``clock`` tells the bot how its time is counted: ``wall`` (send to reply), or
    ``cpu_wait_excluded`` (the same, less the time the host kept it waiting for a CPU;
    :mod:`sandbox.clock`)."""
    return {
        "type": "hello",
        "version": PROTOCOL_VERSION,
        "game": game,
        "seat": seat,
        "params": params,
        "limits": limits,
        "clock": clock,
    }


def act(decision: int, observation: dict[str, Any], legal: list[str], time_left_ms: int) -> bytes:
    return encode(
        {
            "type": "act",
            "id": decision,
            "observation": observation,
            "legal": legal,
            "time_left_ms": time_left_ms,
        }
    )


def over(result: dict[str, Any]) -> dict[str, Any]:
    return {"type": "over", "result": result}


def _decode(line: bytes) -> dict[str, Any]:
    try:
        message = json.loads(line.decode("utf-8"))  # bytes would also accept UTF-16/32
    except UnicodeDecodeError:
        raise ProtocolViolation("the line is not UTF-8") from None
    except json.JSONDecodeError as err:
        raise ProtocolViolation(
            f"not JSON ({err.msg} at column {err.colno}): {_show(line)}"
        ) from None
    except RecursionError:  # [[[[... : the parser recurses per level
        raise ProtocolViolation(f"JSON nested too deeply: {_show(line)}") from None
    except ValueError as err:  # e.g. an integer of more than 4300 digits
        raise ProtocolViolation(f"not JSON ({str(err)[:100]}): {_show(line)}") from None
    if not isinstance(message, dict):
        raise ProtocolViolation(f"expected a JSON object, got {_show(line)}")
    return message


def parse_ready(line: bytes) -> dict[str, Any]:
    message = _decode(line)
    if message.get("type") != "ready":
        raise ProtocolViolation(f'expected {{"type": "ready"}} after hello, got {_show(line)}')
    return message


def parse_reply(line: bytes, decision: int) -> str:
    """The action of a reply to act ``decision``."""
    message = _decode(line)
    if message.get("id") != decision or isinstance(message.get("id"), bool):
        raise ProtocolViolation(f"expected a reply with id {decision}, got {_show(line)}")
    action = message.get("action")
    if not isinstance(action, str):
        raise ProtocolViolation(f'the reply needs "action" as a string, got {_show(line)}')
    return action


def printable(text: str, limit: int = 200) -> str:
    """``text`` cut to ``limit`` characters, with control characters, lone surrogates and other
    unprintables escaped (``\\x00``, ``\\ud800``): safe to store, encode and show."""
    text = text[:limit]
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _show(line: bytes, limit: int = 120) -> str:
    text = line.decode("utf-8", errors="replace")
    return repr(text if len(text) <= limit else text[:limit] + "...")
