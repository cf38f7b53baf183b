import { readdirSync } from 'node:fs';
import { recorded } from './events';
import { CONTRACT_DIR, contractViolations } from './event-contract';

/** Stored JSON as the app wrote it at schemaVersion 1: these must stay valid forever. */
const fixtures: [string, object][] = [
  ['UserRegistered', { userId: 'Yk3m0y0W3x9tQyHh8m2cUw', issuer: 'http://localhost:3000/oidc', subject: 'ada@example.com', email: 'ada@example.com', firstName: 'Ada', profileImageUrl: null }],
  ['UserProfileUpdated', { userId: 'Yk3m0y0W3x9tQyHh8m2cUw', email: 'ada@example.com', firstName: 'Augusta', profileImageUrl: 'https://example.com/a.png' }],
  ['RatingSubmitted', { ratingId: '0b5e8f43-3f49-4a55-9e0e-6f1f3f0d8a11', userId: 'Yk3m0y0W3x9tQyHh8m2cUw', relationships: 4, health: 3, purpose: 5, growth: 2, joy: 4, overallScore: 3.6, submittedAt: '2026-11-20T08:30:00.000Z' }],
  ['InviteCodeReserved', { code: 'K7M2QX9P', groupId: '5c1c9d2e-5b1f-4b7a-9a43-6a1f0f3b2c10' }],
  ['GroupCreated', { groupId: '5c1c9d2e-5b1f-4b7a-9a43-6a1f0f3b2c10', name: 'The Lovelaces', description: null, inviteCode: 'K7M2QX9P', createdBy: 'Yk3m0y0W3x9tQyHh8m2cUw', createdAt: '2026-11-20T08:30:00.000Z' }],
  ['MemberJoined', { groupId: '5c1c9d2e-5b1f-4b7a-9a43-6a1f0f3b2c10', userId: 'Yk3m0y0W3x9tQyHh8m2cUw', role: 'creator', joinedAt: '2026-11-20T08:30:00.000Z' }],
  ['CareActionSent', { careActionId: '9d7f3a52-2f0e-4c1e-8f7a-3b6c2d1e0a44', groupId: '5c1c9d2e-5b1f-4b7a-9a43-6a1f0f3b2c10', senderId: 'Yk3m0y0W3x9tQyHh8m2cUw', recipientId: 'Qm8n1z1X4y0uRzIi9n3dVx', kind: 'flowers', message: 'Thinking of you', sentAt: '2026-11-20T08:40:00.000Z' }],
  ['CareActionSent', { careActionId: '9d7f3a52-2f0e-4c1e-8f7a-3b6c2d1e0a45', groupId: '5c1c9d2e-5b1f-4b7a-9a43-6a1f0f3b2c10', senderId: 'Yk3m0y0W3x9tQyHh8m2cUw', recipientId: 'Qm8n1z1X4y0uRzIi9n3dVx', kind: 'care_package', message: null, sentAt: '2026-11-20T08:41:00.000Z' }],
  ['CareActionFulfilled', { careActionId: '9d7f3a52-2f0e-4c1e-8f7a-3b6c2d1e0a44', orderId: 'order-1f6c0a9e-7b3d-4e2a-9c51-0d8e7f6a5b43', fulfilledAt: '2026-11-20T08:40:01.000Z' }],
  ['CareActionCancelled', { careActionId: '9d7f3a52-2f0e-4c1e-8f7a-3b6c2d1e0a45', reason: 'recipient_declined', cancelledAt: '2026-11-20T08:41:02.000Z' }],
];

