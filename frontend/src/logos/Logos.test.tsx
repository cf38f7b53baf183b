import { render, screen } from '@testing-library/react';
import LogosPage from '../pages/Logos';

describe('Logo concepts', () => {
  it('shows the four concepts as titled SVG artwork with descriptions, and the Design Philosophy', () => {
    render(<LogosPage />);
    expect(screen.getByRole('heading', { name: 'Logo Concepts', level: 1 })).toBeInTheDocument();
    for (const name of ['Safari Joy Explorer', 'Joy Explorer', 'Heart & Community', 'Joy Gauge & Network']) {
      expect(screen.getByRole('heading', { name, level: 2 })).toBeInTheDocument();
    }
    const marks = screen.getAllByRole('img');
    expect(marks).toHaveLength(4);
    for (const mark of marks) {
      expect(mark.tagName.toLowerCase()).toBe('svg');
      expect(mark).toHaveAccessibleName();
    }
    expect(screen.getByRole('heading', { name: 'Design Philosophy' })).toBeInTheDocument();
  });
});
