from django.contrib import admin
from django.urls import include, path, re_path
from django.views.decorators.csrf import csrf_exempt

from quotaweb.core import views as core_views
from quotaweb.teams import views as team_views

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("quotaweb.accounts.urls")),
    path("config/", include("quotaweb.config.urls")),
    path("usage/", include("quotaweb.usage.urls")),
    path("elastic/", include("quotaweb.elastic.urls")),
    path("trees/", include("quotaweb.quotatrees.urls")),
    path("teams/", include("quotaweb.teams.urls")),
    path("team/<str:token>/", team_views.dashboard, name="team-dashboard"),
    path("", include("quotaweb.api.urls")),
    # Any other /api/v1/ path, a newline in it too (which the routes' ``.`` does not match): the
    # JSON 404, even with debug on (where Django would answer its HTML page instead). Exempt from
    # CSRF: it changes nothing, and a write with a session cookie must get this 404, not Django's
    # HTML 403 for a missing CSRF token.
    re_path(r"^api/v1/[\s\S]+$", csrf_exempt(core_views.not_found)),
    path("", include("quotaweb.core.urls")),
]

handler404 = "quotaweb.core.views.not_found"
handler500 = "quotaweb.core.views.server_error"
