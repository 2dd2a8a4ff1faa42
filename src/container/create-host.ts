import type { ContainerModule } from 'inversify';
import { DshHost } from './dsh-host.js';

/** The composition root: a host with the given plugins loaded, in order. */
export async function createHost(...modules: ContainerModule[]): Promise<DshHost> {
  const host = new DshHost();
  try {
    await host.load(...modules);
  } catch (error) {
    await host.dispose();
    throw error;
  }
  return host;
}

export { replace, decorate, type ProviderSpec } from './provider-swap.js';
