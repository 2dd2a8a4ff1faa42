// HostMetrics (src/providers/observability/host-metrics.ts) loads prom-client only
// when its metrics are read or once MAX_PENDING updates wait; the updates made
// before wait, and are applied in the order they were made.
import 'reflect-metadata';
import { HostMetrics, MAX_PENDING } from '../../../src/providers/observability/host-metrics.js';
import { eventually } from '../../support/proc-helpers.js';

it('applies waiting updates in their order when the metrics are first read, then each at once', async () => {
  const metrics = new HostMetrics();
  const applied: number[] = [];
  for (let i = 0; i < 3; i++) metrics.update(() => void applied.push(i));
  expect(applied).toEqual([]);
  expect(await metrics.registry()).toBeDefined();
  expect(applied).toEqual([0, 1, 2]);
  metrics.update(() => void applied.push(3));
  expect(applied).toEqual([0, 1, 2, 3]);
});

it('loads prom-client with no reader once MAX_PENDING updates wait, and applies them in order', async () => {
  const metrics = new HostMetrics();
  const applied: number[] = [];
  for (let i = 0; i < MAX_PENDING; i++) metrics.update(() => void applied.push(i));
  const all = [...Array(MAX_PENDING).keys()];
  expect(await eventually(() => [...applied], (seen) => seen.length === MAX_PENDING)).toEqual(all);
});

it('drops waiting and later updates once disposed', async () => {
  const metrics = new HostMetrics();
  const applied: number[] = [];
  metrics.update(() => void applied.push(0));
  metrics.dispose();
  metrics.update(() => void applied.push(1));
  await metrics.registry();
  expect(applied).toEqual([]);
});
