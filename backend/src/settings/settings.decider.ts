import { DomainError, UserSettingsView } from '@joy/domain';
import { Decider, DomainEvent } from '../event-store/decider';
import type { FirstNameChosen, UserDeleted, UserProfileUpdated, UserRegistered } from '../identity/identity.decider';

/*
 * A person's settings, on their user stream `user-<userId>`:
 * - `UserSettingsChanged` carries only the settings that changed (time zone, reminder time, care actions).
 *   Every setting has a default, so a person who never changed one has no event.
 * - `FirstNameChanged` is the name chosen in Settings: personal data, so it is its own event whose `firstName`
 *   is stored encrypted with the person's key (schemaVersion 2, see identity/personal-data.ts) and is gone with
 *   it. A chosen name wins over the identity provider's at later sign-ins (identity.decider.ts).
 */

export type UserSettings = UserSettingsView;

export const DEFAULT_SETTINGS: UserSettings = { firstName: null, timeZone: null, reminderTime: null, acceptCareActions: true };

/** The settings `UserSettingsChanged` carries (the name has its own event). */
type PlainSettings = Omit<UserSettings, 'firstName'>;
export type SettingsChanges = Partial<UserSettings>;

export type UserSettingsChanged = DomainEvent<'UserSettingsChanged', { userId: string } & Partial<PlainSettings>>;
export type FirstNameChanged = FirstNameChosen;
export type SettingsEvent = UserSettingsChanged | FirstNameChanged;
/** The events of the user stream that settings fold (the others leave them as they are). */
export type SettingsStreamEvent = SettingsEvent | UserRegistered | UserProfileUpdated | UserDeleted;

export interface ChangeSettings {
  userId: string;
  changes: SettingsChanges;
}

export const SETTINGS_MESSAGES = {
  nothingToChange: 'Send at least one setting to change (firstName, timeZone, reminderTime, acceptCareActions).',
} as const;

const PLAIN_KEYS = ['timeZone', 'reminderTime', 'acceptCareActions'] as const;

export const settingsDecider: Decider<UserSettings, ChangeSettings, SettingsEvent> = {
  initialState: DEFAULT_SETTINGS,
  evolve(state, event) {
    const e = event as SettingsStreamEvent;
    switch (e.type) {
      case 'UserSettingsChanged': {
        const { userId: _userId, ...changes } = e.data;
        return { ...state, ...changes };
      }
      case 'FirstNameChanged':
      case 'UserRegistered':
      case 'UserProfileUpdated':
        return { ...state, firstName: e.data.firstName };
      case 'UserDeleted':
        return DEFAULT_SETTINGS;
      default:
        return state;
    }
  },
  decide({ userId, changes }, state) {
    const given = (Object.keys(changes) as (keyof UserSettings)[]).filter((k) => changes[k] !== undefined);
    if (given.length === 0) throw new DomainError('settings.nothing_to_change', SETTINGS_MESSAGES.nothingToChange);
    const events: SettingsEvent[] = [];
    if (changes.firstName != null && changes.firstName !== state.firstName) {
      events.push({ type: 'FirstNameChanged', data: { userId, firstName: changes.firstName } });
    }
    const changed = PLAIN_KEYS.filter((k) => changes[k] !== undefined && changes[k] !== state[k]);
    if (changed.length > 0) {
      events.push({ type: 'UserSettingsChanged', data: { userId, ...Object.fromEntries(changed.map((k) => [k, changes[k]])) } });
    }
    return events;
  },
};
