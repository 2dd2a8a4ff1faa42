/**
 * A value (usually a module) loaded on first use and shared afterwards:
 * `const docker = lazy(() => import('dockerode'))`. Start-up pays only for
 * what the first response needs; a failed load is retried on the next use.
 */
export function lazy<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
}
