import type { ThemeConfig } from 'antd';

/** Warm, friendly Ant Design theme. The primary colour keeps 4.5:1 contrast with white text. */
export const PRIMARY = '#c8501c';

/** Just under antd's dialogs, drawers and popups (zIndexPopupBase 1000), above the page's own sticky bars. */
export const TOAST_Z_INDEX = 999;

export const theme: ThemeConfig = {
  token: {
    colorPrimary: PRIMARY,
    colorInfo: PRIMARY,
    colorSuccess: '#15803d',
    colorWarning: '#b45309',
    colorError: '#b91c1c',
    colorLink: '#b4461a',
    colorText: '#2f241d',
    colorTextSecondary: '#6b5b50',
    // Secondary text (Typography type="secondary", Statistic titles): 4.5:1 on white, like colorTextSecondary.
    colorTextDescription: '#6b5b50',
    colorBgLayout: '#fff8f1',
    borderRadius: 12,
    fontFamily:
      "'Inter', system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, 'Noto Sans', sans-serif",
    fontSize: 15,
  },
  components: {
    Card: { borderRadiusLG: 16 },
    Button: { fontWeight: 600, primaryShadow: 'none' },
    // Toasts under the layer of dialogs (a modal's mask and box are at 1000; antd puts toasts at 2050): one up when a
    // dialog opens lay over its close button or its buttons for 5 s. Those that come while a dialog is open show in it
    // (components/DialogToasts.tsx).
    Notification: { zIndexPopup: TOAST_Z_INDEX },
    Message: { zIndexPopup: TOAST_Z_INDEX },
  },
};
