from django.contrib import admin
from django.urls import include, path

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
    path("", include("quotaweb.core.urls")),
]

handler404 = "quotaweb.core.views.not_found"
