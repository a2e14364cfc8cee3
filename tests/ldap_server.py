"""A private OpenLDAP directory for the LDAP sign-in tests: Debian's ``slapd`` on free ports of
127.0.0.1 (plain with StartTLS, and ldaps), in a temporary folder with its own database, schema and
a test CA, filled with people and both kinds of groups. Never a machine's own directory.

The people (all with ``PASSWORD``): ``alice`` (in ml-researchers), ``bob`` (in hpc-admins and
ml-researchers), ``carol`` (in operators). Every group exists twice, as a posixGroup (memberUid)
under ``ou=groups`` and as a groupOfNames (member DNs) under ``ou=teams``.

``ldap_server`` (the fixture, registered in tests/conftest.py) skips with the reason when slapd is
missing, except under ``CI``, where the directory tests must run.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server_process import free_port

SLAPD = Path(os.environ.get("QUOTAWEB_TEST_SLAPD", "/usr/sbin/slapd"))
SCHEMA = Path("/etc/ldap/schema")
MODULES = Path("/usr/lib/ldap")
STARTUP_SECONDS = 30

SUFFIX = "dc=example,dc=org"
ROOT_DN = f"cn=admin,{SUFFIX}"
ROOT_PASSWORD = "root-secret"
READER_DN = f"cn=reader,{SUFFIX}"
READER_PASSWORD = "reader-secret"
PEOPLE = f"ou=people,{SUFFIX}"
POSIX_GROUPS = f"ou=groups,{SUFFIX}"
NAMED_GROUPS = f"ou=teams,{SUFFIX}"
PASSWORD = "directory-pass-1"
MEMBERS = {
    "ml-researchers": ["alice", "bob"],
    "hpc-admins": ["bob"],
    "operators": ["carol"],
}
PEOPLE_NAMES = {"alice": "Alice Liddell", "bob": "Bob Dylan", "carol": "Carol Shaw"}

CONFIG = """\
include {schema}/core.schema
include {schema}/cosine.schema
include {schema}/nis.schema
include {schema}/inetorgperson.schema
pidfile {folder}/slapd.pid
modulepath {modules}
moduleload back_mdb
TLSCACertificateFile {folder}/ca.pem
TLSCertificateFile {folder}/server.pem
TLSCertificateKeyFile {folder}/server.key
database mdb
maxsize 10485760
suffix "{suffix}"
rootdn "{root_dn}"
rootpw {root_password}
directory {folder}/db
access to attrs=userPassword by anonymous auth by * none
access to * by * read
"""


def slapd_missing() -> str | None:
    """Why a private slapd cannot be started here, or None."""
    if not SLAPD.exists() or not (SCHEMA / "nis.schema").exists():
        return (f"OpenLDAP's slapd is not installed ({SLAPD}, {SCHEMA}): "
                "apt-get install -y slapd ldap-utils")
    return None


def _test_ca(folder: Path) -> None:
    """A CA and a server certificate for 127.0.0.1 and localhost, as PEM files in ``folder``."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.UTC)

    def name(common: str) -> x509.Name:
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])

    def pem(certificate: x509.Certificate) -> bytes:
        return certificate.public_bytes(serialization.Encoding.PEM)

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder().subject_name(name("quotaweb test CA"))
        .issuer_name(name("quotaweb test CA")).public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(
            digital_signature=True, key_cert_sign=True, crl_sign=True, content_commitment=False,
            key_encipherment=False, data_encipherment=False, key_agreement=False,
            encipher_only=False, decipher_only=False,
        ), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    server = (
        x509.CertificateBuilder().subject_name(name("localhost")).issuer_name(ca.subject)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([
            x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
        ]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    (folder / "ca.pem").write_bytes(pem(ca))
    (folder / "server.pem").write_bytes(pem(server))
    (folder / "server.key").write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ))
    # A second CA that did not sign the server: a client trusting only it must refuse.
    other_key = ec.generate_private_key(ec.SECP256R1())
    other = (
        x509.CertificateBuilder().subject_name(name("another CA")).issuer_name(name("another CA"))
        .public_key(other_key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(other_key, hashes.SHA256())
    )
    (folder / "other-ca.pem").write_bytes(pem(other))


class LdapServer:
    def __init__(self) -> None:
        self.port = free_port()
        self.tls_port = free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="quotaweb-ldap-"))
        (self.folder / "db").mkdir()
        _test_ca(self.folder)
        (self.folder / "slapd.conf").write_text(CONFIG.format(
            schema=SCHEMA, folder=self.folder, modules=MODULES, suffix=SUFFIX, root_dn=ROOT_DN,
            root_password=ROOT_PASSWORD,
        ))
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"ldap://127.0.0.1:{self.port}"

    @property
    def ldaps_url(self) -> str:
        return f"ldaps://127.0.0.1:{self.tls_port}"

    @property
    def ca_file(self) -> str:
        return str(self.folder / "ca.pem")

    @property
    def other_ca_file(self) -> str:
        return str(self.folder / "other-ca.pem")

    def start(self) -> None:
        listen = f"ldap://127.0.0.1:{self.port}/ ldaps://127.0.0.1:{self.tls_port}/"
        # -d 0: in the foreground (a child of this process, so it cannot outlive the tests'
        # bookkeeping), logging nothing.
        self.process = subprocess.Popen(
            [str(SLAPD), "-d", "0", "-h", listen, "-f", str(self.folder / "slapd.conf")],
            stdout=subprocess.DEVNULL, stderr=open(self.folder / "slapd.log", "wb"),  # noqa: SIM115
        )
        deadline = time.monotonic() + STARTUP_SECONDS
        while True:
            try:
                self.connection().unbind_s()
                return
            except Exception:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    log = (self.folder / "slapd.log").read_text(errors="replace")
                    self.stop()
                    raise RuntimeError(f"slapd did not start: {log[-2000:]}") from None
                time.sleep(0.1)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self.process = None

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    def connection(self):
        """A connection bound as the directory's root (to change the entries)."""
        import ldap

        connection = ldap.initialize(self.url)
        connection.set_option(ldap.OPT_NETWORK_TIMEOUT, 5)
        connection.simple_bind_s(ROOT_DN, ROOT_PASSWORD)
        return connection

    # -- the entries -------------------------------------------------------------------------

    def fill(self) -> None:
        """The people and groups of the module's docstring, from an empty directory."""
        connection = self.connection()
        try:
            self._delete_below(connection, SUFFIX)
            add = _adder(connection)
            add(SUFFIX, objectClass=["dcObject", "organization"], dc="example", o="Example")
            add(READER_DN, objectClass=["organizationalRole", "simpleSecurityObject"],
                cn="reader", userPassword=READER_PASSWORD)
            for unit in (PEOPLE, POSIX_GROUPS, NAMED_GROUPS):
                add(unit, objectClass=["organizationalUnit"], ou=unit.split(",")[0][3:])
            for number, (uid, full) in enumerate(PEOPLE_NAMES.items()):
                self.person_add(uid, full_name=full, number=number, connection=connection)
            for number, (group, members) in enumerate(MEMBERS.items()):
                add(f"cn={group},{POSIX_GROUPS}", objectClass=["posixGroup"], cn=group,
                    gidNumber=str(5000 + number), memberUid=members)
                add(f"cn={group},{NAMED_GROUPS}", objectClass=["groupOfNames"], cn=group,
                    member=[f"uid={uid},{PEOPLE}" for uid in members])
        finally:
            connection.unbind_s()

    def person_add(self, uid: str, *, full_name: str, number: int = 50, connection=None) -> None:
        own = connection is None
        connection = connection or self.connection()
        try:
            first, _, last = full_name.partition(" ")
            _adder(connection)(
                f"uid={uid},{PEOPLE}", objectClass=["inetOrgPerson", "posixAccount"], uid=uid,
                cn=full_name, givenName=first, sn=last or first, mail=f"{uid}@example.org",
                uidNumber=str(1000 + number), gidNumber="5000", homeDirectory=f"/home/{uid}",
                userPassword=PASSWORD,
            )
        finally:
            if own:
                connection.unbind_s()

    def person_delete(self, uid: str) -> None:
        connection = self.connection()
        try:
            connection.delete_s(f"uid={uid},{PEOPLE}")
        finally:
            connection.unbind_s()

    def group_set(self, group: str, members: list[str]) -> None:
        """Make ``members`` the group's members, in both kinds of group."""
        import ldap

        connection = self.connection()
        try:
            connection.modify_s(f"cn={group},{POSIX_GROUPS}", [
                (ldap.MOD_REPLACE, "memberUid", [uid.encode() for uid in members] or None),
            ])
            # A groupOfNames needs a member: the reader stands in for nobody.
            names = [f"uid={uid},{PEOPLE}" for uid in members] or [READER_DN]
            connection.modify_s(f"cn={group},{NAMED_GROUPS}", [
                (ldap.MOD_REPLACE, "member", [name.encode() for name in names]),
            ])
        finally:
            connection.unbind_s()

    def _delete_below(self, connection, base: str) -> None:
        import ldap

        try:
            found = connection.search_s(base, ldap.SCOPE_SUBTREE, "(objectClass=*)", ["1.1"])
        except ldap.NO_SUCH_OBJECT:
            return
        # Deepest first: a parent with children cannot be deleted.
        for dn, _ in sorted(found, key=lambda item: -item[0].count(",")):
            connection.delete_s(dn)


