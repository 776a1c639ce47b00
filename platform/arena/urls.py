from django.conf import settings
from django.conf.urls.static import static
from django.contrib import admin
from django.urls import path
from django.views.generic import TemplateView

from ops.views import HealthView

urlpatterns = [
    path("", TemplateView.as_view(template_name="home.html"), name="home"),
    path("admin/", admin.site.urls),
    path("api/health/", HealthView.as_view(), name="api-health"),
]

if settings.DEBUG:  # in deployments the web server in front of Django serves uploads and replays
    urlpatterns += static(settings.MEDIA_URL, document_root=settings.MEDIA_ROOT)
