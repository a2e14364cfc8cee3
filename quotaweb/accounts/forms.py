"""The login form: Django's, with messages that say exactly what is wrong."""

from __future__ import annotations

from django.contrib.auth.forms import AuthenticationForm

ERR_USERNAME_REQUIRED = "Enter your username."
ERR_PASSWORD_REQUIRED = "Enter your password."
# Deliberately the same for an unknown user and a wrong password: telling them apart would let
# anyone probe which usernames exist.
ERR_INVALID_LOGIN = (
    "The username or the password is not correct. Both are case-sensitive; check Caps Lock."
)
ERR_INACTIVE = "This account is disabled. Ask a quota admin to enable it."


class LoginForm(AuthenticationForm):
    error_messages = {"invalid_login": ERR_INVALID_LOGIN, "inactive": ERR_INACTIVE}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["username"].error_messages["required"] = ERR_USERNAME_REQUIRED
        self.fields["password"].error_messages["required"] = ERR_PASSWORD_REQUIRED
        self.fields["username"].widget.attrs["autocomplete"] = "username"
