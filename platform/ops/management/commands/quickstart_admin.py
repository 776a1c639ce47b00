from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

USERNAME = PASSWORD = "admin"


class Command(BaseCommand):
    help = "Create the local quick start's superuser admin/admin if absent (DEBUG only)."

    def handle(self, *args: object, **options: object) -> None:
        if not settings.DEBUG:
            raise CommandError("refusing to create a well-known admin/admin user with DEBUG off")
        users = get_user_model().objects
        if users.filter(username=USERNAME).exists():
            self.stdout.write(f"Admin user {USERNAME!r} exists (its password is left as it is)")
            return
        users.create_superuser(USERNAME, "admin@localhost", PASSWORD)
        self.stdout.write(f"Created the quick-start superuser: {USERNAME} / {PASSWORD}")
