"""Login and logout: Django's auth views with quotaweb's templates and messages."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import views as auth_views

from quotaweb.accounts.forms import LoginForm

MSG_LOGGED_OUT = "You are logged out."


class LoginView(auth_views.LoginView):
    template_name = "accounts/login.html"
    authentication_form = LoginForm


class LogoutView(auth_views.LogoutView):
    # Django's LogoutView accepts POST only: a link or an image tag cannot log anyone out.

    def post(self, request, *args, **kwargs):
        response = super().post(request, *args, **kwargs)
        # Added after the session was flushed, so the message survives into the next page.
        messages.info(request, MSG_LOGGED_OUT)
        return response
