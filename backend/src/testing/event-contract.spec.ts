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
];

describe('the published event contract (docs/events)', () => {
  it.each(fixtures)('accepts stored %s events of schemaVersion 1', (type, data) => {
    expect(contractViolations(recorded(type, data, 1))).toEqual([]);
  });

  it('has a fixture here for every schema it publishes', () => {
    const published = readdirSync(CONTRACT_DIR).filter((f) => /\.v\d+\.json$/.test(f)).map((f) => f.replace(/\.v\d+\.json$/, ''));
    expect(published.sort()).toEqual(expect.arrayContaining(fixtures.map(([type]) => type).sort()));
  });

  it('refuses data that breaks a schema, naming the problem', () => {
    const [, rating] = fixtures[2];
    const problems = contractViolations(recorded('RatingSubmitted', { ...rating, joy: 6, mood: 'x' }, 7));
    expect(problems.join('\n')).toMatch(/RatingSubmitted at position 7/);
    expect(problems.join('\n')).toMatch(/joy|maximum/);
    expect(problems.join('\n')).toMatch(/additionalProperties|mood/);
  });

  it('refuses a care action of an unknown kind or with a message over 500 characters', () => {
    const [, sent] = fixtures.find(([type]) => type === 'CareActionSent')!;
    expect(contractViolations(recorded('CareActionSent', { ...sent, kind: 'roses' }, 8)).join('\n')).toMatch(/kind/);
    expect(contractViolations(recorded('CareActionSent', { ...sent, message: 'x'.repeat(501) }, 9)).join('\n')).toMatch(/message|maxLength/);
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
