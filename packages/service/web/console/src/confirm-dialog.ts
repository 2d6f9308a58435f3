/** The one confirmation dialog of the console (a native <dialog>), built on first use. */

let dialog: HTMLDialogElement | null = null;

function build(): HTMLDialogElement {
  const element = document.createElement('dialog');
  element.id = 'confirm-dialog';
  element.innerHTML = `<h2 data-role="title"></h2><p data-role="message"></p>
    <div class="actions"><button class="secondary" data-role="cancel">Cancel</button>
    <button class="danger" data-role="confirm" data-testid="confirm">Confirm</button></div>`;
  document.body.append(element);
  return element;
}

/** Opens the dialog with `title` and `message`; resolves `true` on Confirm, `false` on Cancel or Escape. */
export function confirmDialog(title: string, message: string): Promise<boolean> {
  dialog ??= build();
  const d = dialog;
  const titleNode = d.querySelector('[data-role="title"]');
  const messageNode = d.querySelector('[data-role="message"]');
  if (titleNode) titleNode.textContent = title;
  if (messageNode) messageNode.textContent = message;
  return new Promise((resolve) => {
    const confirm = d.querySelector<HTMLButtonElement>('[data-role="confirm"]');
    const cancel = d.querySelector<HTMLButtonElement>('[data-role="cancel"]');
    const done = (value: boolean) => {
      confirm?.removeEventListener('click', onConfirm);
      cancel?.removeEventListener('click', onCancel);
      d.removeEventListener('cancel', onCancel);
      if (d.open) d.close();
      resolve(value);
    };
    const onConfirm = () => done(true);
    const onCancel = () => done(false);
    confirm?.addEventListener('click', onConfirm, { once: true });
    cancel?.addEventListener('click', onCancel, { once: true });
    d.addEventListener('cancel', onCancel, { once: true });
    d.showModal();
  });
}
