import { UploadOutlined } from '@ant-design/icons';
import { Alert, Button, Card, Typography, Upload } from 'antd';
import { useEffect, useRef } from 'react';
import { dropped } from '../lib/focus';
import { importFailureOf, importResultText, useImportRatings } from './api';

/**
 * "Import ratings": a JSON export of this or another Joy install, chosen with a file picker and read in the
 * browser, then posted; the answer says how many ratings were added and how many were here already.
 */
export function ImportRatingsCard() {
  const importRatings = useImportRatings();
  const failure = importRatings.isError ? importFailureOf(importRatings.error) : null;
  const picker = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  // The upload blurs the button that opens the file picker (so that the Enter choosing a file does not open it
  // again): once a file is chosen or the picker cancelled, the focus goes back to the button, not to the page.
  useEffect(() => {
    const wrapper = picker.current!;
    const back = () => {
      if (dropped()) button.current?.focus();
    };
    // Both bubble from the file input (which the upload replaces after each file).
    wrapper.addEventListener('change', back);
    wrapper.addEventListener('cancel', back);
    return () => {
      wrapper.removeEventListener('change', back);
      wrapper.removeEventListener('cancel', back);
    };
  }, []);
  return (
    <Card title={<h2 className="card-title">Import ratings</h2>}>
      <Typography.Paragraph className="account-data__text">
        Moving from another Joy? Choose the JSON file its &ldquo;Download JSON&rdquo; saved. Its ratings are added
        here at the times they were made; ratings already here are skipped, so importing a file twice adds
        nothing. Only ratings are imported, not groups or care actions.
      </Typography.Paragraph>
      <div className="account-data__actions" ref={picker}>
        <Upload
          accept=".json,application/json"
          showUploadList={false}
          maxCount={1}
          disabled={importRatings.isPending}
          beforeUpload={(file) => {
            importRatings.mutate(file);
            return false; // read here, never uploaded as a form
          }}
        >
          <Button ref={button} icon={<UploadOutlined aria-hidden="true" />} loading={importRatings.isPending}>
            Choose a JSON export
          </Button>
        </Upload>
      </div>
      {/* The one live region: the alerts in it are not alerts of their own (read once, not twice). */}
      <div aria-live="polite" className="account-import__result">
        {importRatings.isSuccess && <Alert role="none" type="success" showIcon title={importResultText(importRatings.data)} />}
        {failure && (
          <Alert
            role="none"
            type={failure.alert}
            showIcon
            title={failure.title}
            description={
              failure.more ? (
                <>
                  {failure.text}
                  <ul className="account-import__problems">
                    {failure.more.map((problem) => (
                      <li key={problem}>{problem}</li>
                    ))}
                  </ul>
                </>
              ) : (
                failure.text
              )
            }
          />
        )}
      </div>
    </Card>
  );
}
