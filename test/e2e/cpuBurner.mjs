// Keeps every core busy while the e2e suite runs (`npm run test:e2e -- --burn`, or E2E_BURN=1),
// to show that the tests wait for states and not for time: a machine this loaded
// runs each step several times slower, and a test that slept instead of waiting would fail.
import { availableParallelism } from 'node:os';
import { isMainThread, Worker, workerData } from 'node:worker_threads';

// In a burner thread (this same module): spin until terminated, counting rounds in counts[index].
if (!isMainThread && workerData?.cpuBurner) {
  const counts = new Float64Array(workerData.buffer);
  for (let n = 1; ; n++) {
    let x = 0;
    for (let i = 0; i < 1e6; i++) x += Math.sqrt(i);
    counts[workerData.index] = x > 0 ? n : -n;
  }
}

/**
 * Starts `threads` spinning threads in this process (so they end with it, however it ends).
 * @returns {{ threads: number, stop: () => Promise<{ threads: number, cpuSeconds: number }> }}
 */
export function startCpuBurner({ threads = availableParallelism() } = {}) {
  const buffer = new SharedArrayBuffer(8 * threads);
  const started = process.cpuUsage();
  const workers = Array.from({ length: threads }, (_, index) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: { cpuBurner: true, buffer, index } });
    worker.unref();
    worker.on('error', (error) => console.error(`CPU burner thread ${index}: ${error.message}`));
    return worker;
  });
  return {
    threads,
    /** Ends the threads; says how much CPU time this process used meanwhile (the threads' and the runner's). */
    async stop() {
      await Promise.all(workers.map((w) => w.terminate()));
      const used = process.cpuUsage(started);
      const rounds = Array.from(new Float64Array(buffer));
      if (rounds.some((r) => r === 0)) throw new Error(`a burner thread never ran (rounds ${rounds.join(', ')})`);
      return { threads, cpuSeconds: Math.round((used.user + used.system) / 1e5) / 10 };
    },
  };
}

/**
 * Threads to burn with: none, unless `--burn` is on the command line or E2E_BURN is `1`; then one per
 * core, or E2E_BURN_THREADS of them.
 */
export function burnThreads(argv = process.argv, env = process.env) {
  if (!argv.includes('--burn') && env.E2E_BURN !== '1') return 0;
  if (env.E2E_BURN_THREADS === undefined) return availableParallelism();
  const n = Number(env.E2E_BURN_THREADS);
  if (!Number.isInteger(n) || n < 1) throw new Error(`E2E_BURN_THREADS: expected a whole number of threads, got "${env.E2E_BURN_THREADS}"`);
  return n;
}
