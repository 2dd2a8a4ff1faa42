import type { V1Pod } from '@kubernetes/client-node' with { 'resolution-mode': 'import' };
import type { ContainerState } from '../../exec/engine/container-engine.js';
import { CONTAINER_NAME } from './pod-manifest.js';

/** Waiting reasons that will not resolve by waiting: fail the pod start at once. */
const IMAGE_FAILURES = new Set(['ErrImagePull', 'ImagePullBackOff', 'ErrImageNeverPull', 'InvalidImageName']);
const CONFIG_FAILURES = new Set(['CreateContainerConfigError', 'CreateContainerError', 'RunContainerError']);

/** Where a starting pod stands: running, still coming (with what it waits for), or failed for good. */
type StartProgress = { readonly kind: 'running' } | { readonly kind: 'pending'; readonly why: string } | { readonly kind: 'failed'; readonly why: string };

/** Reads a pod's status while it starts. */
export function startProgress(pod: V1Pod, image: string): StartProgress {
  const container = pod.status?.containerStatuses?.find((c) => c.name === CONTAINER_NAME);
  const waiting = container?.state?.waiting;
  if (waiting?.reason !== undefined && IMAGE_FAILURES.has(waiting.reason)) {
    return { kind: 'failed', why: `the image "${image}" cannot be pulled (${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''})` };
  }
  if (waiting?.reason !== undefined && CONFIG_FAILURES.has(waiting.reason)) {
    return { kind: 'failed', why: `the container cannot be created (${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''})` };
  }
  const stopped = stoppedReason(pod);
  if (stopped !== undefined) return { kind: 'failed', why: `the pod stopped while starting (${stopped})` };
  if (pod.status?.phase === 'Running' && container?.state?.running !== undefined) return { kind: 'running' };
  const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
  if (scheduled?.status === 'False') {
    return { kind: 'pending', why: `not scheduled: ${scheduled.reason ?? 'Unschedulable'}${scheduled.message ? `: ${scheduled.message}` : ''}` };
  }
  if (waiting?.reason !== undefined) return { kind: 'pending', why: `container waiting: ${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''}` };
  return { kind: 'pending', why: `phase ${pod.status?.phase ?? 'unknown'}` };
}

/** Why a pod's container no longer runs, or undefined while it does (or has not started). */
export function stoppedReason(pod: V1Pod): string | undefined {
  if (pod.metadata?.deletionTimestamp !== undefined) return 'the pod was deleted';
  const container = pod.status?.containerStatuses?.find((c) => c.name === CONTAINER_NAME);
  const terminated = container?.state?.terminated;
  if (terminated !== undefined) {
    // The same words as the Docker engine's for the same events.
    if (terminated.reason === 'OOMKilled') return 'out of memory';
    if (terminated.signal) return `killed by signal ${terminated.signal}`;
    return `exited with code ${terminated.exitCode}${terminated.reason && terminated.reason !== 'Error' && terminated.reason !== 'Completed' ? ` (${terminated.reason})` : ''}`;
  }
  const phase = pod.status?.phase;
  if (phase === 'Failed' || phase === 'Succeeded') {
    const reason = pod.status?.reason;
    if (reason === 'Evicted') return `evicted: ${pod.status?.message ?? 'no message'}`;
    return `pod ${phase.toLowerCase()}${reason ? `: ${reason}` : ''}${pod.status?.message ? ` (${pod.status.message})` : ''}`;
  }
  return undefined;
}

/** The container layer's view of a pod (undefined pod: gone). */
export function containerState(pod: V1Pod | undefined): ContainerState {
  if (pod === undefined) return { running: false, reason: 'removed' };
  const stopped = stoppedReason(pod);
  if (stopped !== undefined) return { running: false, reason: stopped };
  return { running: true };
}
