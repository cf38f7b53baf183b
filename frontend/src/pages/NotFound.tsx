import { CompassOutlined } from '@ant-design/icons';
import { LinkButton } from '../components/LinkButton';
import { StatusNotice } from '../components/StatusNotice';

export default function NotFound() {
  return (
    <StatusNotice Icon={CompassOutlined} title="404 Page Not Found" text="Did you forget to add the page to the router?">
      <LinkButton to="/" type="primary">
        Go to the home page
      </LinkButton>
    </StatusNotice>
  );
}
