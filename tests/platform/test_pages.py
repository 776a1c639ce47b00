import pytest
from django.db import connection
from django.test import Client

import engine

pytestmark = pytest.mark.django_db


def test_admin_asks_anonymous_visitors_to_log_in(client: Client) -> None:
    response = client.get("/admin/", follow=True)
    assert response.redirect_chain == [("/admin/login/?next=/admin/", 302)]
    assert response.status_code == 200


def test_admin_index_lists_heartbeats(admin_client: Client) -> None:
    response = admin_client.get("/admin/")
    assert response.status_code == 200
    assert b"Heartbeats" in response.content
    assert admin_client.get("/admin/ops/heartbeat/").status_code == 200


def test_health_api_reports_database_execution_mode_and_engine_build(client: Client) -> None:
    response = client.get("/api/health/")
    assert response.status_code == 200
    body = response.json()
    assert body["database"] == {"ok": True, "detail": connection.vendor}
    assert body["execution"] == "inline"
    # the main suite runs the sources; scripts/test_compiled_engine.sh the compiled build
    assert body["engine"] == {"build": "compiled" if engine.compiled() else "python"}


def test_wsgi_and_asgi_entry_points_load() -> None:
    from arena.asgi import application as asgi_application
    from arena.wsgi import application as wsgi_application

    assert callable(wsgi_application) and callable(asgi_application)
