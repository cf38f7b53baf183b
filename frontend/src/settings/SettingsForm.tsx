import { Alert, Button, Card, Form, Input, Select, Switch, Typography } from 'antd';
import { useEffect, useMemo, useRef, useState } from 'react';
import { DISPLAY_NAME_MAX, isReminderTime, timeZoneNames, type UserSettingsView } from '@joy/domain';
import { useLeaveGuard } from '../components/LeaveGuard';
import { characterLimit } from '../lib/textCount';
import { parseApiError } from '../lib/apiError';
import { dropped, focusContainerOf } from '../lib/focus';
import { browserTimeZone, useChangeSettings } from './api';

interface Values {
  firstName: string;
  timeZone: string;
  remind: boolean;
  reminderTime: string;
}

const DEFAULT_REMINDER = '20:00';

const valuesOf = (s: UserSettingsView): Values => ({
  firstName: s.firstName ?? '',
  timeZone: s.timeZone ?? browserTimeZone() ?? 'UTC',
  remind: s.reminderTime !== null,
  reminderTime: s.reminderTime ?? DEFAULT_REMINDER,
});

/** Only what differs from the saved settings (PATCH takes any subset). */
function changesOf(values: Values, saved: UserSettingsView): Partial<UserSettingsView> {
  const changes: Partial<UserSettingsView> = {};
  const name = values.firstName.trim();
  if (name !== (saved.firstName ?? '')) changes.firstName = name;
  if (values.timeZone !== saved.timeZone) changes.timeZone = values.timeZone;
  const reminderTime = values.remind ? values.reminderTime : null;
  if (reminderTime !== saved.reminderTime) changes.reminderTime = reminderTime;
  return changes;
}

/** "America/New_York" → "America / New York", searchable by either spelling. */
const zoneLabel = (zone: string) => zone.replace(/_/g, ' ').replace(/\//g, ' / ');

/** Letters and digits only, lower case: "America/Los_An", "america los an" and the label all find Los Angeles. */
const squashed = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/** Whether a zone is one the search means: typed as its name (America/Los_Angeles) or as it is listed. */
export function zoneMatches(input: string, option?: { value: string }): boolean {
  return option !== undefined && squashed(option.value).includes(squashed(input));
}

/** The person's name, time zone and daily reminder, saved together. */
export function SettingsForm({ settings }: { settings: UserSettingsView }) {
  const [form] = Form.useForm<Values>();
  const change = useChangeSettings();
  const saveButton = useRef<HTMLButtonElement>(null);
  const [error, setError] = useState<string | null>(null);
  const zones = useMemo(() => {
    const names = timeZoneNames();
    // The saved zone may be a name this browser lists under another spelling (Asia/Kolkata, Asia/Calcutta).
    if (settings.timeZone && !names.includes(settings.timeZone)) names.unshift(settings.timeZone);
    return names.map((zone) => ({ value: zone, label: zoneLabel(zone) }));
  }, [settings.timeZone]);
  // The form's values as they are typed (for Save's state and the time field), reset to the saved ones.
  const [current, setCurrent] = useState<Values>(() => valuesOf(settings));
  const remind = current.remind;
  const dirty = Object.keys(changesOf(current, settings)).length > 0;
  const browserZone = browserTimeZone();
  useLeaveGuard(dirty && !change.isPending, 'Your changes to your settings are not saved yet.');

  useEffect(() => {
    form.setFieldsValue(valuesOf(settings));
    setCurrent(valuesOf(settings));
  }, [form, settings]);

  const useBrowserZone = (zone: string) => {
    form.setFieldValue('timeZone', zone);
    setCurrent((values) => ({ ...values, timeZone: zone }));
  };

  const save = (values: Values) => {
    setError(null);
    const changes = changesOf(values, settings);
    if (Object.keys(changes).length === 0) return;
    // Saved, the button is disabled once the saved settings are shown (nothing left to save), and the browser drops
    // its focus: the focus goes to the card instead, whenever that happens.
    const button = saveButton.current;
    const toCard = button ? focusContainerOf(button) : null;
    const moveFocus = () => {
      if (button?.disabled && (dropped() || document.activeElement === button)) toCard?.();
    };
    change.mutate(changes, {
      onSuccess: () => {
        if (!button) return;
        const observer = new MutationObserver(() => {
          if (!button.disabled) return;
          observer.disconnect();
          setTimeout(moveFocus);
        });
        observer.observe(button, { attributes: true, attributeFilter: ['disabled'] });
        setTimeout(() => observer.disconnect(), 5000);
        if (button.disabled) {
          observer.disconnect();
          setTimeout(moveFocus);
        }
      },
      onError: (err) => {
        const { code, message } = parseApiError(err);
        if (code === 'request.invalid' && message) setError(message);
      },
    });
  };

  return (
    <Card title={<h2 className="card-title">Your Settings</h2>}>
      <Form
        form={form}
        layout="vertical"
        onFinish={save}
        onValuesChange={(_changed, all: Values) => setCurrent({ ...valuesOf(settings), ...all })}
        requiredMark={false}
        initialValues={valuesOf(settings)}
        className="settings-form"
      >
        <Form.Item
          label="First name"
          name="firstName"
          extra="The name the members of your groups see, next to your e-mail address."
          rules={[
            { required: true, whitespace: true, message: 'Please enter your first name.' },
          ]}
        >
          {/* Cut to the limit as people count characters: the field cannot hold a name the server refuses. */}
          <Input autoComplete="given-name" count={{ ...characterLimit(DISPLAY_NAME_MAX), show: false }} />
        </Form.Item>
        <Form.Item
          label="Time zone"
          name="timeZone"
          extra={
            <>
              Your days (streaks, weekly averages, the reminder) are counted in this zone.
              {browserZone && current.timeZone !== browserZone && (
                <>
                  {' '}
                  <Button type="link" size="small" className="settings-form__inline-link" onClick={() => useBrowserZone(browserZone)}>
                    Use this device's zone ({zoneLabel(browserZone)})
                  </Button>
                </>
              )}
            </>
          }
          rules={[{ required: true, message: 'Please choose your time zone.' }]}
        >
          <Select showSearch options={zones} filterOption={zoneMatches} aria-label="Time zone" virtual popupMatchSelectWidth />
        </Form.Item>
        <Form.Item label="Daily reminder" className="settings-form__reminder">
          <div className="settings-form__reminder-row">
            <Form.Item name="remind" valuePropName="checked" noStyle>
              <Switch aria-label="Remind me to rate my day" />
            </Form.Item>
            <span>Remind me at</span>
            <Form.Item
              name="reminderTime"
              noStyle
              rules={[{ validator: async (_r, value: string) => (!remind || isReminderTime(value) ? undefined : Promise.reject(new Error('Choose a time.'))) }]}
            >
              <Input type="time" aria-label="Reminder time" disabled={!remind} className="settings-form__time" />
            </Form.Item>
          </div>
          <Typography.Paragraph type="secondary" className="settings-form__help">
            Only on days you have not rated yet, once a day, in your time zone: on Home, and as a notification on the devices where you
            enable it below.
          </Typography.Paragraph>
        </Form.Item>
        {error && <Alert type="error" showIcon title={error} className="settings-form__error" />}
        <Button ref={saveButton} type="primary" htmlType="submit" loading={change.isPending} disabled={!dirty}>
          Save Settings
        </Button>
      </Form>
    </Card>
  );
}
