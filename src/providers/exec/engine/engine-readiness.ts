import type { ReadinessCheck } from '../../health/readiness-check.js';
import type { ContainerEngine } from './container-engine.js';

/** Ready while the engine answers a version request; the reason never carries the engine's endpoint or error text. */
export function engineReadinessCheck(engine: ContainerEngine): ReadinessCheck {
  return {
    name: 'container engine',
    check: () =>
      engine.info().then(
        () => undefined,
        () => 'the container engine does not answer',
      ),
  };
}
