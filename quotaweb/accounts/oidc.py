"""OpenID Connect sign-in through Authlib's Django client (docs/authentication.md says why).

The flow: ``oidc_authorization_redirect`` finds the provider from its issuer (discovery), and
sends the browser there with a fresh state, a nonce and a S256 PKCE challenge, all three kept in
the session; ``oidc_person`` takes the provider's answer, refuses it unless its state is this
session's, exchanges the code (with the PKCE verifier), checks the ID token's signature against
the provider's keys, its issuer, audience, expiry and nonce, and reads the person's name and
groups. ``oidc_logout_url`` is where the browser goes to end the provider's session too.

Every call to the provider has ``QUOTAWEB_OIDC_TIMEOUT_SECONDS`` as its bound; one that fails or
runs out is ``OidcUnavailable``, an answer that must not be trusted is ``OidcRefused``. Both carry
a message for the person; neither carries a token.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
from collections.abc import Mapping
from typing import Any

import requests
from authlib.integrations.base_client.errors import MismatchingStateError, OAuthError
from authlib.integrations.django_client import OAuth
from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.http import HttpRequest, HttpResponse
from joserfc.errors import ExpiredTokenError, InvalidClaimError, JoseError, MissingClaimError

from quotaweb.accounts.directory import DirectoryUserRefused, directory_user_sync
from quotaweb.accounts.models import AuthEvent, DirectoryIdentity
from quotaweb.accounts.services import auth_event_record

logger = logging.getLogger(__name__)
SOURCE_OIDC = DirectoryIdentity.SOURCE_OIDC

ERR_NOT_CONFIGURED = "Single sign-on is not configured on this site (QUOTAWEB_OIDC_ISSUER)."
ERR_UNAVAILABLE = (
    "{name} is not available right now ({why}), so signing in through it is not possible. "
    "Nothing was changed. Try again in a minute; local accounts can still sign in here."
)
ERR_STATE = (
    "This sign-in was refused: the answer from {name} does not belong to a sign-in this browser "
    "started (its state does not match; an old or copied link, or a sign-in started in another "
    "browser). Nothing was changed; start again with the button."
)
ERR_NONCE = (
    "This sign-in was refused: the ID token from {name} was not issued for this sign-in (its "
    "nonce does not match). Nothing was changed; start again with the button."
)
ERR_EXPIRED = (
    "This sign-in was refused: the ID token from {name} had already expired when it arrived "
    "(check that the provider's clock and this server's agree). Nothing was changed; sign in again."
)
ERR_ID_TOKEN = (
    "This sign-in was refused: the ID token from {name} failed its checks ({why}). Nothing was "
    "changed."
)
ERR_NO_ID_TOKEN = "This sign-in was refused: {name} sent no ID token. Nothing was changed."
ERR_PROVIDER_SAID = "{name} did not sign you in: {why}. Nothing was changed."
ERR_NO_USERNAME = (
    "This sign-in was refused: {name} sent no {claim} claim to name you by "
    "(QUOTAWEB_OIDC_USERNAME_CLAIM). Nothing was changed."
)
ERR_GROUPS_CLAIM = (
    "This sign-in was refused: the {claim} claim from {name} is not a list of group names "
    "(QUOTAWEB_OIDC_GROUPS_CLAIM). Nothing was changed."
)

ERR_DIRECTORY_REFUSED = "This sign-in was refused: {why}"


class OidcFailure(Exception):
    """A sign-in through the provider that did not happen. ``message`` is for the person,
    ``reason`` a short word for the audit log."""

    def __init__(self, message: str, *, reason: str):
        super().__init__(message)
        self.message = message
        self.reason = reason


class OidcUnavailable(OidcFailure):
    """The provider could not be reached or did not answer in time."""


class OidcRefused(OidcFailure):
    """The provider's answer is not one to trust."""


@dataclasses.dataclass(frozen=True)
class OidcPerson:
    username: str
    groups: tuple[str, ...]
    email: str
    full_name: str
    # Kept in the session only, for the provider's logout (id_token_hint).
    id_token: str


def oidc_enabled() -> bool:
    return bool(getattr(settings, "QUOTAWEB_OIDC_ISSUER", None))


