import os

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError, CommandParser


class Command(BaseCommand):
    help = "Create a bot author's account (until the sign-up page exists)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--email", default="")
        parser.add_argument(
            "--password-env", metavar="VAR",
            help="read the password from this environment variable (never from argv)",
        )  # fmt: skip

    def handle(
        self, *args: object, username: str, email: str, password_env: str | None, **options: object
    ) -> None:
        if User.objects.filter(username=username).exists():
            raise CommandError(f"user {username!r} already exists")
        password = os.environ.get(password_env, "") if password_env else ""
        if password_env and not password:
            raise CommandError(f"environment variable {password_env} is empty or unset")
        user = User.objects.create_user(username, email, password or None)
        state = "with a password" if password else "without a password (set one in the admin)"
        self.stdout.write(f"created {user.username} {state}")
