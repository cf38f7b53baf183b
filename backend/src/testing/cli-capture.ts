import type { CliIo } from '../ops/cli-io';

/** A CLI's io for a test: what it printed on stdout and stderr, with `env` as its environment. */
export function captureCli(env: NodeJS.ProcessEnv) {
  let out = '';
  let err = '';
  const io: CliIo = { out: (t) => void (out += t), err: (t) => void (err += t), env };
  return { io, out: () => out, err: () => err };
}
