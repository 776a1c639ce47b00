"""``arena login|submit|status|challenge|replay``: the command line client of a Card Arena server.

Standard library only (``urllib``). The server is ``$ARENA_URL``, else the one stored by
``arena login``, else http://127.0.0.1:8000; the token is ``$ARENA_TOKEN``, else the stored
one. ``arena login`` stores both in ``$ARENA_CONFIG`` (default
``~/.config/card-arena/credentials``), readable by you only.

Exit codes: 0 done; 1 the server refused the request, or the uploaded version was rejected;
2 bad usage; 3 the server cannot be reached (or answered nonsense); 4 not logged in, or the
token or password was refused. Errors are one line on stderr.
"""

from __future__ import annotations

import argparse
import getpass
import io
import json
import os
import socket
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .i18n import LANGUAGE, _, table

DEFAULT_URL = "http://127.0.0.1:8000"
EXIT_REFUSED, EXIT_USAGE, EXIT_NETWORK, EXIT_AUTH = 1, 2, 3, 4
POLL_INTERVAL_S = 1.0


class ClientError(Exception):
    """A failure to report as one line, with the exit code it maps to."""

    def __init__(self, message: str, exit_code: int = EXIT_REFUSED) -> None:
        super().__init__(message)
        self.exit_code = exit_code


# -- configuration -----------------------------------------------------------------------------


def config_path() -> Path:
    configured = os.environ.get("ARENA_CONFIG", "").strip()
    if configured:
        return Path(configured)
    return Path.home() / ".config" / "card-arena" / "credentials"


def load_config() -> dict[str, str]:
    path = config_path()
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as err:
        raise ClientError(
            _("cannot read {path}: {error}").format(path=path, error=err), EXIT_USAGE
        ) from None
    if not isinstance(stored, dict):
        raise ClientError(
            _("{path} is not a credentials file; run arena login").format(path=path), EXIT_USAGE
        )
    return {k: v for k, v in stored.items() if isinstance(v, str)}


