import { render, screen } from '@testing-library/react';
import { scoreBand } from '../lib/score';
import { JoyGauge } from './JoyGauge';

describe('JoyGauge', () => {
  it('writes its band ("Moderate Joy") as text with a title’s look, not as a heading (axe heading-order under a card’s h2)', () => {
    render(
      <section>
        <h2>Your Current Joy Level</h2>
        <JoyGauge score={3} caption="Rated today at 9:00 AM" />
      </section>,
    );
    const band = screen.getByText('Moderate Joy');
    expect(screen.getAllByRole('heading').map((h) => h.textContent)).toEqual(['Your Current Joy Level']);
    expect(band.closest('h1, h2, h3, h4, h5, h6')).toBeNull();
    // The look it had as an antd level-4 title: the band's colour, larger and bold.
    expect(band).toHaveClass('joy-gauge__band');
    expect(band).toHaveStyle({ color: scoreBand(3).color, fontWeight: '600', fontSize: '20px' });
    expect(screen.getByRole('group', { name: 'Overall joy score 3.0 out of 5: Moderate Joy' })).toContainElement(band);
  });
});
