import { serverBackends, withDatabase } from './app-harness';

describe('the test harness on the production backends (TEST_APP_BACKENDS=env)', () => {
  it('runs the embedded default unless asked', () => {
    expect(serverBackends({ MONGO_URL: 'mongodb://db:27017/x', REDIS_URL: 'redis://r:6379' })).toEqual({});
  });

  it('gives each app a MongoDB database and a Redis prefix of its own, on the servers it was given', () => {
    const source = {
      TEST_APP_BACKENDS: 'env',
      MONGO_URL: 'mongodb://127.0.0.1:27017/joy_ci?directConnection=true',
      EVENTSTORE_URL: 'esdb://127.0.0.1:2113?tls=false',
      REDIS_URL: 'redis://127.0.0.1:6379',
    };
    const one = serverBackends(source);
    const two = serverBackends(source);
    expect(one.MONGO_URL).toMatch(/^mongodb:\/\/127\.0\.0\.1:27017\/joy_api_\w+\?directConnection=true$/);
    expect(one.REDIS_PREFIX).toMatch(/^joy_api_\w+$/);
    expect(one.EVENTSTORE_URL).toBe(source.EVENTSTORE_URL);
    expect(one.MONGO_URL).not.toBe(two.MONGO_URL);
    expect(one.REDIS_PREFIX).not.toBe(two.REDIS_PREFIX);
    expect(serverBackends({ TEST_APP_BACKENDS: 'env', REDIS_URL: source.REDIS_URL })).not.toHaveProperty('MONGO_URL');
  });

  it('names another database in any MongoDB connection string, keeping hosts, credentials and options', () => {
    expect(withDatabase('mongodb://u:p@a:1,b:2/old?replicaSet=rs0', 'n')).toBe('mongodb://u:p@a:1,b:2/n?replicaSet=rs0');
    expect(withDatabase('mongodb://a:1', 'n')).toBe('mongodb://a:1/n');
    expect(withDatabase('mongodb+srv://cluster.example.net/?retryWrites=true', 'n')).toBe('mongodb+srv://cluster.example.net/n?retryWrites=true');
    expect(() => withDatabase('redis://a:1', 'n')).toThrow(/MONGO_URL is not a MongoDB connection string/);
  });
});
