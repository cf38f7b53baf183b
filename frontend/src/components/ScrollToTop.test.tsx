import { act, fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useNavigate, useSearchParams } from 'react-router-dom';
import { ScrollToTop } from './ScrollToTop';

/** A page with the ways the app changes page: a link's push, a replace, a search change (Groups), Back and a #part. */
function Page({ name }: { name: string }) {
  const navigate = useNavigate();
  const [, setParams] = useSearchParams();
  return (
    <>
      <h1>{name}</h1>
      <button onClick={() => navigate('/groups?group=g1')}>Open group</button>
      <button onClick={() => setParams({})}>Back to Groups</button>
      <button onClick={() => navigate('/dashboard', { replace: true })}>Replace</button>
      <button onClick={() => navigate(-1)}>Back</button>
      <button onClick={() => navigate('/help#rating')}>Help part</button>
    </>
  );
}

function renderRouter() {
  render(
    <MemoryRouter initialEntries={['/groups']}>
      <ScrollToTop />
      <Routes>
        <Route path="*" element={<Page name="page" />} />
      </Routes>
    </MemoryRouter>,
  );
}

let scrollTo: jest.SpyInstance;
beforeEach(() => {
  scrollTo = jest.spyOn(window, 'scrollTo').mockImplementation(() => undefined);
});
afterEach(() => scrollTo.mockRestore());

const click = (name: string) => act(() => fireEvent.click(screen.getByRole('button', { name })));

describe('a change of page starts at its top', () => {
  it('leaves the first page where the browser put it', () => {
    renderRouter();
    expect(scrollTo).not.toHaveBeenCalled();
  });

  it('scrolls to the top at once on a new page, a replaced one and a search change (Leave group: back to the list)', () => {
    renderRouter();
    click('Open group');
    expect(scrollTo).toHaveBeenLastCalledWith({ top: 0, left: 0, behavior: 'instant' });
    click('Back to Groups');
    click('Replace');
    expect(scrollTo).toHaveBeenCalledTimes(3);
  });

  it('survives a scrollTo that answers a promise (Chromium): moving on does not take the app down', () => {
    scrollTo.mockImplementation(() => Promise.resolve() as unknown as void);
    renderRouter();
    click('Open group');
    click('Back to Groups');
    click('Replace');
    expect(scrollTo).toHaveBeenCalledTimes(3);
    expect(screen.getByRole('heading', { name: 'page' })).toBeInTheDocument();
  });

  it("keeps the browser's own restoration on Back and Forward, and a link's #part", () => {
    renderRouter();
    click('Open group');
    scrollTo.mockClear();
    click('Back');
    click('Help part');
    expect(scrollTo).not.toHaveBeenCalled();
  });
});
