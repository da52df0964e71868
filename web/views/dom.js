// Tiny helpers shared by the views: elements with a class and text (never HTML), and the
// skeleton of a view that redraws from scratch.

export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

// A view over root (appended to host) that empties and redraws it on every update, and
// hides it when given nothing to show: { update(data), destroy() }.
export function redrawingView(host, root, draw) {
  host.append(root);
  return {
    update(data) {
      root.textContent = '';
      root.hidden = !data;
      if (data) draw(data);
    },
    destroy() {
      root.remove();
    },
  };
}
