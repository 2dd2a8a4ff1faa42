// `npm run bench`: every figure is a median over repeated runs with its
// baseline measured in the same run. Pass figure names to run a subset.
import { benchStartup } from './cli.bench.js';
import { benchBackgroundTasks, benchConcurrentCalls } from './concurrency.bench.js';
import { benchCommandRules } from './command-rules.bench.js';
import { benchContainers, benchWarmPool } from './container.bench.js';
import { benchKubernetes } from './kubernetes.bench.js';
import { benchMcpPrestarted, benchMcpRoundTrip } from './mcp.bench.js';
import { benchMcpPace } from './mcp-pace.bench.js';
import { benchExecutorPrestarted, benchOneShot, benchPrestarted } from './oneshot.bench.js';
import { benchOutput } from './output.bench.js';
import { benchPersistentRoundTrip, benchShells } from './persistent.bench.js';
import { benchRedaction } from './redaction.bench.js';
import { benchSandbox } from './sandbox.bench.js';
import { benchSharedSessions } from './shared-sessions.bench.js';
import { printFigures, type Figure } from './stats.js';

const suites: Record<string, () => Promise<Figure[]>> = {
  oneshot: async () => [...(await benchOneShot(200)), ...(await benchExecutorPrestarted(100)), ...(await benchPrestarted(100))],
  persistent: () => benchPersistentRoundTrip(200),
  output: () => benchOutput(5),
  redaction: () => benchRedaction(3),
  concurrency: () => benchConcurrentCalls(7),
  tasks: () => benchBackgroundTasks(),
  shells: () => benchShells(),
  mcp: async () => [...(await benchMcpRoundTrip(100)), ...(await benchMcpPrestarted(100)), ...(await benchMcpPace(100))],
  sandbox: () => benchSandbox(100),
  cli: () => benchStartup(15),
  rules: () => benchCommandRules(7),
  container: () => benchContainers(),
  pool: () => benchWarmPool(7),
  kubernetes: () => benchKubernetes(),
  shared: () => benchSharedSessions(9),
};

const wanted = process.argv.slice(2);
const figures: Figure[] = [];
for (const [name, suite] of Object.entries(suites)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  process.stderr.write(`bench: ${name}…\n`);
  try {
    figures.push(...(await suite()));
  } catch (error) {
    figures.push({ name, value: `failed: ${(error as Error).message}` });
  }
}
printFigures(figures);
