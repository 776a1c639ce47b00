"""``Match.boards``: the place per seat on each board of a duplicate match (``engine.boards``),
filled for the duplicate matches finished before it from their stored replays."""

import json
import zlib
from typing import Any

from django.db import migrations, models

import engine

BATCH = 500


def fill_boards(apps: Any, schema_editor: Any) -> None:
    """Boards of every finished duplicate match from its replay, a batch at a time (a replay is
    decompressed once, here, so that ratings never need to)."""
    Match = apps.get_model("matches", "Match")
    MatchReplay = apps.get_model("matches", "MatchReplay")
    pending = MatchReplay.objects.filter(
        match__duplicate=True, match__status="finished", match__boards__isnull=True
    ).order_by("match_id")
    last = 0
    while True:
        batch = list(pending.filter(match_id__gt=last).values_list("match_id", "data")[:BATCH])
        if not batch:
            return
        boards = {
            match_id: engine.boards_of_replay(json.loads(zlib.decompress(bytes(data))))
            for match_id, data in batch
        }
        updated = [Match(pk=pk, boards=b) for pk, b in boards.items() if b]  # a set of no board
        Match.objects.bulk_update(updated, ["boards"])  # stays without: scored as one result
        last = batch[-1][0]


class Migration(migrations.Migration):
    dependencies = [("matches", "0003_challenge")]

    operations = [
        migrations.AddField(
            model_name="match",
            name="boards",
            field=models.JSONField(
                blank=True, null=True,
                help_text="a finished duplicate match's place per seat on each board (engine.boards)",
            ),
        ),
        migrations.RunPython(fill_boards, migrations.RunPython.noop, elidable=True),
    ]