def save_config(values: dict[str, str]) -> Path:
    """Write the credentials readable by the user only (created 0600, never world-readable)."""
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    temp = path.with_name(path.name + ".tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(values, out, indent=2)
    os.chmod(temp, 0o600)
    os.replace(temp, path)
    return path


def server_url() -> str:
    url = os.environ.get("ARENA_URL", "").strip() or load_config().get("url") or DEFAULT_URL
    return url.rstrip("/")


# -- HTTP --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Upload:
    filename: str
    data: bytes


class Api:
    """JSON over HTTP with the token; every failure becomes a :class:`ClientError`."""

    def __init__(self, url: str, token: str | None, *, timeout_s: float = 60) -> None:
        self.url = url
        self.token = token
        self.timeout_s = timeout_s

    def get(self, path: str, **query: Any) -> Any:
        return self.call("GET", path, query=query)

    def call(
        self,
        method: str,
        path: str,
        *,
        query: dict[str, Any] | None = None,
        body: dict[str, Any] | None = None,
        files: dict[str, Upload] | None = None,
    ) -> Any:
        url = self.url + path
        if query:
            url += "?" + urllib.parse.urlencode({k: v for k, v in query.items() if v is not None})
        # the server's error messages in the command's language; the JSON fields are the same
        headers = {"Accept": "application/json", "Accept-Language": LANGUAGE}
        data = None
        if files is not None:
            data, headers["Content-Type"] = _multipart(body or {}, files)
        elif body is not None:
            data, headers["Content-Type"] = json.dumps(body).encode(), "application/json"
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                raw = response.read()
        except urllib.error.HTTPError as err:
            raise _refusal(err) from None
        except (urllib.error.URLError, OSError) as err:
            reason = getattr(err, "reason", err)
            raise ClientError(
                _("cannot reach {url}: {reason}").format(url=self.url, reason=reason), EXIT_NETWORK
            ) from None
        if not raw:
            return None
        try:
            return json.loads(raw)
        except ValueError:
            raise ClientError(
                _("{url} did not answer with JSON").format(url=self.url), EXIT_NETWORK
            ) from None

    def pages(self, path: str, **query: Any) -> Iterator[dict[str, Any]]:
        """Every item of a paginated list, following ``next`` links."""
        page = self.get(path, **query)
        while True:
            yield from page["results"]
            if not page.get("next"):
                return
            parsed = urllib.parse.urlsplit(page["next"])
            page = self.get(parsed.path, **dict(urllib.parse.parse_qsl(parsed.query)))


def _refusal(err: urllib.error.HTTPError) -> ClientError:
    try:
        error = json.loads(err.read())["error"]
        message, code = str(error["message"]), str(error["code"])
    except (ValueError, KeyError, TypeError):
        message, code = f"HTTP {err.code} {err.reason}", ""
    if code == "invalid_credentials":
        return ClientError(message, EXIT_AUTH)
    if err.code == 401:
        return ClientError(
            _("{message} (run arena login, or set ARENA_TOKEN)").format(message=message), EXIT_AUTH
        )
    return ClientError(message, EXIT_REFUSED)


def _multipart(fields: dict[str, Any], files: dict[str, Upload]) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    out = io.BytesIO()
    for name, value in fields.items():
        out.write(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'
                  f"{value}\r\n".encode())  # fmt: skip
    for name, upload in files.items():
        filename = upload.filename.replace('"', "_").replace("\r", "_").replace("\n", "_")
        out.write(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; '
            f'filename="{filename}"\r\nContent-Type: application/octet-stream\r\n\r\n'.encode()
        )
        out.write(upload.data)
        out.write(b"\r\n")
    out.write(f"--{boundary}--\r\n".encode())
    return out.getvalue(), f"multipart/form-data; boundary={boundary}"


def authenticated_api() -> Api:
    token = os.environ.get("ARENA_TOKEN", "").strip() or load_config().get("token")
    if not token:
        raise ClientError(_("not logged in: run arena login (or set ARENA_TOKEN)"), EXIT_AUTH)
    return Api(server_url(), token)


# -- commands ----------------------------------------------------------------------------------


def cmd_login(args: argparse.Namespace) -> int:
    url = (args.url or server_url()).rstrip("/")
    username = args.username or input(_("username: ")).strip()
    if args.password_stdin:
        password = sys.stdin.readline().rstrip("\n")
    else:
        password = getpass.getpass(_("password: "))
    name = args.name or f"arena-cli@{socket.gethostname()}"[:64]
    answer = Api(url, None).call(
        "POST", "/api/auth/token/", body={"username": username, "password": password, "name": name}
    )
    path = save_config({"url": url, "token": answer["token"], "username": username})
    expiry = answer.get("expiry") or _("never")
    print(
        _("logged in to {url} as {user}; token {token} (expires {expiry}) stored in {path}").format(
            url=url, user=username, token=repr(answer["name"]), expiry=expiry, path=path
        )
    )
    return 0


def cmd_submit(args: argparse.Namespace) -> int:
    api = authenticated_api()
    upload = _package(Path(args.file))
    mine = {b["name"]: b for b in api.pages("/api/bots/", mine="true")}
    existing = mine.get(args.bot)
    if existing is None:
        created = api.call("POST", "/api/bots/", body={"name": args.bot, "game": args.game},
                           files={"file": upload})  # fmt: skip
        bot_id, version = created["id"], created["current_version"]
        print(
            _("created bot {bot} ({game}), bot id {id}").format(
                bot=args.bot, game=args.game, id=bot_id
            )
        )
    else:
        if existing["game"] != args.game:
            raise ClientError(
                _("your bot {bot} plays {game}, not {wanted}").format(
                    bot=args.bot, game=existing["game"], wanted=args.game
                )
            )
        bot_id = existing["id"]
        version = api.call("POST", f"/api/bots/{bot_id}/versions/", body={},
                           files={"file": upload})  # fmt: skip
    print(
        _("uploaded version {number} of {bot} (version id {id}); validating").format(
            number=version["number"], bot=args.bot, id=version["id"]
        )
    )
    if args.no_wait:
        return 0
    deadline = time.monotonic() + args.timeout
    status = version["status"]
    while status in ("pending", "validating"):
        if time.monotonic() > deadline:
            raise ClientError(
                _("still {status} after {seconds} s; see arena status").format(
                    status=status, seconds=f"{args.timeout:.0f}"
                )
            )
        time.sleep(POLL_INTERVAL_S)
        bot = api.get(f"/api/bots/{bot_id}/")
        found = next(v for v in bot["versions"] if v["id"] == version["id"])
        status = found["status"]
    if status == "active":
        print(
            _("version {number}: active (it now plays as {bot})").format(
                number=version["number"], bot=args.bot
            )
        )
        return 0
    log = api.get(f"/api/bots/{bot_id}/versions/{version['id']}/log/")
    print(
        _("version {number}: REJECTED: {fault}: {reason}").format(
            number=version["number"], fault=log["fault"], reason=log["reason"]
        )
    )
    if log["log"].strip():
        print(_("your bot's stderr in validation (last lines):"))
        print(_tail(log["log"], 30))
    return EXIT_REFUSED


def cmd_status(args: argparse.Namespace) -> int:
    api = authenticated_api()
    bots = list(api.pages("/api/bots/", mine="true"))
    if not bots:
        print(_("no bots yet: arena submit FILE --bot NAME --game GAME"))
        return 0
    rows = [
        [
            str(b["id"]), b["name"], b["game"],
            f"v{b['current_version']['number']}" if b["current_version"] else "-",
            f"{b['rating']:.0f}" if b["rating"] is not None else "-", str(b["games"]),
        ]
        for b in bots
    ]  # fmt: skip
    headings = [(_("id"), ">", 5), (_("bot"), "<", 24), (_("game"), "<", 7),
                (_("plays"), ">", 6), (_("rating"), ">", 7), (_("games"), ">", 6)]  # fmt: skip
    print("\n".join(table(headings, rows)))
    recent: dict[int, dict[str, Any]] = {}
    for b in bots:
        for match in api.get("/api/matches/", bot=b["id"], limit=args.matches)["results"]:
            recent[match["id"]] = match
    ids = {b["id"] for b in bots}
    print()
    print(_("recent matches:") if recent else _("no matches yet"))
    for match in sorted(recent.values(), key=lambda m: -m["id"])[: args.matches]:
        print("  " + _("match {id} {game} {origin} {status} ({rated}): {seats}").format(
            id=match["id"], game=match["game"], origin=match["origin"], status=match["status"],
            rated=_rated(match), seats=_seats_line(match, ids),
        ))  # fmt: skip
    return 0


def cmd_challenge(args: argparse.Namespace) -> int:
    from .cli import parse_params  # the same NAME=VALUE parsing as arena play

    api = authenticated_api()
    bot = _resolve_bot(api, args.bot, mine=True)
    opponents = [_resolve_bot(api, o, mine=False)["id"] for o in args.opponents]
    match = api.call("POST", "/api/challenges/", body={
        "bot": bot["id"], "opponents": opponents, "duplicate": not args.single,
        "params": parse_params(args.param),
    })  # fmt: skip
    others = ", ".join(dict.fromkeys(  # a team's bot holds two seats: named once
        f"{s['bot']['owner']}/{s['bot']['name']}" for s in match["seats"]
        if s["bot"]["id"] != bot["id"]
    ))  # fmt: skip
    print(
        _("match {id} queued ({rated}): {bot} vs {others}").format(
            id=match["id"], rated=_rated(match), bot=bot["name"], others=others
        )
    )
    if not args.wait:
        return 0
    deadline = time.monotonic() + args.timeout
    while match["status"] in ("queued", "running"):
        if time.monotonic() > deadline:
            raise ClientError(
                _("match {id} still {status} after {seconds} s").format(
                    id=match["id"], status=match["status"], seconds=f"{args.timeout:.0f}"
                )
            )
        time.sleep(POLL_INTERVAL_S)
        match = api.get(f"/api/matches/{match['id']}/")
    print(
        _("match {id} {status}: {seats}").format(
            id=match["id"], status=match["status"], seats=_seats_line(match, {bot["id"]})
        )
    )
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    api = Api(server_url(), os.environ.get("ARENA_TOKEN") or load_config().get("token"))
    replay = api.get(f"/api/matches/{args.match_id}/replay/", seat=args.seat)
    suffix = f"-seat{args.seat}" if args.seat is not None else ""
    path = Path(args.output or f"replay-{args.match_id}{suffix}.json")
    path.write_text(json.dumps(replay, separators=(",", ":")), encoding="utf-8")
    what = (
        _("wrote {path} ({game}, match {id})")
        if args.seat is None
        else _("wrote {path} ({game}, match {id}, seat {seat})")
    )
    print(what.format(path=path, game=replay.get("game", "?"), id=args.match_id, seat=args.seat))
    return 0


# -- helpers -----------------------------------------------------------------------------------


def _package(path: Path) -> Upload:
    """A file as it is; a folder as a zip (its bot.toml at the top)."""
    if path.is_file():
        return Upload(path.name, path.read_bytes())
    if not path.is_dir():
        raise ClientError(_("{path}: no such file or folder").format(path=path), EXIT_USAGE)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for item in sorted(p for p in path.rglob("*") if p.is_file()):
            archive.write(item, str(item.relative_to(path)))
    return Upload(f"{path.name}.zip", buffer.getvalue())


def _resolve_bot(api: Api, ref: str, *, mine: bool) -> dict[str, Any]:
    """A bot by id, by ``owner/name``, or (``mine``) by the name of one of your bots."""
    if ref.isdigit():
        return dict(api.get(f"/api/bots/{ref}/"))
    owner, _slash, name = ref.rpartition("/")
    query = {"owner": owner} if owner else ({"mine": "true"} if mine else None)
    if query is None:
        raise ClientError(
            _("name the opponent {bot} as OWNER/NAME or by id").format(bot=repr(ref)), EXIT_USAGE
        )
    for bot in api.pages("/api/bots/", **query):
        if bot["name"] == name:
            return bot
    raise ClientError(_("no bot {bot}").format(bot=repr(ref)))


def _seats_line(match: dict[str, Any], highlight: set[int]) -> str:
    entrants: dict[int, str] = {}
    for seat in match["seats"]:
        bot = seat["bot"]
        mark = "*" if bot["id"] in highlight else ""
        place = f" #{seat['place']}" if seat["place"] is not None else ""
        fault = f" ({seat['fault']})" if seat["fault"] else ""
        entrants.setdefault(bot["id"], f"{mark}{bot['owner']}/{bot['name']}{place}{fault}")
    return ", ".join(entrants.values())


def _rated(match: dict[str, Any]) -> str:
    """Whether the match moves ladder ratings (challenges and authors' tournaments never do)."""
    return _("rated") if match.get("rated") else _("unrated")


def _tail(text: str, lines: int) -> str:
    """The last lines of a bot's stderr with control characters made harmless."""
    shown = text.splitlines()[-lines:]
    return "\n".join(
        "    " + "".join(c if c.isprintable() else "?" for c in line) for line in shown
    )


def _guarded(command: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        try:
            return command(args)
        except ClientError as err:
            print(f"arena: {err}", file=sys.stderr)
            return err.exit_code
        except (EOFError, KeyError, TypeError, StopIteration) as err:  # a reply we cannot read
            reason = f"{type(err).__name__}: {err}"
            print("arena: " + _("unexpected answer from the server ({reason})").format(
                reason=reason), file=sys.stderr)  # fmt: skip
            return EXIT_NETWORK

    return run


def add_parsers(sub: Any) -> dict[str, argparse.ArgumentParser]:
    """Register the client's commands on ``arena``'s subparsers; the parsers by name."""
    login = sub.add_parser("login", help=_("get an API token and store it"))
    login.add_argument(
        "--url", help=_("the server (default $ARENA_URL or {url})").format(url=DEFAULT_URL)
    )
    login.add_argument("--username")
    login.add_argument(
        "--password-stdin", action="store_true", help=_("read the password from stdin")
    )
    login.add_argument("--name", help=_("a name for the token (default arena-cli@HOST)"))
    login.set_defaults(func=_guarded(cmd_login))

    submit = sub.add_parser("submit", help=_("upload a bot version and wait for its validation"))
    submit.add_argument("file", help=_("a bot file, a .zip or a folder with bot.toml"))
    submit.add_argument("--bot", required=True, help=_("your bot's name (created if new)"))
    submit.add_argument("--game", required=True)
    submit.add_argument("--no-wait", action="store_true", help=_("do not wait for the verdict"))
    submit.add_argument("--timeout", type=float, default=600, metavar="SECONDS")
    submit.set_defaults(func=_guarded(cmd_submit))

    status = sub.add_parser("status", help=_("your bots, their ratings and recent matches"))
    status.add_argument("--matches", type=int, default=10, help=_("recent matches shown"))
    status.set_defaults(func=_guarded(cmd_status))

    challenge = sub.add_parser("challenge", help=_("an unranked match against other bots"))
    challenge.add_argument("bot", help=_("your bot: name or id"))
    challenge.add_argument("opponents", nargs="+", help=_("OWNER/NAME or id"))
    challenge.add_argument("--single", action="store_true", help=_("no duplicate deals"))
    challenge.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    challenge.add_argument("--wait", action="store_true", help=_("wait for the result"))
    challenge.add_argument("--timeout", type=float, default=600, metavar="SECONDS")
    challenge.set_defaults(func=_guarded(cmd_challenge))

    replay = sub.add_parser("replay", help=_("download a finished match's replay"))
    replay.add_argument("match_id", type=int)
    replay.add_argument("-o", "--output", help=_("file (default replay-ID[-seatN].json)"))
    replay.add_argument("--seat", type=int, help=_("only what this seat knew"))
    replay.set_defaults(func=_guarded(cmd_replay))
    return {"login": login, "submit": submit, "status": status, "challenge": challenge,
            "replay": replay}  # fmt: skip
