import { Button, type ButtonProps } from 'antd';
import { useNavigate } from 'react-router-dom';

/** A button-styled link: a real <a href> (opens in a new tab, works without JS routing) that routes in-app. */
export function LinkButton({ to, onClick, ...props }: Omit<ButtonProps, 'href'> & { to: string }) {
  const navigate = useNavigate();
  return (
    <Button
      {...props}
      href={to}
      onClick={(event) => {
        onClick?.(event);
        if (event.defaultPrevented || event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
        event.preventDefault();
        navigate(to);
      }}
    />
  );
}
