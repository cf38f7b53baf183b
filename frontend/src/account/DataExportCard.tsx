import { DownloadOutlined } from '@ant-design/icons';
import { Button, Card, Typography } from 'antd';
import { useState, type MouseEvent } from 'react';
import { apiRequest, isUnauthorizedError } from '../api';
import { parseApiError } from '../lib/apiError';
import { focusWhenEnabled } from '../lib/focus';
import { toast } from '../lib/toast';
import { EXPORT_URLS } from './api';

type Format = keyof typeof EXPORT_URLS;

/** The file name the server gives (Content-Disposition), else one like it. */
function fileNameOf(res: Response, format: Format): string {
  const named = /filename="([^"]+)"/.exec(res.headers.get('Content-Disposition') ?? '');
  return named?.[1] ?? `joy-export-${new Date().toISOString().slice(0, 10)}.${format}`;
}

/**
 * "Your Data": the export as JSON or CSV. Fetched, then saved as a file: a plain download link showed nothing when
 * the server refused (the hourly limit of exports, a failure), the browser only cancelled the download.
 */
export function DataExportCard() {
  const [busy, setBusy] = useState<Format | null>(null);
  const download = async (format: Format, event: MouseEvent<HTMLElement>) => {
    // Both buttons are disabled meanwhile, and the browser drops the focus of a disabled one: back on it after.
    if (document.activeElement === event.currentTarget) focusWhenEnabled(event.currentTarget);
    setBusy(format);
    try {
      const res = await apiRequest('GET', EXPORT_URLS[format]);
      const url = URL.createObjectURL(await res.blob());
      const link = Object.assign(document.createElement('a'), { href: url, download: fileNameOf(res, format) });
      link.click();
      // Once the browser has taken the file.
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    } catch (error) {
      if (isUnauthorizedError(error)) return;
      const reason = parseApiError(error).message ?? 'Please check your connection and try again.';
      toast({ title: 'Download failed', description: reason, variant: 'destructive' });
    } finally {
      setBusy(null);
    }
  };
  return (
    <Card title={<h2 className="card-title">Your Data</h2>}>
      <Typography.Paragraph className="account-data__text">
        Download a copy of your data: your profile and settings (time zone, daily reminder, whether you accept care),
        every rating with all five factors and its overall score, the groups you are in and which of them you own, and
        the care actions you sent and received.
      </Typography.Paragraph>
      <div className="account-data__actions">
        <Button icon={<DownloadOutlined aria-hidden="true" />} loading={busy === 'json'} disabled={busy !== null} onClick={(event) => download('json', event)}>
          Download JSON
        </Button>
        <Button icon={<DownloadOutlined aria-hidden="true" />} loading={busy === 'csv'} disabled={busy !== null} onClick={(event) => download('csv', event)}>
          Download CSV
        </Button>
      </div>
    </Card>
  );
}
