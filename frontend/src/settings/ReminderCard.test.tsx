import { QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import { createQueryClient } from '../api';
import { installFakeServer, summaryRoute } from '../testing/fakeServer';
import { ReminderCard } from './ReminderCard';

describe('ReminderCard', () => {
  it('tells its "Rate today" link from the text around it by more than colour: it is underlined (axe link-in-text-block)', async () => {
    installFakeServer({ 'GET /api/settings': { status: 200, body: { timeZone: 'Europe/Berlin', reminderTime: null, acceptCareActions: true } }, ...summaryRoute(() => []) });
    render(
      <QueryClientProvider client={createQueryClient()}>
        <ReminderCard />
      </QueryClientProvider>,
    );
    const link = await screen.findByRole('link', { name: 'Rate today' });
    expect(link).toHaveAttribute('href', '#rate-today');
    // Inside a sentence of the alert's text.
    expect(link.parentElement).toHaveTextContent(/^A minute is enough: .* Rate today$/);
    expect(getComputedStyle(link).textDecorationLine || getComputedStyle(link).textDecoration).toContain('underline');
  });
});
