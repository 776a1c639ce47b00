"""The site's pages (server-rendered, in Korean and English; the same URLs in both)."""

from django.contrib.auth import views as auth_views
from django.urls import path

from web import views

urlpatterns = [
    path("", views.home, name="home"),
    path("ladder/<str:game>/", views.ladder, name="ladder"),
    path("rules/<str:game>/", views.rules, name="rules"),
    path("docs/<str:name>/", views.doc_page, name="doc"),
    path("write-a-bot/", views.write_a_bot, name="write_a_bot"),
    path("write-a-bot/<str:game>/<str:kit>.zip", views.starter_kit, name="starter_kit"),
    path("language/", views.language_switch, name="language"),
    path("bots/new/", views.bot_new, name="bot_new"),
    path("bots/<int:bot_id>/", views.bot_detail, name="bot"),
    path("bots/<int:bot_id>/versions/", views.bot_upload_version, name="bot_upload"),
    path("bots/<int:bot_id>/challenge/", views.bot_challenge, name="bot_challenge"),
    path("bots/<int:bot_id>/logs/", views.bot_logs, name="bot_logs"),
    path("bots/<int:bot_id>/versions/<int:version_id>/validation.json",
         views.validation_replay, name="validation_replay"),  # fmt: skip
    path("tournaments/", views.tournament_list, name="tournaments"),
    path("tournaments/new/", views.tournament_new, name="tournament_new"),
    path("tournaments/<int:tournament_id>/", views.tournament_detail, name="tournament"),
    path("tournaments/<int:tournament_id>/progress/", views.tournament_progress_partial,
         name="tournament_progress"),  # fmt: skip
    path("tournaments/<int:tournament_id>/matches/", views.tournament_matches_partial,
         name="tournament_matches"),  # fmt: skip
    path("matches/<int:match_id>/", views.match_detail, name="match"),
    path("matches/<int:match_id>/replay.json", views.match_replay_json, name="match_replay"),
    path("matches/<int:match_id>/decision/", views.match_decision, name="match_decision"),
    path("matches/<int:match_id>/live/", views.match_live, name="match_live"),
    path("accounts/login/", views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(next_page="home"), name="logout"),
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/tokens/", views.tokens, name="tokens"),
    path("accounts/tokens/<int:token_id>/revoke/", views.token_revoke_view, name="token_revoke"),
]