def _adder(connection):
    def add(dn: str, **attributes) -> None:
        entry = [
            (name, [v.encode() for v in (value if isinstance(value, list) else [value])])
            for name, value in attributes.items()
        ]
        connection.add_s(dn, entry)

    return add


def ldap_environment(server: LdapServer, **overrides: str) -> dict[str, str]:
    """``QUOTAWEB_LDAP_*`` as a site would set them for this directory (search-then-bind with the
    reader, posix groups), with ``overrides`` (a value of "" removes the variable)."""
    environ = {
        "QUOTAWEB_LDAP_URL": server.url,
        "QUOTAWEB_LDAP_BIND_DN": READER_DN,
        "QUOTAWEB_LDAP_BIND_PASSWORD": READER_PASSWORD,
        "QUOTAWEB_LDAP_USER_BASE": PEOPLE,
        "QUOTAWEB_LDAP_GROUP_BASE": POSIX_GROUPS,
        "QUOTAWEB_LDAP_GROUP_TYPE": "posix",
        "QUOTAWEB_LDAP_CACHE_SECONDS": "60",
        "QUOTAWEB_LDAP_TIMEOUT_SECONDS": "5",
    }
    environ.update(overrides)
    return {name: value for name, value in environ.items() if value}


@pytest.fixture(scope="session")
def ldap_server() -> Iterator[LdapServer]:
    reason = slapd_missing()
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(f"{reason} (CI must run the LDAP tests)")
        pytest.skip(reason)
    server = LdapServer()
    server.start()
    try:
        yield server
    finally:
        server.remove()


