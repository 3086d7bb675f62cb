// The dashboard's only script: progressive enhancement of server-rendered pages, which work without it.

// Destructive forms ask first.
document.addEventListener('submit', (event) => {
  const form = event.target;
  const question = form instanceof HTMLFormElement ? form.dataset.confirm : undefined;
  if (question && !window.confirm(question)) event.preventDefault();
});

// Values shown once get a copy button.
for (const button of document.querySelectorAll('button[data-copy]')) {
  button.hidden = false;
  button.addEventListener('click', async () => {
    const source = document.getElementById(button.dataset.copy);
    if (!source) return;
    await navigator.clipboard.writeText(source.textContent.trim());
    button.textContent = 'Copied';
  });
}

// A form's problem takes the focus, so keyboard and screen-reader users land on it.
document.querySelector('[data-autofocus]')?.focus();

// A region marked data-refresh reloads itself while the server keeps marking it (a pending
// delivery), less and less often, at most every 30 s.
for (const region of document.querySelectorAll('[data-refresh]')) {
  let delay = Number(region.dataset.refresh);
  const refresh = async () => {
    const response = await fetch(window.location.href, { headers: { Accept: 'text/html' } });
    if (!response.ok) return;
    const fresh = new DOMParser().parseFromString(await response.text(), 'text/html').getElementById(region.id);
    if (!fresh) return;
    region.innerHTML = fresh.innerHTML;
    if (!fresh.dataset.refresh) {
      delete region.dataset.refresh;
      return;
    }
    delay = Math.min(delay * 1.5, 30000);
    setTimeout(refresh, delay);
  };
  setTimeout(refresh, delay);
}
