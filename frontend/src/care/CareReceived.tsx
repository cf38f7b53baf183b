import { Avatar, Card, Tag } from 'antd';
import { CareIcon } from './CareIcon';
import { receivedTitle, receivedWhen, statusText } from './logic';
import { useReceivedCare } from './queries';
import './care.css';

/** Home: "Care You Received", newest first; shown only when there is some. */
export function CareReceived() {
  const received = useReceivedCare();
  const list = received.data ?? [];
  if (list.length === 0) return null;
  return (
    <Card title={<h2 className="card-title">Care You Received</h2>} className="home-card care-received">
      <ul className="care-received__list" data-testid="care-received">
        {list.map((care) => (
          <li key={care.id} className="care-received__item">
            <Avatar size={40} className="care-received__icon" icon={<CareIcon kind={care.kind} />} />
            <div className="care-received__text">
              <span className="care-received__title">{receivedTitle(care)}</span>
              {care.message && <blockquote className="care-received__message">{care.message}</blockquote>}
              <span className="care-received__meta">
                <time dateTime={care.sentAt} title={new Date(care.sentAt).toLocaleString()}>
                  {receivedWhen(care.sentAt)}
                </time>
                <Tag className={`care-received__status care-received__status--${care.status}`}>{statusText(care.status)}</Tag>
              </span>
            </div>
          </li>
        ))}
      </ul>
    </Card>
  );
}
