"""Who a request comes from, for rate limits: the connection's address unless a trusted proxy
says otherwise (``ARENA_TRUSTED_PROXIES``), and log-in attempts limited per user name as well, so
neither a forged ``X-Forwarded-For`` header nor rotating addresses helps a password guesser."""

from __future__ import annotations

from ipaddress import ip_network

from django.contrib.auth.models import User
from django.test import Client, RequestFactory, override_settings
from rest_framework.test import APIClient

from arena.security import client_address

PASSWORD = "a-long-Unusual-passphrase-42"


def address(remote: str, forwarded: str | None, trusted: object) -> str:
    meta = {"REMOTE_ADDR": remote}
    if forwarded is not None:
        meta["HTTP_X_FORWARDED_FOR"] = forwarded
    with override_settings(ARENA_TRUSTED_PROXIES=trusted):
        return client_address(RequestFactory().get("/", **meta))


def test_without_trusted_proxies_the_header_is_ignored() -> None:
    assert address("203.0.113.9", "1.2.3.4", 0) == "203.0.113.9"


def test_a_count_of_proxies_reads_the_entry_the_outermost_one_appended() -> None:
    # the client forged "1.2.3.4"; our one proxy appended the address it saw
    assert address("10.0.0.2", "1.2.3.4, 198.51.100.7", 1) == "198.51.100.7"
    assert address("10.0.0.3", "1.2.3.4, 198.51.100.7, 10.0.0.2", 2) == "198.51.100.7"
    assert address("10.0.0.2", None, 1) == "10.0.0.2"  # a request that bypassed the proxy


def test_trusted_networks_are_skipped_from_the_nearest_hop() -> None:
    nets = (ip_network("10.0.0.0/8"),)
    assert address("10.0.0.2", "1.2.3.4, 198.51.100.7, 10.1.1.1", nets) == "198.51.100.7"
    assert address("198.51.100.8", "1.2.3.4", nets) == "198.51.100.8"  # not from our proxy
    assert address("10.0.0.2", "not-an-address", nets) == "not-an-address"


def forged(n: int) -> str:
    return f"192.0.2.{n % 250 + 1}"


def test_api_tokens_rotating_forwarded_headers_are_throttled(db: None) -> None:
    """DRF's own ``get_ident`` believed the header: 120 guesses got 120 × 400 (issue 28)."""
    User.objects.create_user("olga", password=PASSWORD)
    client = APIClient()
    body = {"username": "olga", "password": "wrong", "name": "t"}
    codes = [
        client.post("/api/auth/token/", body, format="json",
                    HTTP_X_FORWARDED_FOR=forged(n)).status_code
        for n in range(40)
    ]  # fmt: skip
    assert codes.count(429) == 10 and codes[:30] == [400] * 30
    right = client.post("/api/auth/token/", {**body, "password": PASSWORD}, format="json",
                        HTTP_X_FORWARDED_FOR=forged(99))  # fmt: skip
    assert right.status_code == 429


@override_settings(ARENA_LOGINS_PER_NAME_PER_HOUR=5)
def test_api_tokens_rotating_addresses_are_limited_per_user_name(db: None) -> None:
    User.objects.create_user("olga", password=PASSWORD)
    body = {"username": "olga", "password": "wrong", "name": "t"}
    codes = [
        APIClient(REMOTE_ADDR=forged(n)).post("/api/auth/token/", body, format="json").status_code
        for n in range(8)
    ]
    assert codes == [400] * 5 + [429] * 3
    right = APIClient(REMOTE_ADDR=forged(77)).post(
        "/api/auth/token/", {**body, "password": PASSWORD}, format="json"
    )
    assert right.status_code == 429
    assert right.json()["error"]["code"] == "rate_limited"
    other = User.objects.create_user("piet", password=PASSWORD)  # other names are unaffected
    fine = APIClient(REMOTE_ADDR=forged(78)).post(
        "/api/auth/token/", {**body, "username": other.username, "password": PASSWORD},
        format="json",
    )  # fmt: skip
    assert fine.status_code == 201


@override_settings(ARENA_LOGINS_PER_HOUR=3)
def test_page_log_ins_with_rotating_forwarded_headers_are_limited(db: None) -> None:
    User.objects.create_user("olga", password=PASSWORD)
    client = Client()
    codes = [
        client.post("/accounts/login/", {"username": "olga", "password": "wrong"},
                    HTTP_X_FORWARDED_FOR=forged(n)).status_code
        for n in range(5)
    ]  # fmt: skip
    assert codes == [200, 200, 200, 429, 429]


@override_settings(ARENA_LOGINS_PER_NAME_PER_HOUR=4, ARENA_LOGINS_PER_HOUR=1000)
def test_page_log_ins_from_rotating_addresses_are_limited_per_user_name(db: None) -> None:
    User.objects.create_user("olga", password=PASSWORD)
    codes = [
        Client(REMOTE_ADDR=forged(n)).post(
            "/accounts/login/", {"username": "olga", "password": "wrong"}
        ).status_code
        for n in range(6)
    ]
    assert codes == [200] * 4 + [429] * 2
    client = Client(REMOTE_ADDR=forged(50))
    right = client.post("/accounts/login/", {"username": "olga", "password": PASSWORD})
    assert right.status_code == 429 and "_auth_user_id" not in client.session
