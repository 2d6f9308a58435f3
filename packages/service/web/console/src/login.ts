import './theme.css';

const form = document.querySelector<HTMLFormElement>('#login-form');
const error = document.querySelector<HTMLParagraphElement>('#login-error');

form?.addEventListener('submit', async (event) => {
  event.preventDefault();
  const tokenInput = document.querySelector<HTMLInputElement>('#token');
  const operatorInput = document.querySelector<HTMLInputElement>('#operator');
  const token = tokenInput?.value ?? '';
  const operator = operatorInput?.value.trim() || 'operator';
  // The token leaves the page once, in this body; the field is cleared whatever the answer.
  if (tokenInput) tokenInput.value = '';
  const response = await fetch('/console/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    credentials: 'same-origin',
    body: JSON.stringify({ token, operator }),
  });
  if (response.ok) {
    // Same document, new session: reload so the server answers the console page instead of this login page.
    history.replaceState(null, '', `/console/${window.location.hash || '#/overview'}`);
    window.location.reload();
    return;
  }
  if (error) {
    error.hidden = false;
    error.textContent = response.status === 401 ? 'Wrong admin token.' : `Login failed (${response.status}).`;
  }
});