/** Stored JSON at schemaVersion 2: identity events with their personal fields encrypted (as the app writes them). */
const fixturesV2: [string, object][] = [
  ['UserRegistered', {
    userId: 'Yk3m0y0W3x9tQyHh8m2cUw',
    issuer: 'http://localhost:3000/oidc',
    subject: 'enc:v1:3q2nW1Zc0yY5Xk9G:Wm9yTGx2a0t5T0pZcGZuZ0Rx:lG0bN1r3Yc2vX8sQ9pT4uA',
    email: 'enc:v1:P0dK3mX9tQ1yHh8m:c2VjcmV0LWNpcGhlcnRleHQ:q9Zt2Kx1Lm0Nb3Vc8Rw4yA',
    firstName: 'enc:v1:a1B2c3D4e5F6g7H8:QWRh:Zz9Yy8Xx7Ww6Vv5Uu4Tt3S',
    profileImageUrl: null,
  }],
  ['UserProfileUpdated', {
    userId: 'Yk3m0y0W3x9tQyHh8m2cUw',
    email: 'enc:v1:P0dK3mX9tQ1yHh8m:c2VjcmV0LWNpcGhlcnRleHQ:q9Zt2Kx1Lm0Nb3Vc8Rw4yA',
    firstName: 'enc:v1:a1B2c3D4e5F6g7H8:QXVndXN0YQ:Zz9Yy8Xx7Ww6Vv5Uu4Tt3S',
    profileImageUrl: 'enc:v1:a1B2c3D4e5F6g7H8:aHR0cHM6Ly9leGFtcGxlLmNvbS9hLnBuZw:Zz9Yy8Xx7Ww6Vv5Uu4Tt3S',
  }],
  ['FirstNameChanged', { userId: 'Yk3m0y0W3x9tQyHh8m2cUw', firstName: 'enc:v1:a1B2c3D4e5F6g7H8:QWRlbGU:Zz9Yy8Xx7Ww6Vv5Uu4Tt3S' }],
  ['PushSubscribed', {
    userId: 'Yk3m0y0W3x9tQyHh8m2cUw',
    subscriptionId: 'kX3mP9tQ1yHh8m2cUw0a1B2c3D4e5F6g',
    endpoint: 'enc:v1:a1B2c3D4e5F6g7H8:aHR0cHM6Ly9wdXNo:Zz9Yy8Xx7Ww6Vv5Uu4Tt3S',
    p256dh: 'enc:v1:a1B2c3D4e5F6g7H8:QjEyMw:Zz9Yy8Xx7Ww6Vv5Uu4Tt3S',
    auth: 'enc:v1:a1B2c3D4e5F6g7H8:QUJD:Zz9Yy8Xx7Ww6Vv5Uu4Tt3S',
    subscribedAt: '2026-11-21T09:00:00.000Z',
  }],
  ['RatingSubmitted', {
    ratingId: '0b5e8f43-3f49-4a55-9e0e-6f1f3f0d8a12', userId: 'Yk3m0y0W3x9tQyHh8m2cUw', relationships: 4, health: 3, purpose: 5, growth: 2, joy: 4, overallScore: 3.6,
    submittedAt: '2026-11-21T08:30:00.000Z', day: '2026-11-19', note: 'enc:v1:a1B2c3D4e5F6g7H8:QSB3YWxr:Zz9Yy8Xx7Ww6Vv5Uu4Tt3S', idempotencyKey: 'k-1',
  }],
  ['RatingCorrected', {
    ratingId: '0b5e8f43-3f49-4a55-9e0e-6f1f3f0d8a12', userId: 'Yk3m0y0W3x9tQyHh8m2cUw', relationships: 4, health: 3, purpose: 5, growth: 4, joy: 4, overallScore: 4,
    submittedAt: '2026-11-21T08:30:00.000Z', day: '2026-11-19', note: null, correctedAt: '2026-11-21T09:00:00.000Z',
  }],
];

/** New event types of schemaVersion 1 (account deletion and identity links). */
const fixturesAccount: [string, object][] = [
  ['MemberLeft', { groupId: '5c1c9d2e-5b1f-4b7a-9a43-6a1f0f3b2c10', userId: 'Yk3m0y0W3x9tQyHh8m2cUw', reason: 'account_deleted', leftAt: '2026-11-21T09:00:00.000Z' }],
  ['UserDeleted', { userId: 'Yk3m0y0W3x9tQyHh8m2cUw', deletedAt: '2026-11-21T09:00:00.000Z' }],
  ['IdentityLinked', { userId: 'Yk3m0y0W3x9tQyHh8m2cUw', linkedAt: '2026-11-20T08:00:00.000Z' }],
  ['IdentityUnlinked', { userId: 'Yk3m0y0W3x9tQyHh8m2cUw', reason: 'account_deleted', unlinkedAt: '2026-11-21T09:00:00.000Z' }],
  ['UserSettingsChanged', { userId: 'Yk3m0y0W3x9tQyHh8m2cUw', timeZone: 'Europe/Paris', reminderTime: '20:30', acceptCareActions: false }],
  ['UserSettingsChanged', { userId: 'Yk3m0y0W3x9tQyHh8m2cUw', reminderTime: null }],
  ['ReminderSent', { userId: 'Yk3m0y0W3x9tQyHh8m2cUw', day: '2026-11-21', sentAt: '2026-11-21T19:30:00.000Z', devices: 2 }],
  ['CareActionThanked', { careActionId: '9d7f3a52-2f0e-4c1e-8f7a-3b6c2d1e0a44', recipientId: 'Qm8n1z1X4y0uRzIi9n3dVx', thankedAt: '2026-11-21T09:30:00.000Z' }],
  ['PushUnsubscribed', { userId: 'Yk3m0y0W3x9tQyHh8m2cUw', subscriptionId: 'kX3mP9tQ1yHh8m2cUw0a1B2c3D4e5F6g', reason: 'gone', unsubscribedAt: '2026-11-22T09:00:00.000Z' }],
  ['RatingCorrected', { ratingId: '0b5e8f43-3f49-4a55-9e0e-6f1f3f0d8a11', userId: 'Yk3m0y0W3x9tQyHh8m2cUw', relationships: 4, health: 3, purpose: 5, growth: 4, joy: 4, overallScore: 4, submittedAt: '2026-11-20T08:30:00.000Z', correctedAt: '2026-11-20T09:00:00.000Z' }],
  ['RatingWithdrawn', {
    ratingId: '0b5e8f43-3f49-4a55-9e0e-6f1f3f0d8a11', userId: 'Yk3m0y0W3x9tQyHh8m2cUw', submittedAt: '2026-11-20T08:30:00.000Z', withdrawnAt: '2026-11-21T09:00:00.000Z',
    latest: { ratingId: '7c2d9a10-4e5f-4b6a-8c7d-9e0f1a2b3c4d', relationships: 2, health: 3, purpose: 3, growth: 3, joy: 3, overallScore: 2.8, submittedAt: '2026-11-19T20:00:00.000Z' },
  }],
  ['RatingWithdrawn', { ratingId: '7c2d9a10-4e5f-4b6a-8c7d-9e0f1a2b3c4d', userId: 'Yk3m0y0W3x9tQyHh8m2cUw', submittedAt: '2026-11-19T20:00:00.000Z', withdrawnAt: '2026-11-21T09:05:00.000Z', latest: null }],
  ['RatingsClosed', { userId: 'Yk3m0y0W3x9tQyHh8m2cUw', closedAt: '2026-11-27T16:00:00.000Z' }],
];

