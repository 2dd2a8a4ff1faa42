// The tracing observer skips the OpenTelemetry API while nothing is registered
// with it (src/providers/observability/tracing-observer.ts): the key it looks at
// must be the one the API it loads registers under.
import { trace } from '@opentelemetry/api';
import { OTEL_GLOBAL_KEY } from '../../../src/providers/observability/tracing-observer.js';

// Another major version of the API would register under another key, and this fails.
it('is where a registration with the API lands', () => {
  const holder = globalThis as Record<symbol, unknown>;
  const before = holder[OTEL_GLOBAL_KEY];
  try {
    delete holder[OTEL_GLOBAL_KEY];
    trace.setGlobalTracerProvider(trace.getTracerProvider());
    expect(holder[OTEL_GLOBAL_KEY]).toBeDefined();
  } finally {
    trace.disable();
    if (before === undefined) delete holder[OTEL_GLOBAL_KEY];
    else holder[OTEL_GLOBAL_KEY] = before;
  }
});
