import '@testing-library/jest-dom';
import { configure } from '@testing-library/react';
import { TextDecoder, TextEncoder } from 'util';
import 'whatwg-fetch';

// The first render of a lazy page compiles antd modules: allow for it on a busy machine.
configure({ asyncUtilTimeout: 5000 });

// jsdom lacks these; react-router and Ant Design use them.
Object.assign(globalThis, { TextEncoder, TextDecoder });
// And Request (whatwg-fetch, imported above), which the app's data router makes for each move.

if (typeof window !== 'undefined') {
  if (!window.matchMedia) {
    window.matchMedia = (query: string) =>
      ({
        matches: false,
        media: query,
        onchange: null,
        addListener: () => undefined,
        removeListener: () => undefined,
        addEventListener: () => undefined,
        removeEventListener: () => undefined,
        dispatchEvent: () => false,
      }) as MediaQueryList;
  }
  // jsdom throws "Not implemented" for a pseudo-element (Ant Design's dialogs measure the scrollbar with one): the
  // element's own style instead, which is all a test can see anyway.
  const computedStyle = window.getComputedStyle.bind(window);
  window.getComputedStyle = (element: Element) => computedStyle(element);
  if (!('ResizeObserver' in window)) {
    (window as unknown as { ResizeObserver: unknown }).ResizeObserver = class {
      observe() {}
      unobserve() {}
      disconnect() {}
    };
  }
}
