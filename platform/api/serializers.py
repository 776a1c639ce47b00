"""Input serializers parse requests; output serializers shape responses. Neither holds logic:
views hand parsed input to a service or selector."""

from __future__ import annotations

import dataclasses
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from bots.models import Bot, BotVersion
from matches.luck import bot_luck
from matches.models import Match, MatchSeat, MatchStatus
from matches.selectors import BoardResult, match_board_result

# -- auth --------------------------------------------------------------------------------------


class TokenRequestSerializer(serializers.Serializer[Any]):
    username = serializers.CharField()
    password = serializers.CharField(style={"input_type": "password"}, trim_whitespace=False)
    name = serializers.CharField(max_length=64, default="api", help_text="to tell tokens apart")


class TokenSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    created = serializers.DateTimeField(source="token.created")
    expiry = serializers.DateTimeField(source="token.expiry", allow_null=True)


class TokenCreatedSerializer(TokenSerializer):
    token = serializers.CharField(help_text="the secret: shown only now")


# -- games -------------------------------------------------------------------------------------


class SeatsSerializer(serializers.Serializer[Any]):
    min = serializers.IntegerField()
    max = serializers.IntegerField()
    default = serializers.IntegerField()


class ParamSerializer(serializers.Serializer[Any]):
    name = serializers.CharField()
    type = serializers.ChoiceField(choices=["boolean", "integer", "string"])
    default = serializers.JSONField()
    choices = serializers.ListField(child=serializers.JSONField(), allow_null=True)
    minimum = serializers.IntegerField(allow_null=True)
    maximum = serializers.IntegerField(allow_null=True)
    meaning = serializers.CharField()


class GameSerializer(serializers.Serializer[Any]):
    name = serializers.CharField()
    title = serializers.CharField()
    seats = SeatsSerializer()
    params = ParamSerializer(many=True)
    rules_url = serializers.URLField(help_text="the rules for bot authors")


class LibrarySerializer(serializers.Serializer[Any]):
    name = serializers.CharField()
    version = serializers.CharField()


class RuntimeSerializer(serializers.Serializer[Any]):
    name = serializers.CharField(help_text="bot.toml's runtime")
    description = serializers.CharField()
    available = serializers.BooleanField(help_text="whether this server can run it")
    version = serializers.CharField(help_text="interpreter or compiler, with its exact version")
    libraries = LibrarySerializer(many=True, help_text="what bots may use beyond the language")
    notes = serializers.CharField(allow_blank=True)


# -- bots --------------------------------------------------------------------------------------


class BotCreateSerializer(serializers.Serializer[Any]):
    name = serializers.CharField(max_length=64)
    game = serializers.CharField(max_length=32)
    file = serializers.FileField(help_text="a .py/.js/executable file or a .zip with bot.toml")


class VersionCreateSerializer(serializers.Serializer[Any]):
    file = serializers.FileField()


class VersionBriefSerializer(serializers.ModelSerializer[BotVersion]):
    class Meta:
        model = BotVersion
        fields = ["id", "number", "status"]


class VersionSerializer(serializers.ModelSerializer[BotVersion]):
    class Meta:
        model = BotVersion
        fields = ["id", "number", "status", "reason", "fault", "runtime", "filename", "size",
                  "sha256", "created_at", "validated_at", "validation"]  # fmt: skip


class BotCreatedSerializer(serializers.ModelSerializer[Bot]):
    current_version = serializers.SerializerMethodField(help_text="the version just uploaded")

    class Meta:
        model = Bot
        fields = ["id", "name", "game", "current_version"]

    def get_current_version(self, bot: Bot) -> dict[str, Any]:
        return dict(VersionBriefSerializer(self.context["version"]).data)


class BotSerializer(serializers.ModelSerializer[Bot]):
    owner = serializers.CharField(source="owner.username")
    current_version = VersionBriefSerializer(allow_null=True, help_text="the version it plays")
    rating = serializers.SerializerMethodField()
    games = serializers.SerializerMethodField(help_text="rated matches on its game's ladder")

    class Meta:
        model = Bot
        fields = ["id", "name", "game", "owner", "created_at", "current_version", "rating",
                  "games"]  # fmt: skip

    def get_rating(self, bot: Bot) -> float | None:
        ratings = list(bot.ratings.all())
        return ratings[0].rating if ratings else None

    def get_games(self, bot: Bot) -> int:
        ratings = list(bot.ratings.all())
        return ratings[0].games if ratings else 0


class LuckSummarySerializer(serializers.Serializer[Any]):
    matches = serializers.IntegerField(help_text="finished matches with their luck computed")
    mean = serializers.FloatField(help_text="what the cards gave it per match, in score units")
    half_width = serializers.FloatField(
        allow_null=True, help_text="of the mean's 95 % interval; null below two matches"
    )


