import { act, fireEvent, render, screen } from '@testing-library/react';
import { useEffect, useRef, useState } from 'react';
import { Link, MemoryRouter, Route, Routes, useNavigate } from 'react-router-dom';
import { FocusNewPage } from './FocusNewPage';

/** A page whose heading comes later, as a lazy page's does. */
function LatePage({ name }: { name: string }) {
  const [shown, setShown] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setShown(true), 50);
    return () => clearTimeout(timer);
  }, []);
  return <main>{shown ? <h1>{name}</h1> : <p>Loading</p>}</main>;
}

/** A page that puts the focus somewhere of its own (Groups' View button, back from a group). */
function SelfFocusingPage() {
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => button.current?.focus(), []);
  return (
    <main>
      <h1>Groups</h1>
      <button ref={button}>View Book club</button>
    </main>
  );
}

function Home() {
  const navigate = useNavigate();
  return (
    <main>
      <h1>Home</h1>
      <button onClick={() => navigate(-1)}>Back</button>
      <Link to="/help#rating">Help part</Link>
    </main>
  );
}

/** A confirmation bubble's button (antd puts it in the body, outside the page) that moves to another page. */
function ConfirmOutside() {
  const navigate = useNavigate();
  return (
    <div className="ant-popover">
      <button onClick={() => navigate('/help')}>Leave group</button>
    </div>
  );
}

function renderApp(initial = '/') {
  render(
    <MemoryRouter initialEntries={[initial]}>
      <header>
        <nav>
          <Link to="/">Home link</Link>
          <Link to="/history">History</Link>
          <Link to="/groups">Groups link</Link>
          <Link to="/help">Help</Link>
        </nav>
      </header>
      <ConfirmOutside />
      <FocusNewPage />
      <Routes>
        <Route path="/" element={<Home />} />
        <Route path="/history" element={<LatePage name="Your History" />} />
        <Route path="/groups" element={<SelfFocusingPage />} />
        <Route path="/help" element={<main><h1>Help</h1></main>} />
      </Routes>
    </MemoryRouter>,
  );
}

const follow = (name: string) => {
  const link = screen.getByRole('link', { name });
  link.focus();
  act(() => fireEvent.click(link));
};

describe('a new page takes the focus to its heading', () => {
  it('leaves the first page alone', () => {
    renderApp();
    expect(document.activeElement).toBe(document.body);
  });

  it('moves the focus from the followed link to the new heading, once the heading is there', async () => {
    renderApp();
    follow('History');
    expect(document.activeElement).toBe(screen.getByRole('link', { name: 'History' })); // the page is still loading
    const heading = await screen.findByRole('heading', { name: 'Your History' });
    expect(document.activeElement).toBe(heading);
    expect(heading.getAttribute('tabindex')).toBe('-1'); // focusable for this, not reached by Tab
  });

  it('keeps what a page focuses itself', () => {
    renderApp();
    follow('Groups link');
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'View Book club' }));
  });

  it('after Back, moves the focus the old page took away with it to the heading; leaves a link to a part of a page to the browser', () => {
    renderApp();
    follow('Help');
    expect(document.activeElement).toBe(screen.getByRole('heading', { name: 'Help' }));
    follow('Home link');
    const back = screen.getByRole('button', { name: 'Back' });
    back.focus();
    act(() => fireEvent.click(back));
    // The Back button went with Home: the focus would fall to the page (a review found it there after the browser's Back).
    expect(document.activeElement).toBe(screen.getByRole('heading', { name: 'Help' }));
    follow('Home link');
    const part = screen.getByRole('link', { name: 'Help part' });
    part.focus();
    act(() => fireEvent.click(part));
    expect(screen.getByRole('heading', { name: 'Help' })).not.toBe(document.activeElement);
  });

  it('leaves the focus to the page when the move was made from the page itself (a confirmation: focus.ts puts it)', () => {
    renderApp();
    const confirm = screen.getByRole('button', { name: 'Leave group' });
    confirm.focus();
    act(() => fireEvent.click(confirm));
    expect(screen.getByRole('heading', { name: 'Help' })).not.toBe(document.activeElement);
  });
});
