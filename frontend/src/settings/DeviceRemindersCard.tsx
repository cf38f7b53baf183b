import { BellOutlined } from '@ant-design/icons';
import { Button, Card, Typography } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { dropped, focusContainerOf } from '../lib/focus';
import { toast } from '../lib/toast';
import { deviceReminders, disableDeviceReminders, enableDeviceReminders, type DeviceReminders } from './push';

/** An iPhone or iPad in a Safari tab: Web Push comes only to Joy added to the Home Screen and opened from there. */
function iosTab(): boolean {
  const ios = /iPhone|iPad|iPod/.test(navigator.userAgent) || (navigator.platform === 'MacIntel' && navigator.maxTouchPoints > 1);
  return ios && (navigator as Navigator & { standalone?: boolean }).standalone !== true;
}

function explanation(state: DeviceReminders): string {
  switch (state) {
    case 'on':
      return 'This device shows your daily reminder as a notification.';
    case 'off':
      return 'Get your daily reminder as a notification on this device, even when Joy is closed.';
    case 'blocked':
      return 'Notifications from Joy are blocked in this browser. Allow them in the site settings of your browser, then come back here. A private window cannot receive them: use a regular window.';
    case 'unsupported':
      // Said before any attempt where it is known (no Push API), or after the browser refused (a private window).
      return iosTab()
        ? "This browser window can't receive notifications. On an iPhone or iPad, add Joy to your Home Screen (Share, then Add to Home Screen) and open it from there. The reminder still appears on Home."
        : "This browser window can't receive notifications. Try Joy in a regular window of Chrome, Edge, Firefox or Safari. The reminder still appears on Home.";
  }
}

/** "Enable reminders on this device": asks for permission, subscribes this browser, registers it with the server. */
export function DeviceRemindersCard({ reminderSet }: { reminderSet: boolean }) {
  const [state, setState] = useState<DeviceReminders | null>(null);
  const [busy, setBusy] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  // After an action, where the focus goes once the button it was on has been replaced (or is gone: 'unsupported').
  const refocus = useRef<(() => void) | null>(null);

  useEffect(() => {
    deviceReminders()
      .then(setState)
      .catch(() => setState('unsupported'));
  }, []);

  useEffect(() => {
    const toCard = refocus.current;
    refocus.current = null;
    if (!toCard || !dropped()) return;
    if (button.current) button.current.focus();
    else toCard();
  }, [state]);

  const run = (action: () => Promise<DeviceReminders>, done: string) => {
    setBusy(true);
    if (button.current) refocus.current = focusContainerOf(button.current);
    action()
      .then((next) => {
        setState(next);
        if (next === 'on' || next === 'off') toast({ title: done, variant: 'success' });
      })
      // Only what a retry can mend gets here (the connection, Joy's server): the browser's own refusal is 'unsupported'.
      .catch(() => toast({ title: 'Error', description: 'Reminders could not be changed on this device. Please try again.', variant: 'destructive' }))
      .finally(() => setBusy(false));
  };

  const text = (
    <Typography.Paragraph className="device-reminders__text" data-testid="device-reminders-state">
      {state ? explanation(state) : 'Checking this device…'}
    </Typography.Paragraph>
  );
  // What stands in the way (blocked, or this window can't: no toast says it) is read out where the button was, in a
  // status there from the start; the plain explanations are text, not announced at each visit.
  const found = state === 'blocked' || state === 'unsupported';

  return (
    <Card title={<h2 className="card-title">Reminders on This Device</h2>}>
      {!found && text}
      <div role="status">{found && text}</div>
      {state === 'on' && !reminderSet && (
        <Typography.Paragraph type="warning">Turn on your daily reminder above to choose when it comes.</Typography.Paragraph>
      )}
      {state === 'off' && (
        <Button ref={button} type="primary" className="device-reminders__button" icon={<BellOutlined aria-hidden="true" />} loading={busy} onClick={() => run(enableDeviceReminders, 'Reminders enabled on this device')}>
          Enable reminders on this device
        </Button>
      )}
      {state === 'on' && (
        <Button ref={button} className="device-reminders__button" loading={busy} onClick={() => run(disableDeviceReminders, 'Reminders turned off on this device')}>
          Turn off on this device
        </Button>
      )}
    </Card>
  );
}
