"""docs/protocol.md's example exchanges are what the code really sends (regenerated here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena_cli import cli
from arena_cli.transcript import doc_examples, transcript

PROTOCOL_DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
MARKER = "<!-- generated: arena_cli/transcript.py -->\n\n"


def test_protocol_doc_examples_are_current() -> None:
    text = PROTOCOL_DOC.read_text(encoding="utf-8")
    documented = text.split(MARKER, 1)[1]
    assert documented == doc_examples(), (
        "docs/protocol.md is stale: regenerate its examples with "
        "arena_cli.transcript.doc_examples()"
    )


def test_a_transcript_is_a_valid_exchange_for_its_seat() -> None:
    lines = transcript("belote", seat=2, seed=4)
    messages = [(line[0], json.loads(line[2:])) for line in lines]
    assert messages[0][1]["type"] == "hello" and messages[0][1]["seat"] == 2
    assert "match_seed" not in lines[0] and "seed" not in messages[0][1]
    assert messages[1] == ("<", {"type": "ready"})
    assert messages[-1][1]["type"] == "over"
    for (to_bot, request), (from_bot, reply) in zip(
        messages[2:-1:2], messages[3:-1:2], strict=True
    ):
        assert (to_bot, from_bot) == (">", "<")
        assert reply["id"] == request["id"]
        assert reply["action"] in request["legal"] == request["observation"]["legal"]
        assert request["observation"]["seat"] == 2


def test_arena_transcript_prints_a_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["transcript", "bauer", "--seat", "3", "--decisions", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert json.loads(out[0][2:])["seat"] == 3
    assert len(out) == 2 + 2 * 2 + 1
