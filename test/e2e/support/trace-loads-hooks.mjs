import { appendFileSync } from 'node:fs';

export async function load(url, context, next) {
  appendFileSync(process.env.DSH_TRACE_LOADS, `${url}\n`);
  return next(url, context);
}
