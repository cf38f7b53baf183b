import { HeartOutlined } from '@ant-design/icons';
import { Card, Tag, Typography } from 'antd';
import { CareListItem } from '../care/CareReceived';
import { cancelledText, sentTitle } from '../care/logic';
import { useSentCare } from '../care/queries';
import '../care/care.css';
import { LinkButton } from '../components/LinkButton';
import { PageHeader } from '../components/PageHeader';
import { PageLoading } from '../components/PageLoading';
import { formatDateTime } from '../lib/dates';
import { usePersonTimeZone } from '../settings/api';

/**
 * /care/sent: the care actions the person sent (GET /api/care-actions/sent), newest first, "Thanked" once thanked,
 * and why one was not sent after all.
 */
export default function CareSentPage() {
  const sent = useSentCare();
  const zone = usePersonTimeZone();
  const list = sent.data ?? [];
  return (
    <div className="care-sent">
      <PageHeader title="Care You Sent" subtitle="Flowers, cards and gifts you sent to your groups, and who said thanks." />
      {sent.isLoading ? (
        <PageLoading />
      ) : sent.isError ? (
        <Card>
          <Typography.Text type="danger">The care you sent could not be loaded. Please reload the page.</Typography.Text>
        </Card>
      ) : list.length === 0 ? (
        <Card>
          <Typography.Paragraph className="care-sent__empty">
            You have not sent any care yet. When a member of one of your groups could use some support, their group page
            suggests it.
          </Typography.Paragraph>
          <LinkButton to="/groups">Go to your groups</LinkButton>
        </Card>
      ) : (
        <Card>
          <ul className="care-received__list" data-testid="care-sent">
            {list.map((care) => (
              <CareListItem key={care.id} care={care} title={sentTitle(care)}>
                {care.status === 'cancelled' && <span className="care-sent__cancelled">{cancelledText(care)}</span>}
                {care.thankedAt && (
                  <Tag className="care-received__thanked" icon={<HeartOutlined aria-hidden="true" />} title={`Thanked ${formatDateTime(care.thankedAt, { timeZone: zone })}`}>
                    Thanked
                  </Tag>
                )}
              </CareListItem>
            ))}
          </ul>
        </Card>
      )}
    </div>
  );
}
