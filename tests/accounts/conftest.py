"""The OpenID Connect provider fixtures (tests/accounts/oidc_flow.py) for this folder's tests."""

from tests.accounts.oidc_flow import oidc_on, oidc_provider

__all__ = ["oidc_on", "oidc_provider"]