@functools.lru_cache(maxsize=4)
def _client(
    issuer: str, client_id: str, client_secret: str, scopes: str, timeout: int
) -> Any:
    # One client per configuration, kept for the process: it holds the discovery document and
    # the provider's keys once fetched (a key it does not know makes Authlib fetch them again).
    registry = OAuth()
    return registry.register(
        name="oidc",
        client_id=client_id,
        client_secret=client_secret,
        server_metadata_url=f"{issuer.rstrip('/')}/.well-known/openid-configuration",
        client_kwargs={
            "scope": scopes,
            "code_challenge_method": "S256",
            "default_timeout": timeout,
        },
    )


def oidc_client() -> Any:
    if not oidc_enabled():
        raise OidcUnavailable(ERR_NOT_CONFIGURED, reason="not-configured")
    return _client(
        settings.QUOTAWEB_OIDC_ISSUER,
        settings.QUOTAWEB_OIDC_CLIENT_ID,
        settings.QUOTAWEB_OIDC_CLIENT_SECRET,
        " ".join(settings.QUOTAWEB_OIDC_SCOPES),
        settings.QUOTAWEB_OIDC_TIMEOUT_SECONDS,
    )


def _name() -> str:
    return settings.QUOTAWEB_OIDC_NAME


def _unavailable(error: Exception) -> OidcUnavailable:
    if isinstance(error, requests.Timeout):
        why = f"no answer within {settings.QUOTAWEB_OIDC_TIMEOUT_SECONDS} s"
    elif isinstance(error, requests.ConnectionError):
        why = "it cannot be reached"
    elif isinstance(error, requests.HTTPError) and error.response is not None:
        why = f"it answered HTTP {error.response.status_code}"
    else:
        why = "its answer could not be read"
    return OidcUnavailable(ERR_UNAVAILABLE.format(name=_name(), why=why), reason="unavailable")


# What a provider that is away or broken raises inside Authlib: requests' errors, a document
# that is not JSON (ValueError), or one without the endpoints it must name (RuntimeError, KeyError).
_TRANSPORT_ERRORS = (requests.RequestException, ValueError, RuntimeError, KeyError)


def oidc_authorization_redirect(*, request: HttpRequest, redirect_uri: str) -> HttpResponse:
    """The redirect that starts a sign-in at the provider (state, nonce and PKCE verifier saved
    in the session)."""
    client = oidc_client()
    try:
        return client.authorize_redirect(request, redirect_uri)
    except _TRANSPORT_ERRORS as error:
        raise _unavailable(error) from None


def _id_token_refusal(error: JoseError) -> OidcRefused:
    if isinstance(error, ExpiredTokenError):
        return OidcRefused(ERR_EXPIRED.format(name=_name()), reason="id-token-expired")
    if isinstance(error, (InvalidClaimError, MissingClaimError)) and error.claim == "nonce":
        return OidcRefused(ERR_NONCE.format(name=_name()), reason="nonce-mismatch")
    why = error.description or error.error.replace("_", " ")
    return OidcRefused(ERR_ID_TOKEN.format(name=_name(), why=why), reason="id-token-invalid")


def _claim_groups(claims: Mapping[str, Any]) -> tuple[str, ...] | None:
    claim = settings.QUOTAWEB_OIDC_GROUPS_CLAIM
    if claim not in claims:
        return None
    value = claims[claim]
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise OidcRefused(
            ERR_GROUPS_CLAIM.format(claim=claim, name=_name()), reason="groups-claim-invalid"
        )
    return tuple(dict.fromkeys(item for item in value if item))


