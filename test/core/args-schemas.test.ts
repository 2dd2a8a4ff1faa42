// The argument schemas `npm run build` caches (dist/core/arg-schemas.json)
// must be exactly what the generator makes from the argument classes now, so
// the cache can never drift from the classes.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { argsSchemaOf, prepareArgsSchemas } from '../../src/core/args-schemas.js';
import { argsSchema } from '../../src/core/tool-schema.js';
import { ensureBuilt, ROOT } from '../support/built-server.js';
import { EchoArgs } from '../support/echo-tool.js';

/** Every class exported by an argument module under src/tools, by name. */
async function packageArgumentClasses(): Promise<Map<string, new () => object>> {
  const tools = path.join(ROOT, 'src/tools');
  const files = readdirSync(tools, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('-args.ts'));
  const classes = new Map<string, new () => object>();
  for (const file of files) {
    const exports = (await import(path.join(tools, file))) as Record<string, unknown>;
    for (const value of Object.values(exports)) {
      if (typeof value === 'function' && /^class\b/.test(Function.prototype.toString.call(value))) {
        classes.set(value.name, value as new () => object);
      }
    }
  }
  return classes;
}

describe('argument schemas cached at build time', () => {
  it('equal the schemas generated now from every argument class of the package', async () => {
    ensureBuilt();
    const cached = JSON.parse(readFileSync(path.join(ROOT, 'dist/core/arg-schemas.json'), 'utf8')) as Record<string, unknown>;
    const classes = await packageArgumentClasses();
    expect(Object.keys(cached).sort()).toEqual([...classes.keys()].sort());
    for (const [name, argsClass] of classes) expect({ [name]: cached[name] }).toEqual({ [name]: argsSchema(argsClass) });
  });

  it('leave a class they do not hold to the generator, loaded by prepareArgsSchemas', async () => {
    await prepareArgsSchemas([EchoArgs]);
    expect(argsSchemaOf(EchoArgs)).toEqual(argsSchema(EchoArgs));
    expect(argsSchemaOf(EchoArgs)).toMatchObject({ additionalProperties: false, required: ['text'] });
  });
});
