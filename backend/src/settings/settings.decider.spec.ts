import { expectRefusal } from '../testing/refusals';
import { DEFAULT_SETTINGS, SETTINGS_MESSAGES, settingsDecider, UserSettingsChanged } from './settings.decider';

const given = (events: UserSettingsChanged[]) => events.reduce(settingsDecider.evolve, settingsDecider.initialState);
const declined: UserSettingsChanged = { type: 'UserSettingsChanged', data: { userId: 'ada', acceptCareActions: false } };

describe('settings decider', () => {
  it('accepts care actions by default', () => {
    expect(given([])).toEqual({ acceptCareActions: true });
    expect(DEFAULT_SETTINGS.acceptCareActions).toBe(true);
  });

  it('records only what changes', () => {
    expect(settingsDecider.decide({ userId: 'ada', changes: { acceptCareActions: false } }, given([]))).toEqual([declined]);
    expect(settingsDecider.decide({ userId: 'ada', changes: { acceptCareActions: false } }, given([declined]))).toEqual([]);
    expect(given([declined])).toEqual({ acceptCareActions: false });
  });

  it('ignores the other events of the user stream', () => {
    const other = { type: 'MemberJoined', data: { userId: 'ada', groupId: 'g' } } as unknown as UserSettingsChanged;
    expect(given([declined, other])).toEqual({ acceptCareActions: false });
  });

  it('refuses a change that names no setting', () => {
    expectRefusal(() => settingsDecider.decide({ userId: 'ada', changes: {} }, given([])), { kind: 'invalid', code: 'settings.nothing_to_change', message: SETTINGS_MESSAGES.nothingToChange });
  });
});
