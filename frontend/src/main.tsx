import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import App from './App';
import { keepTabInDialogs } from './lib/focus';
import './styles.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
keepTabInDialogs();

if ('serviceWorker' in navigator) {
  window.addEventListener('load', () => {
    navigator.serviceWorker
      .register('/sw.js')
      .then((registration) => console.log('Service worker registered with scope:', registration.scope))
      .catch((error) => console.log('Service worker registration failed:', error));
  });
}
