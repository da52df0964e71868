// A narrow stepper shows its stage list below the stage (base.css): the Stages button in the
// stage bar opens that list as a sheet at the foot of the screen, over the stage, so that any
// stage is one tap away. Choosing a stage, Escape or the button again closes it, and the focus
// goes back to the button; a tap elsewhere closes it as well. The button shows only while the
// list is below the stage (navigation.css).
//   createStageDrawer(button, nav) → { close({ focus }), destroy() }

export function createStageDrawer(button, nav) {
  button.setAttribute('aria-expanded', 'false');
  button.setAttribute('aria-controls', nav.id);
  const isOpen = () => nav.classList.contains('is-drawer');
  const set = (open) => {
    nav.classList.toggle('is-drawer', open);
    button.setAttribute('aria-expanded', String(open));
  };
  const close = ({ focus = false } = {}) => {
    if (!isOpen()) return;
    set(false);
    if (focus) button.focus();
  };
  button.addEventListener('click', () => {
    if (isOpen()) return close({ focus: true });
    set(true);
    (nav.querySelector('[aria-current="step"]') ?? nav.querySelector('button'))?.focus();
  });
  // A tap anywhere else closes it too (the path crosses an element's shadow root).
  const listening = new AbortController();
  document.addEventListener(
    'pointerdown',
    (event) => {
      const path = event.composedPath();
      if (isOpen() && !path.includes(nav) && !path.includes(button)) close();
    },
    { signal: listening.signal },
  );
  nav.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || !isOpen()) return;
    event.preventDefault();
    close({ focus: true });
  });
  return { close, destroy: () => listening.abort() };
}
