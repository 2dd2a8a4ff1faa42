// How a pod's status reads to the session layer: the same words as the Docker engine's for the same events.
import { containerState, startProgress } from '../../../../src/providers/backends/kubernetes/pod-status.js';

const terminated = (state: Record<string, unknown>, phase = 'Failed') =>
  ({ status: { phase, containerStatuses: [{ name: 'shell', state: { terminated: state } }] } }) as never;

describe('pod status', () => {
  it('names an out-of-memory kill, an eviction, an exit and a deletion', () => {
    expect(containerState(terminated({ reason: 'OOMKilled', exitCode: 137 }))).toEqual({ running: false, reason: 'out of memory' });
    expect(containerState({ status: { phase: 'Failed', reason: 'Evicted', message: 'The node was low on resource: memory.' } } as never)).toEqual({
      running: false,
      reason: 'evicted: The node was low on resource: memory.',
    });
    expect(containerState(terminated({ reason: 'Error', exitCode: 137 }))).toEqual({ running: false, reason: 'exited with code 137' });
    expect(containerState({ metadata: { deletionTimestamp: new Date() }, status: { phase: 'Running' } } as never)).toEqual({ running: false, reason: 'the pod was deleted' });
    expect(containerState(undefined)).toEqual({ running: false, reason: 'removed' });
  });

  it('fails a start at once on an image pull error, and waits while the scheduler has not placed the pod', () => {
    const waiting = { status: { phase: 'Pending', containerStatuses: [{ name: 'shell', state: { waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "x"' } } }] } } as never;
    expect(startProgress(waiting, 'x')).toEqual({ kind: 'failed', why: 'the image "x" cannot be pulled (ImagePullBackOff: Back-off pulling image "x")' });
    const unscheduled = { status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/3 nodes are available.' }] } } as never;
    expect(startProgress(unscheduled, 'x')).toEqual({ kind: 'pending', why: 'not scheduled: Unschedulable: 0/3 nodes are available.' });
  });
});