def oidc_person(*, request: HttpRequest) -> OidcPerson:
    """Who the provider's answer on the redirect URI signs in, after every check."""
    client = oidc_client()
    name = _name()
    # Authlib reads an error answer before the state: without this, a crafted link could put
    # any text on quotaweb's login page as the provider's "error_description".
    if client.framework.get_state_data(request.session, request.GET.get("state")) is None:
        raise OidcRefused(ERR_STATE.format(name=name), reason="state-mismatch")
    try:
        token = client.authorize_access_token(
            request, leeway=settings.QUOTAWEB_OIDC_CLOCK_SKEW_SECONDS
        )
    except MismatchingStateError:
        raise OidcRefused(ERR_STATE.format(name=name), reason="state-mismatch") from None
    except OAuthError as error:
        why = error.description or error.error
        raise OidcRefused(
            ERR_PROVIDER_SAID.format(name=name, why=why), reason=f"provider:{error.error}"
        ) from None
    except JoseError as error:
        raise _id_token_refusal(error) from None
    except _TRANSPORT_ERRORS as error:
        raise _unavailable(error) from None
    # Authlib checks the ID token only when both it and the nonce are there; without them there
    # is nothing to trust.
    claims = token.get("userinfo")
    if not token.get("id_token") or claims is None:
        raise OidcRefused(ERR_NO_ID_TOKEN.format(name=name), reason="no-id-token")
    claims = dict(claims)
    groups = _claim_groups(claims)
    if groups is None or settings.QUOTAWEB_OIDC_USERNAME_CLAIM not in claims:
        # Many providers (oidc-provider, Entra ID, Keycloak without the mapper's "add to ID
        # token") put these claims in the userinfo answer only.
        try:
            userinfo = client.userinfo(token=token)
        except _TRANSPORT_ERRORS as error:
            raise _unavailable(error) from None
        # The ID token's subject is the one checked; userinfo about someone else is refused.
        if userinfo.get("sub") != claims.get("sub"):
            raise OidcRefused(
                ERR_ID_TOKEN.format(name=name, why="userinfo names another subject"),
                reason="userinfo-subject",
            )
        claims = {**dict(userinfo), **claims}
        groups = _claim_groups(claims) or ()
    username = claims.get(settings.QUOTAWEB_OIDC_USERNAME_CLAIM)
    if not isinstance(username, str) or not username:
        raise OidcRefused(
            ERR_NO_USERNAME.format(name=name, claim=settings.QUOTAWEB_OIDC_USERNAME_CLAIM),
            reason="no-username",
        )
    return OidcPerson(
        username=username,
        groups=groups,
        email=str(claims.get("email") or ""),
        full_name=str(claims.get("name") or ""),
        id_token=token["id_token"],
    )


def oidc_logout_url(*, id_token: str, post_logout_redirect_uri: str) -> str | None:
    """The provider's end-session URL for this sign-in, or None when the provider has none (or
    cannot be asked now): then the sign-out is quotaweb's alone."""
    try:
        client = oidc_client()
        metadata = client.load_server_metadata()
    except (OidcFailure, *_TRANSPORT_ERRORS):
        return None
    if not metadata.get("end_session_endpoint"):
        return None
    result = client.create_logout_url(
        post_logout_redirect_uri=post_logout_redirect_uri, id_token_hint=id_token
    )
    return str(result["url"])


def oidc_user_sign_in(*, person: OidcPerson, address: str | None) -> AbstractUser:
    """The Django user for a person the provider signed in, with their groups as of now (and so
    their role). Raises ``OidcRefused`` for a name that is a
    local account, recorded as a refused sign-in."""
    try:
        user = directory_user_sync(
            username=person.username, groups=person.groups, source=SOURCE_OIDC,
            email=person.email, full_name=person.full_name,
        )
    except DirectoryUserRefused as refused:
        failure = OidcRefused(
            ERR_DIRECTORY_REFUSED.format(why=refused), reason="local-account-name"
        )
        oidc_refusal_record(failure=failure, address=address, username=person.username)
        raise failure from None
    # The audit's line for the sign-in itself comes from Django's user_logged_in signal
    # (quotaweb.accounts.signals), as for every other way in.
    logger.info(
        "OpenID Connect sign-in: %s (groups: %s)", person.username,
        ", ".join(person.groups) or "none",
    )
    return user


def oidc_refusal_record(
    *, failure: OidcFailure, address: str | None, username: str = ""
) -> None:
    """A sign-in through the provider that did not happen, in the audit and the log (the
    reason only: never a code, a token or the provider's answer)."""
    auth_event_record(
        kind=AuthEvent.KIND_DENIED, username=username or "(unknown)", source=SOURCE_OIDC,
        detail=failure.reason, address=address,
    )
    logger.warning(
        "OpenID Connect sign-in refused (%s)%s", failure.reason,
        f" for {username}" if username else "",
    )