@pytest.fixture
def ldap_directory(ldap_server: LdapServer) -> LdapServer:
    """The directory filled afresh for this test."""
    ldap_server.fill()
    return ldap_server


ADMIN_GROUPS = ["hpc-admins"]
VIEWER_GROUPS = ["operators"]
LDAP_BACKEND = "quotaweb.accounts.ldap_backend.QuotawebLDAPBackend"


def ldap_configure(settings, server: LdapServer, **overrides: str) -> None:
    """Point the site (pytest-django's ``settings``) at ``server`` as settings.py would from the
    environment, with hpc-admins as admins and operators as viewers."""
    from quotaweb.ldap_settings import auth_ldap_settings, ldap_settings

    settings.QUOTAWEB_ADMIN_GROUPS = ADMIN_GROUPS
    settings.QUOTAWEB_VIEWER_GROUPS = VIEWER_GROUPS
    values = ldap_settings(
        ldap_environment(server, **overrides), admin_groups=ADMIN_GROUPS,
        viewer_groups=VIEWER_GROUPS,
    )
    settings.QUOTAWEB_LDAP = values
    for name, value in auth_ldap_settings(values).items():
        setattr(settings, name, value)
    backends = [path for path in settings.AUTHENTICATION_BACKENDS if path != LDAP_BACKEND]
    settings.AUTHENTICATION_BACKENDS = [*backends, LDAP_BACKEND]


@pytest.fixture
def ldap_site(ldap_directory: LdapServer, settings) -> LdapServer:
    """The site signs in with the freshly filled test directory."""
    ldap_configure(settings, ldap_directory)
    return ldap_directory
