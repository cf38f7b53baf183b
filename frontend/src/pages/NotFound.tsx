import { CompassOutlined } from '@ant-design/icons';
import { useEffect } from 'react';
import { LinkButton } from '../components/LinkButton';

export default function NotFound() {
  useEffect(() => {
    document.title = '404 Page Not Found · Joy';
  }, []);
  return (
    <section className="not-found">
      <CompassOutlined className="not-found__icon" aria-hidden="true" />
      <h1 className="not-found__title">404 Page Not Found</h1>
      <p className="not-found__text">Did you forget to add the page to the router?</p>
      <LinkButton to="/" type="primary">
        Go to the home page
      </LinkButton>
    </section>
  );
}
