import { Link } from 'react-router-dom';

export function SiteFooter() {
  return (
    <footer className="site-footer">
      <nav aria-label="Footer" className="site-footer__links">
        <Link to="/help">Help &amp; Support</Link>
        <Link to="/privacy">Privacy Policy</Link>
        <Link to="/terms">Terms of Service</Link>
      </nav>
      <p className="site-footer__note">© {new Date().getFullYear()} Joy · Find It. Measure It. Share It.</p>
    </footer>
  );
}
