from django.urls import path

from quotaweb.accounts import views

app_name = "accounts"

urlpatterns = [
    path("login/", views.LoginView.as_view(), name="login"),
    path("logout/", views.LogoutView.as_view(), name="logout"),
    path("oidc/login/", views.oidc_login, name="oidc_login"),
    path("oidc/callback/", views.oidc_callback, name="oidc_callback"),
    path("sign-ins/", views.audit, name="audit"),
    path("token/", views.personal_token, name="token"),
]
