import { configure } from '@testing-library/react';
import { bindNotifier } from '../lib/toast';

/**
 * The setup every test of antd pages and dialogs shares; returns the notifier whose calls are the toasts shown.
 * jsdom has no getComputedStyle(elt, pseudoElt) (antd's Modal scroll lock calls it) nor scrollTo; and heavy antd
 * renders on a machine shared with other test runs get generous time.
 */
export function antdPageTests() {
  const notifier = { error: jest.fn(), success: jest.fn(), info: jest.fn(), warning: jest.fn(), open: jest.fn(), destroy: jest.fn() };
  const getComputedStyle = window.getComputedStyle.bind(window);
  beforeAll(() => {
    jest.spyOn(window, 'scrollTo').mockImplementation(() => undefined);
    jest.spyOn(window, 'getComputedStyle').mockImplementation((elt) => getComputedStyle(elt));
  });
  beforeEach(() => {
    jest.clearAllMocks();
    bindNotifier(notifier);
  });
  configure({ asyncUtilTimeout: 15000 });
  jest.setTimeout(60000);
  return notifier;
}
