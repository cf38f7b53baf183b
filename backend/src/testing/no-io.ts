/**
 * The unit tier's guard (jest.config.js, a setupFilesAfterEnv of the unit projects): a unit spec that opens a
 * connection, starts a process or opens a SQLite database fails, saying so, instead of quietly becoming slow and
 * flaky. Move such a spec to the int tier. The patches are undone after each file: a Jest worker runs files of
 * every tier, and core modules are shared across them.
 */
import childProcess from 'node:child_process';
import net from 'node:net';

function refuse(what: string): never {
  throw new Error(`A unit test does no I/O, but this one tried ${what}: it belongs to the int tier (jest.config.js, BACKEND_UNIT).`);
}

const PROCESS_STARTERS = ['spawn', 'fork', 'exec', 'execFile', 'spawnSync', 'execSync', 'execFileSync'] as const;
const processes = childProcess as unknown as Record<string, unknown>;
const originals = { connect: net.Socket.prototype.connect, starters: PROCESS_STARTERS.map((name) => processes[name]) };

net.Socket.prototype.connect = function connect() {
  return refuse('a network connection');
} as typeof net.Socket.prototype.connect;
for (const name of PROCESS_STARTERS) processes[name] = () => refuse(`to start a process (${name})`);
jest.mock('better-sqlite3', () => function Database() {
  return refuse('to open a SQLite database');
});

afterAll(() => {
  net.Socket.prototype.connect = originals.connect;
  PROCESS_STARTERS.forEach((name, i) => (processes[name] = originals.starters[i]));
});
