// Plain CommonJS require() of every entry point, as a JavaScript service would.
const assert = require('node:assert');
const dsh = require('dsh-tools');
const testing = require('dsh-tools/testing');
const mcp = require('dsh-tools/mcp');

assert.strictEqual(typeof dsh.createHost, 'function');
assert.strictEqual(typeof dsh.decorate, 'function');
assert.strictEqual(typeof testing.ScriptedExecutor, 'function');
assert.strictEqual(typeof mcp.serveStdio, 'function');
assert.strictEqual(dsh.McpConnection, undefined, 'the MCP server lives in dsh-tools/mcp only');
console.log('require: ok');
