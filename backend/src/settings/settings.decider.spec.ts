import { expectRefusal } from '../testing/refusals';
import { DEFAULT_SETTINGS, SETTINGS_MESSAGES, settingsDecider, SettingsEvent, SettingsStreamEvent } from './settings.decider';

const given = (events: SettingsStreamEvent[]) => (events as SettingsEvent[]).reduce(settingsDecider.evolve, settingsDecider.initialState);
const declined: SettingsEvent = { type: 'UserSettingsChanged', data: { userId: 'ada', acceptCareActions: false } };
const registered: SettingsStreamEvent = {
  type: 'UserRegistered',
  data: { userId: 'ada', issuer: 'i', subject: 's', email: 'ada@example.com', firstName: 'Ada', profileImageUrl: null },
};

describe('settings decider', () => {
  it('has defaults: no zone, no reminder, care actions accepted', () => {
    expect(given([])).toEqual({ firstName: null, timeZone: null, reminderTime: null, acceptCareActions: true });
    expect(DEFAULT_SETTINGS.acceptCareActions).toBe(true);
  });

  it('records only what changes', () => {
    expect(settingsDecider.decide({ userId: 'ada', changes: { acceptCareActions: false } }, given([]))).toEqual([declined]);
    expect(settingsDecider.decide({ userId: 'ada', changes: { acceptCareActions: false } }, given([declined]))).toEqual([]);
    expect(given([declined])).toMatchObject({ acceptCareActions: false });
    const zoned = settingsDecider.decide({ userId: 'ada', changes: { timeZone: 'Europe/Paris', reminderTime: '08:00', acceptCareActions: false } }, given([declined]));
    expect(zoned).toEqual([{ type: 'UserSettingsChanged', data: { userId: 'ada', timeZone: 'Europe/Paris', reminderTime: '08:00' } }]);
    expect(given([declined, ...zoned])).toEqual({ firstName: null, timeZone: 'Europe/Paris', reminderTime: '08:00', acceptCareActions: false });
  });

  it('turns the reminder off with null', () => {
    const on: SettingsEvent = { type: 'UserSettingsChanged', data: { userId: 'ada', reminderTime: '08:00' } };
    const off = settingsDecider.decide({ userId: 'ada', changes: { reminderTime: null } }, given([on]));
    expect(off).toEqual([{ type: 'UserSettingsChanged', data: { userId: 'ada', reminderTime: null } }]);
    expect(given([on, ...off]).reminderTime).toBeNull();
    expect(settingsDecider.decide({ userId: 'ada', changes: { reminderTime: null } }, given([]))).toEqual([]);
  });

  it('records a new first name as its own event, and only when it differs from the current one', () => {
    expect(given([registered]).firstName).toBe('Ada');
    expect(settingsDecider.decide({ userId: 'ada', changes: { firstName: 'Ada' } }, given([registered]))).toEqual([]);
    const renamed = settingsDecider.decide({ userId: 'ada', changes: { firstName: 'Adele', acceptCareActions: false } }, given([registered]));
    expect(renamed).toEqual([{ type: 'FirstNameChanged', data: { userId: 'ada', firstName: 'Adele' } }, declined]);
    expect(given([registered, ...renamed])).toMatchObject({ firstName: 'Adele', acceptCareActions: false });
  });

  it('forgets everything with the account', () => {
    expect(given([registered, declined, { type: 'UserDeleted', data: { userId: 'ada', deletedAt: '2026-01-01T00:00:00Z' } }])).toEqual(DEFAULT_SETTINGS);
  });

  it('ignores the other events of the user stream', () => {
    const other = { type: 'MemberJoined', data: { userId: 'ada', groupId: 'g' } } as unknown as SettingsEvent;
    expect(given([declined, other])).toMatchObject({ acceptCareActions: false });
  });

  it('refuses a change that names no setting', () => {
    expectRefusal(() => settingsDecider.decide({ userId: 'ada', changes: {} }, given([])), { kind: 'invalid', code: 'settings.nothing_to_change', message: SETTINGS_MESSAGES.nothingToChange });
  });
});
