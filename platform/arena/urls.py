from django.conf import settings
from django.conf.urls.static import static
from django.contrib import admin
from django.urls import URLPattern, URLResolver, include, path

handler500 = "arena.errorpages.server_error"  # names the request id the log has (arena.requestid)

urlpatterns: list[URLPattern | URLResolver] = [
    path("admin/", admin.site.urls),
    path("api/", include("api.urls")),
    path("", include("web.urls")),
]

if settings.DEBUG:  # in deployments the web server in front of Django serves uploads and replays
    urlpatterns += static(settings.MEDIA_URL, document_root=settings.MEDIA_ROOT)
