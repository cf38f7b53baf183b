import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { App as AntApp } from 'antd';
import { bindNotifier } from '../lib/toast';
import { installFakeServer } from '../testing/fakeServer';
import { DeviceRemindersCard } from './DeviceRemindersCard';
import { forgetDeviceReminders } from './push';

jest.setTimeout(30_000);

const notifier = { error: jest.fn(), success: jest.fn(), info: jest.fn(), warning: jest.fn(), open: jest.fn(), destroy: jest.fn() };
const CANNOT = /This browser window can't receive notifications\. Try Joy in a regular window of Chrome, Edge, Firefox or Safari\./;

interface FakePush {
  /** What PushManager.subscribe does. */
  subscribe: jest.Mock;
}

/** A browser with the Push API (as a private window has it), whose parts do what the test says. */
function installPush(permission: NotificationPermission = 'granted'): FakePush {
  const subscribe = jest.fn();
  const registration = { pushManager: { getSubscription: async () => null, subscribe } };
  Object.defineProperty(navigator, 'serviceWorker', {
    configurable: true,
    value: { getRegistration: async () => registration, register: async () => registration, ready: Promise.resolve(registration) },
  });
  Object.assign(window, {
    PushManager: function PushManager() {},
    Notification: { permission: 'default', requestPermission: async () => permission },
  });
  return { subscribe };
}

function removePush() {
  delete (navigator as unknown as Record<string, unknown>).serviceWorker;
  delete (window as unknown as Record<string, unknown>).PushManager;
  delete (window as unknown as Record<string, unknown>).Notification;
}

function renderCard() {
  render(
    <AntApp>
      <DeviceRemindersCard reminderSet />
    </AntApp>,
  );
}

beforeEach(() => {
  jest.clearAllMocks();
  bindNotifier(notifier);
  sessionStorage.clear();
  installFakeServer({ 'GET /api/push/public-key': { status: 200, body: { publicKey: 'BAAA' } }, 'POST /api/push/subscriptions': { status: 204 } });
});
afterEach(removePush);

describe('Reminders on This Device, where the browser cannot receive notifications', () => {
  it('says so at once, with no button, in a browser without the Push API', async () => {
    removePush();
    renderCard();
    expect(await screen.findByRole('status')).toHaveTextContent(CANNOT);
    expect(screen.queryByRole('button', { name: 'Enable reminders on this device' })).not.toBeInTheDocument();
  });

  it("in a private window (the push service refuses): says this window can't, not 'Please try again', and offers no retry", async () => {
    const push = installPush();
    // Chromium's answer in a private window (and without a push service), with notifications allowed.
    push.subscribe.mockRejectedValue(new DOMException('Registration failed - permission denied', 'AbortError'));
    renderCard();
    const enable = await screen.findByRole('button', { name: 'Enable reminders on this device' });
    enable.focus();
    fireEvent.click(enable);

    await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent(CANNOT));
    expect(push.subscribe).toHaveBeenCalled();
    expect(notifier.error).not.toHaveBeenCalled();
    expect(screen.queryByRole('button', { name: 'Enable reminders on this device' })).not.toBeInTheDocument();
    // The button is gone: the focus is on its card, not dropped to the page.
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('status').closest('.ant-card')));
  });

  it('remembers it for the tab: back on Settings, it is said before trying', async () => {
    const push = installPush();
    push.subscribe.mockRejectedValue(new DOMException('Registration failed - permission denied', 'AbortError'));
    renderCard();
    fireEvent.click(await screen.findByRole('button', { name: 'Enable reminders on this device' }));
    await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent(CANNOT));

    document.body.innerHTML = '';
    renderCard();
    await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent(CANNOT));
    expect(screen.queryByRole('button', { name: 'Enable reminders on this device' })).not.toBeInTheDocument();
  });

  it('keeps "Please try again" for what a retry can mend (offline, the push service out of reach)', async () => {
    const push = installPush();
    push.subscribe.mockRejectedValue(new DOMException('Registration failed - push service error', 'AbortError'));
    const onLine = jest.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    try {
      renderCard();
      fireEvent.click(await screen.findByRole('button', { name: 'Enable reminders on this device' }));
      await waitFor(() =>
        expect(notifier.error).toHaveBeenCalledWith(expect.objectContaining({ description: 'Reminders could not be changed on this device. Please try again.' })),
      );
      expect(screen.getByRole('button', { name: 'Enable reminders on this device' })).toBeInTheDocument();
    } finally {
      onLine.mockRestore();
    }
  });

  it('offers them in plain text, not in a status announced at each visit (the status stays empty)', async () => {
    installPush();
    renderCard();
    await screen.findByRole('button', { name: 'Enable reminders on this device' });
    const text = screen.getByText('Get your daily reminder as a notification on this device, even when Joy is closed.');
    expect(text.closest('[role="status"], [aria-live]')).toBeNull();
    expect(screen.getByRole('status')).toBeEmptyDOMElement();
  });

  it('enables reminders where the browser can', async () => {
    const push = installPush();
    push.subscribe.mockResolvedValue({
      endpoint: 'https://push.example/1',
      options: {},
      toJSON: () => ({ endpoint: 'https://push.example/1', keys: { p256dh: 'k', auth: 'a' } }),
    });
    renderCard();
    const enable = await screen.findByRole('button', { name: 'Enable reminders on this device' });
    enable.focus();
    fireEvent.click(enable);
    await screen.findByText('This device shows your daily reminder as a notification.');
    expect(notifier.success).toHaveBeenCalledWith(expect.objectContaining({ title: 'Reminders enabled on this device' }));
    // The button that took Enable's place has the focus.
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Turn off on this device' })));
  });
});

// A review (11-27): after Sign out, the next person at a shared browser was told "This device shows your daily
// reminder" and the first person's reminders kept coming.
describe('Sign out on a browser that receives reminders', () => {
  it('has the server forget this browser and drops its subscription, registering nothing', async () => {
    installPush();
    const unsubscribe = jest.fn(async () => true);
    const subscription = { endpoint: 'https://push.example/abc', unsubscribe };
    const register = jest.fn();
    Object.defineProperty(navigator, 'serviceWorker', {
      configurable: true,
      value: { getRegistration: async () => ({ pushManager: { getSubscription: async () => subscription } }), register },
    });
    const fetchMock = installFakeServer({ 'DELETE /api/push/subscriptions': { status: 204 } });
    await forgetDeviceReminders();
    expect(fetchMock).toHaveBeenCalledWith('/api/push/subscriptions', expect.objectContaining({ method: 'DELETE', body: JSON.stringify({ endpoint: 'https://push.example/abc' }) }));
    expect(unsubscribe).toHaveBeenCalled();
    expect(register).not.toHaveBeenCalled();
  });

  it('never holds Sign out up for long: it gives up after its time', async () => {
    installPush();
    Object.defineProperty(navigator, 'serviceWorker', { configurable: true, value: { getRegistration: () => new Promise(() => undefined) } });
    const started = Date.now();
    await forgetDeviceReminders(50);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
