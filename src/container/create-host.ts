import type { ContainerModule } from 'inversify';
import { DshHost } from './dsh-host.js';

/** The composition root: a host with the given plugins loaded, in order, and warmed up (`host.warmUp()`). */
export async function createHost(...modules: ContainerModule[]): Promise<DshHost> {
  const host = new DshHost();
  try {
    await host.load(...modules);
    // The command rules' parser loads here, not in the first call (docs/embedding.md, "Tests").
    await host.warmUp();
  } catch (error) {
    await host.dispose();
    throw error;
  }
  return host;
}

export { replace, decorate, type ProviderSpec } from './provider-swap.js';
