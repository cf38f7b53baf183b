import { DomainError } from '@joy/domain';
import { apiValidationPipe } from '../http/validation';
import { CreateGroupDto } from './groups.dto';
import { GroupCreated, groupDecider } from './groups.decider';

/**
 * The group body through the app's own validation pipe (no app, no I/O): the name rule (names/name-rule.ts) on a
 * group's name and description. bad-input.api.spec.ts keeps one such refusal over HTTP (status, body, nothing stored).
 */
const validate = (body: object) => apiValidationPipe().transform(body, { type: 'body', metatype: CreateGroupDto });

async function refusal(body: object): Promise<DomainError> {
  const error = await validate(body).then(
    () => null,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(DomainError);
  expect((error as DomainError).code).toBe('request.invalid');
  return error as DomainError;
}

describe('a group body: one name rule (NFC, no control, direction-changing or invisible characters)', () => {
  it.each([
    ['a right-to-left override', 'Family\u202Eylimaf'],
    ['a zero-width space', 'Fam\u200Bily'],
    ['a control character', 'Family\u0007'],
  ])('refuses a group name with %s, naming the field', async (_label, name) => {
    const error = await refusal({ name });
    expect(error.message).toBe('name must not contain control, direction-changing or invisible characters');
    expect(error.errors).toEqual([{ field: 'name', message: error.message }]);
  });

  it('refuses a direction-changing character in a group description, naming it', async () => {
    const error = await refusal({ name: 'Readers', description: 'We read\u2066 books' });
    expect(error.message).toBe('description must not contain control or direction-changing characters');
  });

  it('stores a group name in NFC, so that look-alike spellings are one name', async () => {
    const body = { name: '  Zoe\u0308 & friends \u{1F468}\u200D\u{1F469}\u200D\u{1F467} ', description: 'Line one\nline two' };
    await expect(validate(body)).resolves.toEqual(body);
    const at = new Date('2026-11-20T08:30:00.000Z');
    const [created] = groupDecider.decide({ groupId: 'g1', ...body, inviteCode: 'ABCD2345', createdBy: 'u1', at }, groupDecider.initialState);
    expect((created.data as GroupCreated['data']).name).toBe('Zo\u00EB & friends \u{1F468}\u200D\u{1F469}\u200D\u{1F467}');
    expect((created.data as GroupCreated['data']).description).toBe('Line one\nline two');
  });
});
