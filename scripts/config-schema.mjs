// Writes docs/config.schema.json from the loader's key table (run after `npm run build`);
// test/plugins/config/config-schema.test.ts fails while the shipped copy differs.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { configSchema } from '../dist/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
writeFileSync(path.join(root, 'docs/config.schema.json'), `${JSON.stringify(configSchema(), null, 2)}\n`);
