/**
 * Credential-shaped names: scrubbed from every child env, and their values
 * redacted from every model-visible text (see pattern-redactor.ts).
 * `PASS` covers PASSWORD, PASSWD and PASSPHRASE; `_PWD` as a suffix only, so
 * the shell's own `PWD`/`OLDPWD` stay, and `AUTHOR` (git's
 * `GIT_AUTHOR_NAME`) is not `AUTH`. `_HEADERS` (and `_HEADER`) as a suffix:
 * by convention such a variable carries request headers for a client to
 * send, i.e. an `Authorization` (`OTEL_EXPORTER_OTLP_HEADERS`).
 */
const CREDENTIAL_PATTERN = /KEY|TOKEN|SECRET|PASS|CREDENTIAL|AUTH(?!OR)|COOKIE|PRIVATE|_PWD$|_HEADERS?$/i;
/** Names that match but hold the path to an agent or file, not a credential: ssh and X keep working. */
const NOT_CREDENTIALS: ReadonlySet<string> = new Set(['SSH_AUTH_SOCK', 'XAUTHORITY']);
/**
 * A URL anywhere in a value whose userinfo holds a password
 * (`scheme://user:password@host`), or only a name where the name is how a
 * token travels (`https://<token>@host`); an ssh login name (`ssh://git@host`)
 * is no secret.
 */
const URL_WITH_USERINFO = /(?:^|[\s,;'"=(])([a-z][a-z0-9+.-]*):\/\/([^\s/?#@]+)@/gi;
const SSH_SCHEMES: ReadonlySet<string> = new Set(['ssh', 'git+ssh', 'ssh+git', 'sftp', 'scp']);

export function isCredentialName(name: string): boolean {
  return CREDENTIAL_PATTERN.test(name) && !NOT_CREDENTIALS.has(name);
}

/** A credential by its name, or by a value carrying a URL with a password or a token in it. */
export function isCredential(name: string, value: string): boolean {
  return isCredentialName(name) || carriesUrlCredential(value);
}

function carriesUrlCredential(value: string): boolean {
  for (const [, scheme, userinfo] of value.matchAll(URL_WITH_USERINFO)) {
    if (userinfo!.includes(':') || !SSH_SCHEMES.has(scheme!.toLowerCase())) return true;
  }
  return false;
}
