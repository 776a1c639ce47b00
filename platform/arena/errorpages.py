"""The answer to a request that failed on our side (Django's ``handler500``).

Django has already logged the exception with its traceback (``django.request``, to stderr, see
``LOGGING``) under the request's id by the time this runs; the answer names the same id, so a
report can be matched with its traceback. The API answers with its error envelope, the pages
with ``500.html``, rendered without a request context: whatever failed must not fail again here.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import loader

from api.errors import error_body
from arena.requestid import request_id


def server_error(request: HttpRequest) -> HttpResponse:
    rid = request_id(request)
    if request.path.startswith("/api/"):
        body = error_body("server_error", f"something went wrong on our side (request {rid})")
        body["error"]["request_id"] = rid
        return JsonResponse(body, status=500)
    page = loader.get_template("500.html").render({"request_id": rid})
    return HttpResponse(page, status=500)
