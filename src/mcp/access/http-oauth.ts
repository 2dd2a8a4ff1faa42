import type { IncomingMessage, ServerResponse } from 'node:http';
import { replyJsonRpc } from '../transport/http-replies.js';

/*
 * This server takes a static bearer token and offers no OAuth. A client that
 * can do OAuth reads a 401 as "start an OAuth flow": it fetches the
 * protected-resource metadata (RFC 9728), then an authorization server's
 * metadata, then registers itself. Every one of those steps is answered
 * here, each saying the same thing: no authorization server is offered,
 * send the token. The metadata names none (`authorization_servers: []`),
 * the authorization-server discovery paths are 404 with an OAuth error body,
 * and registration/token/authorize get `invalid_request` with the
 * explanation — so the client stops at its first step with a message that
 * says a bearer token is needed, instead of opening a browser.
 */

/** The error description every refusal carries. */
export const NO_OAUTH =
  'dsh-tools offers no OAuth: it needs a static bearer token in the header "Authorization: Bearer <token>" (see the server\'s stderr for the token file)';

const RESOURCE_METADATA = '/.well-known/oauth-protected-resource';
const AUTHORIZATION_METADATA = ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'];
const FLOW_ENDPOINTS = ['/register', '/token', '/authorize'];

/** The answer to a request without the right token: 401, a challenge naming the metadata, and why. */
export function refuseUnauthorized(req: IncomingMessage, res: ServerResponse, mcpPath: string): void {
  const metadata = `${originOf(req)}${RESOURCE_METADATA}${mcpPath}`;
  res.setHeader(
    'www-authenticate',
    `Bearer realm="dsh-tools", error="invalid_token", error_description="${NO_OAUTH.replace(/"/g, "'")}", resource_metadata="${metadata}"`,
  );
  replyJsonRpc(res, 401, -32001, 'unauthorized: send "Authorization: Bearer <token>" (see the server\'s stderr for the token file); this server offers no OAuth');
}

/** Answers the OAuth discovery and flow paths (true when `pathname` was one of them). No token needed: they reveal nothing. */
export function answerOAuthPath(pathname: string, req: IncomingMessage, res: ServerResponse, mcpPath: string): boolean {
  if (pathname === RESOURCE_METADATA || pathname === `${RESOURCE_METADATA}${mcpPath}`) {
    const body = {
      resource: `${originOf(req)}${mcpPath}`,
      authorization_servers: [],
      bearer_methods_supported: ['header'],
      resource_name: 'dsh-tools',
      resource_documentation: NO_OAUTH,
    };
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
    return true;
  }
  if (AUTHORIZATION_METADATA.some((prefix) => pathname === prefix || pathname.startsWith(`${prefix}/`))) {
    res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'invalid_request', error_description: NO_OAUTH }));
    return true;
  }
  if (FLOW_ENDPOINTS.includes(pathname)) {
    res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'invalid_request', error_description: NO_OAUTH }));
    return true;
  }
  return false;
}

/** The origin the client reached this server by (the Host header has passed the allow-list by now). */
function originOf(req: IncomingMessage): string {
  const https = req.headers['x-forwarded-proto'] === 'https';
  return `${https ? 'https' : 'http'}://${req.headers.host ?? '127.0.0.1'}`;
}