class BotDetailSerializer(BotSerializer):
    versions = VersionSerializer(many=True)
    luck = serializers.SerializerMethodField(
        help_text="its mean luck per finished match (matches.luck): zero in expectation for "
        "every bot; null before any match has its luck computed"
    )

    class Meta(BotSerializer.Meta):
        fields = [*BotSerializer.Meta.fields, "versions", "luck"]

    @extend_schema_field(LuckSummarySerializer(allow_null=True))
    def get_luck(self, bot: Bot) -> dict[str, Any] | None:
        summary = bot_luck(bot_id=bot.pk)
        return None if summary is None else dataclasses.asdict(summary)


class SeatLogSerializer(serializers.ModelSerializer[MatchSeat]):
    class Meta:
        model = MatchSeat
        fields = ["match", "seat", "fault", "fault_message", "log"]


class VersionLogSerializer(serializers.ModelSerializer[BotVersion]):
    matches = SeatLogSerializer(many=True, help_text="its latest match seats with stderr")

    class Meta:
        model = BotVersion
        fields = ["id", "number", "status", "fault", "reason", "log", "matches"]


# -- tournaments -------------------------------------------------------------------------------


class TournamentCreateSerializer(serializers.Serializer[Any]):
    name = serializers.CharField(max_length=100, default="", allow_blank=True)
    game = serializers.CharField(max_length=32)
    bots = serializers.ListField(child=serializers.IntegerField(), min_length=1, max_length=64)
    params = serializers.DictField(default=dict, help_text="rule options (GET /api/games/)")
    rounds = serializers.IntegerField(default=1, min_value=1)
    duplicate = serializers.BooleanField(default=True)
    official = serializers.BooleanField(
        default=False,
        help_text="staff only: its matches are rated when played under the ladder's rules "
        "(params and duplicate as the ladder's); everyone else's tournaments are unrated",
    )  # fmt: skip


class ProgressSerializer(serializers.Serializer[Any]):
    done = serializers.IntegerField()
    total = serializers.IntegerField()
    running = serializers.IntegerField()
    failed = serializers.IntegerField(help_text="ended in a platform error")


class StandingSerializer(serializers.Serializer[Any]):
    rank = serializers.IntegerField()
    bot_id = serializers.IntegerField()
    bot = serializers.CharField(help_text="owner/name")
    version = serializers.IntegerField(help_text="the version number it entered with")
    matches = serializers.IntegerField()
    points = serializers.FloatField()
    average_place = serializers.FloatField(allow_null=True)
    total_score = serializers.FloatField()
    faults = serializers.IntegerField()


class CrossTableSerializer(serializers.Serializer[Any]):
    bots = serializers.ListField(child=serializers.IntegerField())
    points = serializers.ListField(
        child=serializers.ListField(child=serializers.FloatField(allow_null=True)),
        help_text="points[i][j]: what bots[i] took from bots[j] (null: they never met)",
    )
    meetings = serializers.ListField(child=serializers.ListField(child=serializers.IntegerField()))


class TournamentSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    game = serializers.CharField()
    params = serializers.DictField()
    rounds = serializers.IntegerField()
    duplicate = serializers.BooleanField()
    official = serializers.BooleanField(help_text="made official by staff")
    rated = serializers.BooleanField(help_text="its matches move ladder ratings")
    status = serializers.CharField()
    created_by = serializers.CharField(source="created_by.username")
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)


class TournamentDetailSerializer(TournamentSerializer):
    progress = ProgressSerializer()
    standings = StandingSerializer(many=True)
    cross_table = CrossTableSerializer()


class CreatedSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()


# -- matches -----------------------------------------------------------------------------------


class BotRefSerializer(serializers.ModelSerializer[Bot]):
    owner = serializers.CharField(source="owner.username")

    class Meta:
        model = Bot
        fields = ["id", "name", "owner"]


class SeatSerializer(serializers.ModelSerializer[MatchSeat]):
    bot = BotRefSerializer()
    version = VersionBriefSerializer(source="bot_version")

    class Meta:
        model = MatchSeat
        fields = ["seat", "partnership", "bot", "version", "score", "place", "luck", "fault",
                  "fault_message"]  # fmt: skip


class BoardPointsSerializer(serializers.Serializer[Any]):
    bot = serializers.IntegerField()
    points = serializers.FloatField(help_text="boards won; a board shared pro rata, ties half")


class BoardResultSerializer(serializers.Serializer[Any]):
    boards = serializers.IntegerField(help_text="deals every game of the set reached")
    summary = serializers.CharField(help_text='the points side by side, e.g. "6½–3½"')
    points = BoardPointsSerializer(many=True, help_text="per bot, in the order of its first seat")


