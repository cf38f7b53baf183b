import { DomainError } from '@joy/domain';
import { Decider, DomainEvent } from '../event-store/decider';

/*
 * A person's settings, on their user stream `user-<userId>` as `UserSettingsChanged` events that carry only
 * the settings that changed. Every setting has a default, so a person who never changed one has no event.
 * New settings (first name, time zone, reminder time) are new optional fields of the same event and endpoint.
 */

export interface UserSettings {
  /** Whether other members may send this person care actions (and see them in care suggestions). */
  acceptCareActions: boolean;
}

export const DEFAULT_SETTINGS: UserSettings = { acceptCareActions: true };

export type SettingsChanges = Partial<UserSettings>;

export type UserSettingsChanged = DomainEvent<'UserSettingsChanged', { userId: string } & SettingsChanges>;

export interface ChangeSettings {
  userId: string;
  changes: SettingsChanges;
}

export const SETTINGS_MESSAGES = {
  nothingToChange: 'Send at least one setting to change (acceptCareActions).',
} as const;

/** Folds the user stream (other events of it leave the settings as they are). */
export const settingsDecider: Decider<UserSettings, ChangeSettings, UserSettingsChanged> = {
  initialState: DEFAULT_SETTINGS,
  evolve(state, event) {
    if (event.type !== 'UserSettingsChanged') return state;
    const { userId: _userId, ...changes } = event.data;
    return { ...state, ...changes };
  },
  decide({ userId, changes }, state) {
    const given = (Object.keys(changes) as (keyof UserSettings)[]).filter((k) => changes[k] !== undefined);
    if (given.length === 0) throw new DomainError('settings.nothing_to_change', SETTINGS_MESSAGES.nothingToChange);
    const changed = given.filter((k) => changes[k] !== state[k]);
    if (changed.length === 0) return [];
    return [{ type: 'UserSettingsChanged', data: { userId, ...Object.fromEntries(changed.map((k) => [k, changes[k]])) } }];
  },
};