describe('the published event contract (docs/events)', () => {
  it.each(fixtures)('accepts stored %s events of schemaVersion 1', (type, data) => {
    expect(contractViolations(recorded(type, data, 1))).toEqual([]);
  });

  it.each(fixturesV2)('accepts stored %s events of schemaVersion 2 (personal fields encrypted)', (type, data) => {
    expect(contractViolations({ ...recorded(type, data, 1), metadata: { ...recorded(type, data, 1).metadata, schemaVersion: 2 } })).toEqual([]);
  });

  it.each(fixturesAccount)('accepts stored %s events', (type, data) => {
    expect(contractViolations(recorded(type, data, 1))).toEqual([]);
  });

  it('refuses a plaintext note in a schemaVersion 2 rating', () => {
    const [, submitted] = fixturesV2.find(([type]) => type === 'RatingSubmitted')!;
    const event = recorded('RatingSubmitted', { ...submitted, note: 'a walk by the sea' }, 6);
    expect(contractViolations({ ...event, metadata: { ...event.metadata, schemaVersion: 2 } }).join('\n')).toMatch(/note|pattern/);
  });

  it('refuses plaintext personal data in a schemaVersion 2 identity event', () => {
    const [, registered] = fixturesV2[0];
    const event = recorded('UserRegistered', { ...registered, email: 'ada@example.com' }, 5);
    expect(contractViolations({ ...event, metadata: { ...event.metadata, schemaVersion: 2 } }).join('\n')).toMatch(/email|pattern/);
  });

  it('has a fixture here for every schema it publishes', () => {
    const published = readdirSync(CONTRACT_DIR).filter((f) => /\.v\d+\.json$/.test(f)).map((f) => f.replace(/\.v\d+\.json$/, ''));
    expect(published.sort()).toEqual(expect.arrayContaining([...fixtures, ...fixturesAccount].map(([type]) => type).sort()));
    const versions = readdirSync(CONTRACT_DIR).filter((f) => /\.v2\.json$/.test(f)).map((f) => f.replace(/\.v2\.json$/, ''));
    expect(versions.sort()).toEqual(fixturesV2.map(([type]) => type).sort());
  });

  it('refuses data that breaks a schema, naming the problem', () => {
    const [, rating] = fixtures[2];
    const problems = contractViolations(recorded('RatingSubmitted', { ...rating, joy: 6, mood: 'x' }, 7));
    expect(problems.join('\n')).toMatch(/RatingSubmitted at position 7/);
    expect(problems.join('\n')).toMatch(/joy|maximum/);
    expect(problems.join('\n')).toMatch(/additionalProperties|mood/);
  });

  it('refuses a care action of an unknown kind or with a message over its bound of 8,000 units (500 characters)', () => {
    const [, sent] = fixtures.find(([type]) => type === 'CareActionSent')!;
    expect(contractViolations(recorded('CareActionSent', { ...sent, kind: 'roses' }, 8)).join('\n')).toMatch(/kind/);
    expect(contractViolations(recorded('CareActionSent', { ...sent, message: 'x'.repeat(8001) }, 9)).join('\n')).toMatch(/message|maxLength/);
    // 500 hearts are 500 characters, 1,000 code points: a message the app takes is within the contract.
    expect(contractViolations(recorded('CareActionSent', { ...sent, message: '❤️'.repeat(500) }, 10))).toEqual([]);
  });

  it('refuses an event type that has no published schema', () => {
    expect(contractViolations(recorded('SomethingHappened', {}, 3))).toEqual([
      'SomethingHappened at position 3: no schema SomethingHappened.v1.json in docs/events/schemas',
    ]);
  });

  it('refuses metadata without the required fields', () => {
    const event = { ...recorded('InviteCodeReserved', fixtures[3][1], 4), metadata: { schemaVersion: 1 } as never };
    expect(contractViolations(event).join('\n')).toMatch(/metadata.*eventId/);
  });
});
