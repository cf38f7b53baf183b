import { bindNotifier } from './toast';
import { LOGIN_URL, browser, handleUnauthorized, resetUnauthorizedForTests } from './session';

describe('handleUnauthorized', () => {
  const notifier = { error: jest.fn(), success: jest.fn(), info: jest.fn(), warning: jest.fn(), open: jest.fn(), destroy: jest.fn() };

  beforeEach(() => {
    jest.useFakeTimers();
    resetUnauthorizedForTests();
    bindNotifier(notifier);
    jest.clearAllMocks();
  });

  afterEach(() => {
    jest.useRealTimers();
    bindNotifier(null);
  });

  it('toasts "Unauthorized" and goes to /api/login after 500 ms, once', () => {
    const navigate = jest.spyOn(browser, 'navigate').mockImplementation(() => undefined);
    handleUnauthorized();
    handleUnauthorized();

    expect(notifier.error).toHaveBeenCalledTimes(1);
    expect(notifier.error).toHaveBeenCalledWith(
      expect.objectContaining({ title: 'Unauthorized', description: 'You are logged out. Logging in again...', duration: 5 }),
    );
    jest.advanceTimersByTime(499);
    expect(navigate).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(navigate).toHaveBeenCalledTimes(1);
    expect(navigate).toHaveBeenCalledWith(LOGIN_URL);
    expect(LOGIN_URL).toBe('/api/login');
  });
});
