"""``Match.boards`` holds each seat's score on each board (``engine.board_scores``) instead of its
place, so that a board can be shared by its margin (``Game.board_margin_scale``); every finished
duplicate match's boards are recomputed from its stored replay. Ladders rated before keep their
history until ``manage.py recompute_ratings`` rates them again with the margins."""

import json
import zlib
from typing import Any

from django.db import migrations, models

import engine

BATCH = 500


def fill_board_scores(apps: Any, schema_editor: Any) -> None:
    """The boards of every finished duplicate match from its replay, a batch at a time."""
    Match = apps.get_model("matches", "Match")
    MatchReplay = apps.get_model("matches", "MatchReplay")
    duplicate = MatchReplay.objects.filter(match__duplicate=True, match__status="finished")
    last = 0
    while True:
        batch = list(
            duplicate.filter(match_id__gt=last).order_by("match_id")
            .values_list("match_id", "data")[:BATCH]
        )  # fmt: skip
        if not batch:
            return
        updated = [
            Match(pk=match_id,
                  boards=engine.boards_of_replay(json.loads(zlib.decompress(bytes(data)))) or None)
            for match_id, data in batch
        ]  # fmt: skip
        Match.objects.bulk_update(updated, ["boards"])  # a set of no board: one result
        last = batch[-1][0]


class Migration(migrations.Migration):
    dependencies = [("matches", "0004_match_boards")]

    operations = [
        migrations.AlterField(
            model_name="match",
            name="boards",
            field=models.JSONField(
                blank=True,
                null=True,
                help_text="a finished duplicate match's score per seat on each board "
                "(engine.board_scores)",
            ),
        ),
        migrations.RunPython(fill_board_scores, migrations.RunPython.noop, elidable=True),
    ]
