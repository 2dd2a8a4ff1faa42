// The version constant the MCP server reports stays equal to package.json's.
import { readFileSync } from 'node:fs';
import { PACKAGE_VERSION } from '../src/version.js';
import { SERVER_INFO } from '../src/mcp/sessions/server-info.js';

it('PACKAGE_VERSION matches package.json and is what the server reports', () => {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  expect(PACKAGE_VERSION).toBe(version);
  expect(SERVER_INFO.version).toBe(version);
});
