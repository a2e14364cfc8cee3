"""The login form: Django's, with messages that say exactly what is wrong."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm

from quotaweb.accounts.backends import local_password_allowed

ERR_USERNAME_REQUIRED = "Enter your username."
ERR_PASSWORD_REQUIRED = "Enter your password."
# Deliberately the same for an unknown user and a wrong password: telling them apart would let
# anyone probe which usernames exist.
ERR_INVALID_LOGIN = (
    "The username or the password is not correct. Both are case-sensitive; check Caps Lock."
)
ERR_INACTIVE = "This account is disabled. Ask a quota admin to enable it."
ERR_LOCAL_LOGIN_OFF = (
    "Signing in with a password of this site is turned off (QUOTAWEB_LOCAL_LOGIN=0): sign in "
    "with the button above. Only the break-glass accounts (QUOTAWEB_BREAK_GLASS_USERS) may use "
    "a password here."
)


class LoginForm(AuthenticationForm):
    error_messages = {"invalid_login": ERR_INVALID_LOGIN, "inactive": ERR_INACTIVE}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["username"].error_messages["required"] = ERR_USERNAME_REQUIRED
        self.fields["password"].error_messages["required"] = ERR_PASSWORD_REQUIRED
        self.fields["username"].widget.attrs["autocomplete"] = "username"

    def clean(self):
        username = self.cleaned_data.get("username")
        # With LDAP the form is also for directory passwords; its backend decides those, and
        # LocalPasswordBackend still refuses local ones.
        if username and not settings.QUOTAWEB_LDAP and not (
            local_password_allowed(username=username)
        ):
            raise forms.ValidationError(ERR_LOCAL_LOGIN_OFF, code="local_login_off")
        return super().clean()
