/**
 * The image's HEALTHCHECK (`node backend/dist/ops/healthcheck.js`): exits 0 when the process in this container
 * answers its health endpoint with 200 — the worker's `/health` when ROLE=worker, else the api's `/api/health`,
 * on PORT — and 1 otherwise, printing why. No curl in the image: Node's fetch, with a deadline.
 */
const TIMEOUT_MS = 4000;

export async function checkHealth(env: NodeJS.ProcessEnv = process.env): Promise<{ ok: boolean; detail: string }> {
  const port = env.PORT || '3000';
  const url = `http://127.0.0.1:${port}${env.ROLE === 'worker' ? '/health' : '/api/health'}`;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    const body = await res.text();
    return { ok: res.status === 200, detail: `${url} answered ${res.status} ${body.slice(0, 500)}` };
  } catch (err) {
    return { ok: false, detail: `${url} did not answer: ${(err as Error).message}` };
  }
}

if (require.main === module) {
  void checkHealth().then(({ ok, detail }) => {
    (ok ? console.log : console.error)(detail);
    process.exit(ok ? 0 : 1);
  });
}
