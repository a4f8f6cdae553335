// Minimal local OpenID Connect provider for browser tests (oidc-provider 9.x).
// Env: OIDC_PORT, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OIDC_REDIRECT_URI,
//      OIDC_USERS_FILE (JSON, re-read on every lookup), OIDC_ADMIN_TOKEN (optional).
import http from 'node:http';
import fs from 'node:fs';
import crypto from 'node:crypto';
import Provider from 'oidc-provider';

const PORT = Number(process.env.OIDC_PORT || 9400);
const ISSUER = `http://127.0.0.1:${PORT}`;
const CLIENT_ID = process.env.OIDC_CLIENT_ID || 'knotroute';
const CLIENT_SECRET = process.env.OIDC_CLIENT_SECRET || 'knotroute-secret';
const REDIRECT_URI = process.env.OIDC_REDIRECT_URI || 'http://127.0.0.1:8080/auth/oidc/callback';
const USERS_FILE = process.env.OIDC_USERS_FILE || new URL('./users.example.json', import.meta.url).pathname;
const ADMIN_TOKEN = process.env.OIDC_ADMIN_TOKEN || '';
const NS = 'https://knotroute.example/claims';

// users.json: { "alice": { "password": "...", "name": "...", "email": "...", "groups": ["..."] }, ... }
// Read on every call, so a test can edit the file (or PUT /admin/users) between sign-ins.
function loadUsers() {
  return JSON.parse(fs.readFileSync(USERS_FILE, 'utf8'));
}

const esc = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

// Signing key generated per process (tests fetch JWKS via discovery anyway).
const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'test-key-1', use: 'sig', alg: 'RS256' };

const configuration = {
  clients: [{
    client_id: CLIENT_ID,
    client_secret: CLIENT_SECRET,
    redirect_uris: [REDIRECT_URI],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
  }],
  jwks: { keys: [jwk] },
  // Cookies ignore ports: prefix names so they never clash with the app's cookies on 127.0.0.1.
  cookies: {
    keys: ['test-only-cookie-key-do-not-reuse'],
    names: { session: 'idp_session', interaction: 'idp_interaction', resume: 'idp_interaction_resume' },
  },
  responseTypes: ['code'],
  pkce: { required: () => true }, // 9.x only supports S256
  // Each key with an array value becomes a scope; the array lists the claims it releases.
  claims: {
    openid: ['sub'],
    profile: ['name'],
    email: ['email', 'email_verified'],
    groups: ['groups', NS],
  },
  // Default true => in the code flow the id_token only has sub and scope claims go to /me only.
  // OIDC_CLAIMS_IN_USERINFO=1 keeps that default, as many providers do: Control then reads
  // the groups from userinfo.
  conformIdTokenClaims: process.env.OIDC_CLAIMS_IN_USERINFO === '1',
  features: { devInteractions: { enabled: false } }, // dev login ignores the password
  interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
  // Skip consent: first-party client, grant every scope it may ask for.
  async loadExistingGrant(ctx) {
    const grantId = ctx.oidc.result?.consent?.grantId
      || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
    let grant = grantId ? await ctx.oidc.provider.Grant.find(grantId) : undefined;
    if (!grant) {
      grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client.clientId,
        accountId: ctx.oidc.session.accountId,
      });
    }
    grant.addOIDCScope('openid profile email groups');
    await grant.save();
    return grant;
  },
  async findAccount(ctx, sub) {
    const u = loadUsers()[sub];
    if (!u) return undefined; // user deleted => token/userinfo fail
    return {
      accountId: sub,
      async claims() {
        return {
          sub,
          name: u.name,
          email: u.email,
          email_verified: true,
          groups: u.groups,
          [NS]: { groups: u.groups },
        };
      },
    };
  },
  ttl: { Session: 3600, Interaction: 600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
  renderError(ctx, out) {
    ctx.type = 'html';
    ctx.body = `<!doctype html><title>error</title><h1>${esc(out.error)}</h1><p>${esc(out.error_description || '')}</p>`;
  },
};

const provider = new Provider(ISSUER, configuration);
const providerCallback = provider.callback();

function loginPage(uid, error, login = '') {
  return `<!doctype html><html><head><title>Test IdP sign-in</title></head><body>
<h1>Test IdP sign-in</h1>${error ? `<p id="error" role="alert">${esc(error)}</p>` : ''}
<form method="post" action="/interaction/${esc(uid)}/login">
  <label>Username <input name="login" autocomplete="username" value="${esc(login)}" required></label>
  <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
  <button type="submit">Sign in</button>
</form></body></html>`;
}

async function readBody(req) {
  let body = '';
  for await (const chunk of req) body += chunk;
  return body;
}

const send = (res, status, body, type = 'text/html; charset=utf-8') => {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
};

const server = http.createServer(async (req, res) => {
  try {
    const url = new URL(req.url, ISSUER);
    let m;
    if (req.method === 'GET' && (m = url.pathname.match(/^\/interaction\/([\w-]+)$/))) {
      const details = await provider.interactionDetails(req, res);
      if (details.prompt.name !== 'login') {
        // consent never happens (loadExistingGrant), but fail loudly if it does
        return send(res, 501, `unexpected prompt ${esc(details.prompt.name)}`);
      }
      return send(res, 200, loginPage(details.uid, '', details.params.login_hint || ''));
    }
    if (req.method === 'POST' && (m = url.pathname.match(/^\/interaction\/([\w-]+)\/login$/))) {
      const details = await provider.interactionDetails(req, res);
      const form = new URLSearchParams(await readBody(req));
      const login = form.get('login') || '';
      const user = loadUsers()[login];
      const ok = user && crypto.timingSafeEqual(
        crypto.createHash('sha256').update(form.get('password') || '').digest(),
        crypto.createHash('sha256').update(user.password).digest(),
      );
      if (!ok) return send(res, 200, loginPage(details.uid, 'Invalid username or password', login));
      return await provider.interactionFinished(req, res, { login: { accountId: login } },
        { mergeWithLastSubmission: false });
    }
    if (url.pathname === '/admin/users' && ADMIN_TOKEN
        && req.headers.authorization === `Bearer ${ADMIN_TOKEN}`) {
      if (req.method === 'GET') return send(res, 200, fs.readFileSync(USERS_FILE, 'utf8'), 'application/json');
      if (req.method === 'PUT') {
        const body = await readBody(req);
        JSON.parse(body); // validate
        fs.writeFileSync(USERS_FILE, body);
        return send(res, 204, '');
      }
    }
    return providerCallback(req, res);
  } catch (err) {
    console.error(err);
    if (!res.headersSent) send(res, 500, `error: ${esc(err.message)}`, 'text/plain');
  }
});

server.listen(PORT, '127.0.0.1', () => {
  console.log(`oidc test provider ${ISSUER} client=${CLIENT_ID} redirect=${REDIRECT_URI} users=${USERS_FILE}`);
});
