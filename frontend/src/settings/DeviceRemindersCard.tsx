import { BellOutlined } from '@ant-design/icons';
import { Button, Card, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { toast } from '../lib/toast';
import { deviceReminders, disableDeviceReminders, enableDeviceReminders, type DeviceReminders } from './push';

const EXPLANATION: Record<DeviceReminders, string> = {
  on: 'This device shows your daily reminder as a notification.',
  off: 'Get your daily reminder as a notification on this device, even when Joy is closed.',
  blocked: 'Notifications from Joy are blocked in this browser. Allow them in the site settings of your browser, then come back here.',
  unsupported: 'This browser cannot show notifications from Joy. The reminder still appears on Home.',
};

/** "Enable reminders on this device": asks for permission, subscribes this browser, registers it with the server. */
export function DeviceRemindersCard({ reminderSet }: { reminderSet: boolean }) {
  const [state, setState] = useState<DeviceReminders | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    deviceReminders()
      .then(setState)
      .catch(() => setState('unsupported'));
  }, []);

  const run = (action: () => Promise<DeviceReminders>, done: string) => {
    setBusy(true);
    action()
      .then((next) => {
        setState(next);
        if (next === 'on' || next === 'off') toast({ title: done, variant: 'success' });
      })
      .catch(() => toast({ title: 'Error', description: 'Reminders could not be changed on this device. Please try again.', variant: 'destructive' }))
      .finally(() => setBusy(false));
  };

  return (
    <Card title={<h2 className="card-title">Reminders on This Device</h2>}>
      <Typography.Paragraph className="device-reminders__text" data-testid="device-reminders-state">
        {state ? EXPLANATION[state] : 'Checking this device…'}
      </Typography.Paragraph>
      {state === 'on' && !reminderSet && (
        <Typography.Paragraph type="warning">Turn on your daily reminder above to choose when it comes.</Typography.Paragraph>
      )}
      {state === 'off' && (
        <Button type="primary" className="device-reminders__button" icon={<BellOutlined aria-hidden="true" />} loading={busy} onClick={() => run(enableDeviceReminders, 'Reminders enabled on this device')}>
          Enable reminders on this device
        </Button>
      )}
      {state === 'on' && (
        <Button className="device-reminders__button" loading={busy} onClick={() => run(disableDeviceReminders, 'Reminders turned off on this device')}>
          Turn off on this device
        </Button>
      )}
    </Card>
  );
}
