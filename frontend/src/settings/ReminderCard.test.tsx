import { QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen } from '@testing-library/react';
import { createQueryClient } from '../api';
import { installFakeServer, summaryRoute } from '../testing/fakeServer';
import { ratingsFrom } from '../testing/ratings';
import { ReminderCard } from './ReminderCard';

describe('ReminderCard', () => {
  it('tells its "Rate today" link from the text around it by more than colour: it is underlined (axe link-in-text-block)', async () => {
    installFakeServer({ 'GET /api/settings': { status: 200, body: { timeZone: 'Europe/Berlin', reminderTime: '00:00', acceptCareActions: true } }, ...summaryRoute(() => []) });
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

  // A review (11-27): the in-app reminder showed at any hour, and with reminders off (PRODUCT.md: "at the person's
  // chosen time ... in the app").
  const renderWith = (reminderTime: string | null, ratedToday = false) => {
    installFakeServer({
      'GET /api/settings': { status: 200, body: { timeZone: 'UTC', reminderTime, acceptCareActions: true } },
      ...summaryRoute(() => (ratedToday ? ratingsFrom([3], new Date().toISOString()) : [])),
    });
    render(
      <QueryClientProvider client={createQueryClient()}>
        <ReminderCard />
        <span>rendered</span>
      </QueryClientProvider>,
    );
  };
  const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

  it('shows from the reminder time on while today is not rated', async () => {
    renderWith('00:00');
    expect(await screen.findByText("You haven't rated today yet")).toBeInTheDocument();
  });

  it('shows nothing with reminders off, before the reminder time, or once today is rated', async () => {
    renderWith(null);
    await settle();
    expect(screen.queryByText("You haven't rated today yet")).not.toBeInTheDocument();
    cleanup();
    renderWith('23:59'); // only a test run in the last minute of a UTC day would see it
    await settle();
    if (new Date().toISOString().slice(11, 16) < '23:59') expect(screen.queryByText("You haven't rated today yet")).not.toBeInTheDocument();
    cleanup();
    renderWith('00:00', true);
    await settle();
    expect(screen.queryByText("You haven't rated today yet")).not.toBeInTheDocument();
  });
});
