/**
 * The unit tier's guard (jest.config.js): a unit spec that opens a connection, starts a process or opens a
 * SQLite database fails, saying so, instead of quietly becoming slow and flaky. Move such a spec to the int tier.
 */
import childProcess from 'node:child_process';
import net from 'node:net';

function refuse(what: string): never {
  throw new Error(`A unit test does no I/O, but this one tried ${what}: it belongs to the int tier (jest.config.js, BACKEND_UNIT).`);
}

net.Socket.prototype.connect = function connect() {
  return refuse('a network connection');
} as typeof net.Socket.prototype.connect;
for (const name of ['spawn', 'fork', 'exec', 'execFile', 'spawnSync', 'execSync', 'execFileSync'] as const) {
  (childProcess as Record<string, unknown>)[name] = () => refuse(`to start a process (${name})`);
}
jest.mock('better-sqlite3', () => function Database() {
  return refuse('to open a SQLite database');
});
