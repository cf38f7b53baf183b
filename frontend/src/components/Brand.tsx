import { Link } from 'react-router-dom';

/** The Joy mark and name, linking home. */
export function Brand({ onClick }: { onClick?: () => void }) {
  return (
    <Link to="/" className="brand" aria-label="Joy home" onClick={onClick}>
      <img src="/icon.svg" alt="" width={32} height={32} />
      <span className="brand__name">Joy</span>
    </Link>
  );
}
