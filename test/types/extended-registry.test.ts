// An application extends the typed tool registry with its own tool (by
// declaration merging): `session.call` then types its arguments and value.
import { createHost, PluginModule, type ToolValue, type ToolArgs } from '../../src/index.js';

declare module '../../src/index.js' {
  interface ToolValueTypes {
    disk_usage: { readonly path: string; readonly kilobytes: number };
  }
  interface ToolArgTypes {
    disk_usage: { readonly path: string };
  }
}

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const valueTyped: Equal<ToolValue<'disk_usage'>, { readonly path: string; readonly kilobytes: number }> = true;
const argsTyped: Equal<ToolArgs<'disk_usage'>, { readonly path: string }> = true;

it('an application tool is typed by name once the application declares it', async () => {
  expect([valueTyped, argsTyped]).toEqual([true, true]);
  const host = await createHost(new PluginModule('empty', () => undefined));
  try {
    const result = await host.call('disk_usage', { path: 'dist' });
    // @ts-expect-error: a wrong argument type is a compile error for the declared tool
    void (() => host.call('disk_usage', { path: 1 }));
    const kilobytes: number | undefined = result.value?.kilobytes;
    expect(kilobytes).toBeUndefined();
    expect(result.content[0]!.text).toBe('Error: unknown tool "disk_usage"');
  } finally {
    await host.dispose();
  }
});
