import { UploadOutlined } from '@ant-design/icons';
import { Alert, Button, Card, Typography, Upload } from 'antd';
import { importFailureOf, importResultText, useImportRatings } from './api';

/**
 * "Import ratings": a JSON export of this or another Joy install, chosen with a file picker and read in the
 * browser, then posted; the answer says how many ratings were added and how many were here already.
 */
export function ImportRatingsCard() {
  const importRatings = useImportRatings();
  const failure = importRatings.isError ? importFailureOf(importRatings.error) : null;
  return (
    <Card title={<h2 className="card-title">Import ratings</h2>}>
      <Typography.Paragraph className="account-data__text">
        Moving from another Joy? Choose the JSON file its &ldquo;Download JSON&rdquo; saved. Its ratings are added
        here at the times they were made; ratings already here are skipped, so importing a file twice adds
        nothing. Only ratings are imported, not groups or care actions.
      </Typography.Paragraph>
      <div className="account-data__actions">
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
          <Button icon={<UploadOutlined aria-hidden="true" />} loading={importRatings.isPending}>
            Choose a JSON export
          </Button>
        </Upload>
      </div>
      <div aria-live="polite" className="account-import__result">
        {importRatings.isSuccess && <Alert type="success" showIcon title={importResultText(importRatings.data)} />}
        {failure && (
          <Alert
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