class MatchSerializer(serializers.ModelSerializer[Match]):
    seats = SeatSerializer(many=True)
    rated = serializers.BooleanField(
        read_only=True,
        help_text="whether it moves ladder ratings: the ladder's own matches and official "
        "tournaments' under the ladder's rules; challenges and authors' tournaments never",
    )  # fmt: skip
    boards = serializers.SerializerMethodField(
        help_text="a finished duplicate match scored board by board on its raw scores (what "
        "ratings use, except where corrected_boards is set); null for a plain or unfinished "
        "match"
    )
    corrected_boards = serializers.SerializerMethodField(
        help_text="the same boards with each deal's luck taken out: what the ladder rates the "
        "match by in the games whose ladder reads luck-corrected scores (Belote); null "
        "elsewhere, and where the luck could not be computed (the ladder reads boards)"
    )

    class Meta:
        model = Match
        fields = ["id", "game", "params", "duplicate", "origin", "rated", "status", "tournament",
                  "round", "queued_at", "started_at", "finished_at", "seats", "boards",
                  "corrected_boards"]  # fmt: skip

    @extend_schema_field(BoardResultSerializer(allow_null=True))
    def get_boards(self, match: Match) -> dict[str, Any] | None:
        return _board_result(match_board_result(match=match))

    @extend_schema_field(BoardResultSerializer(allow_null=True))
    def get_corrected_boards(self, match: Match) -> dict[str, Any] | None:
        return _board_result(match_board_result(match=match, corrected=True))


def _board_result(result: BoardResult | None) -> dict[str, Any] | None:
    if result is None:
        return None
    return {"boards": result.boards, "summary": result.summary,
            "points": [{"bot": bot, "points": p} for bot, p in result.points]}  # fmt: skip


class MatchFilterSerializer(serializers.Serializer[Any]):
    tournament = serializers.IntegerField(required=False)
    bot = serializers.IntegerField(required=False)
    status = serializers.ChoiceField(choices=MatchStatus.choices, required=False)


class ReplayQuerySerializer(serializers.Serializer[Any]):
    seat = serializers.IntegerField(required=False, min_value=0,
                                    help_text="only what this seat knew")  # fmt: skip


class ChallengeCreateSerializer(serializers.Serializer[Any]):
    bot = serializers.IntegerField(help_text="your bot")
    opponents = serializers.ListField(child=serializers.IntegerField(), min_length=1,
                                      max_length=5)  # fmt: skip
    duplicate = serializers.BooleanField(default=True)
    params = serializers.DictField(default=dict)


# -- ladders -----------------------------------------------------------------------------------


class LadderRowSerializer(serializers.Serializer[Any]):
    rank = serializers.IntegerField()
    bot = BotRefSerializer()
    owner = serializers.CharField()
    rating = serializers.FloatField()
    games = serializers.IntegerField()


class StrengthSerializer(serializers.Serializer[Any]):
    rank = serializers.IntegerField()
    bot = serializers.IntegerField(source="bot_id")
    name = serializers.CharField(source="bot")
    owner = serializers.CharField()
    strength = serializers.FloatField(help_text="Bradley–Terry / Plackett–Luce, Elo scale")
    low = serializers.FloatField(help_text="95 % interval, bootstrap over matches")
    high = serializers.FloatField()
    matches = serializers.IntegerField()
    tied_with_next = serializers.BooleanField(
        help_text="the intervals of this bot and the next overlap: their order is not established"
    )
    above_next = serializers.FloatField(
        allow_null=True, help_text="share of resamples in which it beats the next bot"
    )


class PositionResultSerializer(serializers.Serializer[Any]):
    position = serializers.IntegerField()
    mean = serializers.FloatField()
    advantage = serializers.FloatField(help_text="over the average position")
    low = serializers.FloatField(allow_null=True, help_text="95 % interval of the advantage")
    high = serializers.FloatField(allow_null=True)
    samples = serializers.IntegerField(help_text="games (by seat) or deals (by dealer position)")


class SeatFairnessSerializer(serializers.Serializer[Any]):
    game = serializers.CharField()
    matches = serializers.IntegerField()
    by_seat = PositionResultSerializer(many=True)
    by_dealer_position = PositionResultSerializer(many=True)


class HistoryQuerySerializer(serializers.Serializer[Any]):
    bot = serializers.IntegerField()


class RatingChangeSerializer(serializers.Serializer[Any]):
    match = serializers.IntegerField(source="match_id")
    seq = serializers.IntegerField(help_text="the match's place in the ladder's rating order")
    version = serializers.IntegerField(source="bot_version_id")
    before = serializers.FloatField()
    after = serializers.FloatField()


class BotFilterSerializer(serializers.Serializer[Any]):
    game = serializers.CharField(required=False)
    owner = serializers.CharField(required=False, help_text="a username")
    mine = serializers.BooleanField(required=False, help_text="only your own bots")


# -- errors (for the schema) -------------------------------------------------------------------


class ErrorBodySerializer(serializers.Serializer[Any]):
    code = serializers.CharField(help_text="stable machine-readable word")
    message = serializers.CharField()

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        fields = super().get_fields()  # "fields" cannot be a class attribute of a serializer
        fields["fields"] = serializers.DictField(
            child=serializers.JSONField(), required=False, help_text="input name -> messages"
        )
        return fields


class ErrorSerializer(serializers.Serializer[Any]):
    error = ErrorBodySerializer()
