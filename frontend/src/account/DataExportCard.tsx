import { DownloadOutlined } from '@ant-design/icons';
import { Button, Card, Typography } from 'antd';
import { EXPORT_URLS } from './api';

/** "Your Data": the export as JSON or CSV, each a plain download link (the browser saves the streamed file). */
export function DataExportCard() {
  return (
    <Card title={<h2 className="card-title">Your Data</h2>}>
      <Typography.Paragraph className="account-data__text">
        Download everything Joy keeps about you: your profile, every rating with all five factors and its overall
        score, the groups you are in, and the care actions you sent and received.
      </Typography.Paragraph>
      <div className="account-data__actions">
        <Button href={EXPORT_URLS.json} download icon={<DownloadOutlined aria-hidden="true" />}>
          Download JSON
        </Button>
        <Button href={EXPORT_URLS.csv} download icon={<DownloadOutlined aria-hidden="true" />}>
          Download CSV
        </Button>
      </div>
    </Card>
  );
}
