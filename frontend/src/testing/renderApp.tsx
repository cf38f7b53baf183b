import type { ReactElement } from 'react';
import { QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { createQueryClient } from '../api';
import { AppRoutes } from '../App';
import { LeaveGuardProvider } from '../components/LeaveGuard';

const inLeaveGuard = (element: ReactElement) => <LeaveGuardProvider>{element}</LeaveGuardProvider>;

/** The whole app's routes at `path`, under a data router as in the app, with a fresh query client (the fake server answers its calls). */
export function renderAppAt(path: string) {
  const router = createMemoryRouter([{ path: '*', element: inLeaveGuard(<AppRoutes />) }], { initialEntries: [path] });
  return render(
    <QueryClientProvider client={createQueryClient()}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
}

/** `element` under a data router of its own with the app's leave guard, as the app's pages are. */
export function inDataRouter(element: ReactElement) {
  return <RouterProvider router={createMemoryRouter([{ path: '*', element: inLeaveGuard(element) }])} />;
}

/** One page or component on its own, with a router and a fresh query client (the fake server answers its calls). */
export function renderPage(page: ReactElement) {
  return render(<QueryClientProvider client={createQueryClient()}>{inDataRouter(page)}</QueryClientProvider>);
}
