// Checks the JSON line a fixture's main prints after its real session.
const assert = require('node:assert');

const out = JSON.parse(require('node:fs').readFileSync(0, 'utf8').trim().split('\n').pop());
assert.strictEqual(out.echo, 'hello from consumer-1');
assert.strictEqual(out.exitCode, 0);
assert.match(out.usage, /^data\.bin: \d+ KiB$/);
assert.deepStrictEqual(out.audited, ['echo "hello from $DSH_SESSION_ID"', 'du -sk "data.bin"']);
assert.ok(out.sections.includes('tool:disk_usage'), 'the consumer prompt section is assembled');
console.log('session: ok');
