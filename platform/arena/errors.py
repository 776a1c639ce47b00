"""The one error type services raise for a request they refuse.

Views, the API and management commands turn it into a message for the person who asked; ``code``
is a stable machine-readable word (e.g. ``duplicate_version``), ``message`` is for people.
"""


class ApplicationError(Exception):
    def __init__(self, message: str, *, code: str = "invalid", field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.field = field
