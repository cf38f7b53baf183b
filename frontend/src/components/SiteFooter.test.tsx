import { render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { SiteFooter } from './SiteFooter';

describe('SiteFooter', () => {
  afterEach(() => jest.useRealTimers());

  it('links the help and legal pages and dates the copyright this year', () => {
    jest.useFakeTimers({ now: new Date('2027-03-01T12:00:00Z') });
    render(
      <MemoryRouter>
        <SiteFooter />
      </MemoryRouter>,
    );
    expect(screen.getByRole('link', { name: 'Help & Support' })).toHaveAttribute('href', '/help');
    expect(screen.getByRole('link', { name: 'Privacy Policy' })).toHaveAttribute('href', '/privacy');
    expect(screen.getByRole('link', { name: 'Terms of Service' })).toHaveAttribute('href', '/terms');
    expect(screen.getByText('© 2027 Joy · Find It. Measure It. Share It.')).toBeInTheDocument();
  });
});
