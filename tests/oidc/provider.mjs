// A real OpenID Connect provider for the sign-in tests: panva's oidc-provider with one
// confidential client that must use PKCE, a "groups" scope and claim, RP-initiated logout, and
// the people of accounts.json (sign in as any of them with any password: the provider's
// development interactions). Configured from the environment by tests/oidc_provider.py:
//   OIDC_PORT                 where to listen (127.0.0.1)
//   OIDC_REDIRECT_URIS        the client's redirect URIs, space-separated
//   OIDC_POST_LOGOUT_URIS     where the provider may send a browser after logout, space-separated
//   OIDC_ID_TOKEN_TTL         seconds an ID token is valid (default 600)
//   OIDC_CLOCK_OFFSET         seconds the token endpoint's clock is off (negative: behind), so
//                             the ID tokens it issues are already expired when they arrive (the
//                             rest of the provider keeps the true time: its cookies must live)
// Prints "ready <issuer>" on stdout once it listens.
import { readFileSync } from 'node:fs';
import Provider from 'oidc-provider';

const port = Number(process.env.OIDC_PORT);
const issuer = `http://127.0.0.1:${port}`;
const words = (name) => (process.env[name] || '').split(' ').filter(Boolean);
const idTokenTtl = Number(process.env.OIDC_ID_TOKEN_TTL || 600);
const offset = Number(process.env.OIDC_CLOCK_OFFSET || 0);
const realNow = Date.now;

const accounts = JSON.parse(readFileSync(new URL('./accounts.json', import.meta.url)));

const provider = new Provider(issuer, {
  clients: [{
    client_id: 'quotaweb',
    client_secret: 'quotaweb-test-secret',
    redirect_uris: words('OIDC_REDIRECT_URIS'),
    post_logout_redirect_uris: words('OIDC_POST_LOGOUT_URIS'),
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
  }],
  // Every client, confidential ones too, must send a S256 code challenge.
  pkce: { required: () => true },
  claims: {
    openid: ['sub'],
    email: ['email', 'email_verified'],
    profile: ['name', 'preferred_username'],
    groups: ['groups'],
  },
  scopes: ['openid', 'email', 'profile', 'groups'],
  async findAccount(ctx, id) {
    const person = accounts[id];
    if (!person) return undefined;
    return {
      accountId: id,
      async claims() {
        return {
          sub: id,
          preferred_username: id,
          name: person.name,
          email: person.email,
          email_verified: true,
          groups: person.groups,
        };
      },
    };
  },
  ttl: { IdToken: idTokenTtl, AccessToken: 600, Interaction: 600, Session: 3600, Grant: 3600 },
  features: {
    devInteractions: { enabled: true },
    rpInitiatedLogout: { enabled: true },
  },
  cookies: { keys: ['quotaweb-tests-only'] },
});
// The tests talk plain HTTP on the loopback address.
provider.proxy = false;
if (offset) {
  provider.use(async (ctx, next) => {
    if (ctx.path !== '/token') return next();
    Date.now = () => realNow() + offset * 1000;
    try {
      return await next();
    } finally {
      Date.now = realNow;
    }
  });
}

provider.listen(port, '127.0.0.1', () => {
  process.stdout.write(`ready ${issuer}\n`);
});
