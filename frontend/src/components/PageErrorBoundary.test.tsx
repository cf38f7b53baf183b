import { act, render, screen } from '@testing-library/react';
import { lazy, Suspense } from 'react';
import { PageErrorBoundary, PageFailed } from './PageErrorBoundary';

function Page({ resetKey, failing }: { resetKey: string; failing: boolean }) {
  return (
    <PageErrorBoundary resetKey={resetKey}>
      <Suspense fallback={<p>Loading</p>}>{failing ? <Unfetchable /> : <p>The other page</p>}</Suspense>
    </PageErrorBoundary>
  );
}

// As a browser reports a page whose code could not be fetched.
const Unfetchable = lazy(() => Promise.reject(new TypeError('Failed to fetch dynamically imported module: http://localhost/assets/History-x.js')));

describe('PageErrorBoundary', () => {
  beforeEach(() => jest.spyOn(console, 'error').mockImplementation(() => undefined)); // React reports the caught error
  afterEach(() => jest.restoreAllMocks());

  it('shows what happened and Try again instead of a blank screen, and lets the next page render', async () => {
    const { rerender } = render(<Page resetKey="/history" failing />);
    expect(await screen.findByRole('heading', { level: 1, name: 'This page could not be loaded' })).toBeInTheDocument();
    expect(screen.getByText(/the connection may have dropped, or Joy was just updated/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Try again' })).toBeInTheDocument();
    rerender(<Page resetKey="/dashboard" failing={false} />);
    expect(screen.getByText('The other page')).toBeInTheDocument();
  });

  it('names any other failure of a page as such', async () => {
    function Broken(): never {
      throw new Error('x is undefined');
    }
    render(
      <PageErrorBoundary resetKey="/">
        <Broken />
      </PageErrorBoundary>,
    );
    expect(await screen.findByRole('heading', { level: 1, name: 'Something went wrong' })).toBeInTheDocument();
  });
  it('fetches a page that failed to load again once the connection is back (the offline banner says Joy reconnects by itself)', async () => {
    const reload = jest.fn();
    const failure = new TypeError('Failed to fetch dynamically imported module: http://localhost/assets/History-x.js');
    const { unmount } = render(<PageFailed error={failure} reload={reload} />);
    expect(reload).not.toHaveBeenCalled();
    act(() => void window.dispatchEvent(new Event('online')));
    expect(reload).toHaveBeenCalledTimes(1);
    unmount();
    // Any other failure is not a matter of the connection: no reload of its own.
    render(<PageFailed error={new Error('x is undefined')} reload={reload} />);
    act(() => void window.dispatchEvent(new Event('online')));
    expect(reload).toHaveBeenCalledTimes(1);
  });
});
