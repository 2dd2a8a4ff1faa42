// Issue 22 item 12: an OAuth-capable client that meets the 401 must learn
// that a bearer token is needed, not start a flow that cannot succeed.
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/client';
import { rawRequest } from '../support/raw-http.js';
import { httpServerForSuite } from '../support/suite-http-server.js';

const TOKEN = 'oauth-probe-token-0123456789ab';
const NO_OAUTH = /dsh-tools offers no OAuth: it needs a static bearer token/;

const suite = httpServerForSuite({ token: TOKEN });

test('the challenge names protected-resource metadata that offers no authorization server', async () => {
  const refused = await rawRequest(suite.server.url, { body: '{}' });
  expect(refused.status).toBe(401);
  const metadataUrl = /resource_metadata="([^"]+)"/.exec(refused.headers['www-authenticate'] as string)?.[1];
  expect(metadataUrl).toBe(`${suite.server.url.origin}/.well-known/oauth-protected-resource/mcp`);
  const metadata = await fetch(metadataUrl!);
  expect(metadata.status).toBe(200);
  expect(await metadata.json()).toMatchObject({ resource: suite.server.url.href, authorization_servers: [], bearer_methods_supported: ['header'] });
  for (const discovery of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
    const reply = await fetch(new URL(discovery, suite.server.url));
    expect([discovery, reply.status]).toEqual([discovery, 404]);
  }
  const register = await fetch(new URL('/register', suite.server.url), { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
  expect(register.status).toBe(400);
  expect(await register.json()).toMatchObject({ error: 'invalid_request', error_description: expect.stringMatching(NO_OAUTH) });
});

test("the 2.x SDK's OAuth flow stops at its first step with the bearer-token message; no browser is opened", async () => {
  const redirected: URL[] = [];
  const provider: OAuthClientProvider = {
    redirectUrl: 'http://127.0.0.1:1/callback',
    clientMetadata: { client_name: 'probe', redirect_uris: ['http://127.0.0.1:1/callback'] },
    clientInformation: () => undefined,
    saveClientInformation: () => undefined,
    tokens: () => undefined,
    saveTokens: () => undefined,
    redirectToAuthorization: (url: URL) => void redirected.push(url),
    saveCodeVerifier: () => undefined,
    codeVerifier: () => '',
  };
  await expect(auth(provider, { serverUrl: suite.server.url })).rejects.toThrow(NO_OAUTH);
  expect(redirected).toEqual([]);
});
