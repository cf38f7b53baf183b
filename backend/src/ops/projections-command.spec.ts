import { signIn, startTestApp, type TestApp } from '../testing/app-harness';
import { runProjections, table } from './projections-command';
import { freePort } from '../bench/app-process';
import { captureCli } from '../testing/cli-capture';

jest.setTimeout(30_000);

describe('projections CLI on the embedded default', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
    await signIn(app.baseUrl, 'cli@example.com', 'Cli');
  });
  afterAll(() => app.destroy());

  it('status asks the running app (its local ops view, with the token in DATA_DIR) and prints a table of checkpoint, head and lag per projection', async () => {
    const cli = captureCli({ PORT: String(app.config.port), DATA_DIR: app.config.dataDir });
    expect(await runProjections(['status'], cli.io)).toBe(0);
    const out = cli.out();
    expect(out).toContain(`asked http://localhost:${app.config.port}/api/health/details`);
    expect(out).toMatch(/read-models\.sqlite/);
    expect(out).toMatch(/^projection\s+checkpoint\s+head\s+lag\s+state$/m);
    const head = await app.running.infra.store.headPosition();
    expect(head).toBeGreaterThan(0);
    expect(out).toMatch(new RegExp(`^users\\s+\\d+\\s+${head}\\s+0\\s+running$`, 'm'));
    for (const name of ['users', 'ratings', 'groups', 'group-stats']) expect(out).toMatch(new RegExp(`^${name}\\s`, 'm'));
  });

  it('status names the missing ops token when DATA_DIR is not the app\'s', async () => {
    const cli = captureCli({ PORT: String(app.config.port), DATA_DIR: '/nonexistent-joy-data' });
    expect(await runProjections(['status'], cli.io)).toBe(1);
    expect(cli.err()).toMatch(/No ops token in \/nonexistent-joy-data\/ops-token/);
  });

  it('status says so when no app answers', async () => {
    const cli = captureCli({ PORT: String(await freePort()), DATA_DIR: app.config.dataDir });
    expect(await runProjections(['status'], cli.io)).toBe(1);
    expect(cli.err()).toMatch(/No app answered/);
  });

  it('rebuild marks the projection for a rebuild at the next start, which rebuilds it with the documents as before', async () => {
    const cli = captureCli({ DATA_DIR: app.config.dataDir });
    expect(await runProjections(['rebuild', 'users'], cli.io)).toBe(0);
    expect(cli.out()).toMatch(/users is rebuilt from the events at the next start/);
    const profileIds = async () => (await app.running.infra.readModels.find('user-profiles', {})).map((d) => d._id).sort();
    const before = await profileIds();
    expect(before.length).toBeGreaterThan(0);
    await app.stop();
    await app.restart();
    expect(await app.running.infra.readModels.getCheckpoint('$code:users')).toBe(1);
    expect(await profileIds()).toEqual(before);
    const head = await app.running.infra.store.headPosition();
    expect(await app.running.infra.readModels.getCheckpoint('users')).toBe(head);
  });

  it('refuses an unknown projection or command', async () => {
    const unknown = captureCli({});
    expect(await runProjections(['rebuild', 'nope'], unknown.io)).toBe(2);
    expect(unknown.err()).toMatch(/Unknown projection nope; one of: users, ratings/);
    expect(await runProjections(['frobnicate'], captureCli({}).io)).toBe(2);
    expect(await runProjections([], captureCli({}).io)).toBe(0);
  });
});

describe('table', () => {
  it('pads columns to their widest cell', () => {
    expect(table([['a', 'bb'], ['ccc', 1]])).toBe('a    bb\nccc  1\n');
  });
});
