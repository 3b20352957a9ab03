// The table's patch frames (docs/protocol.md, "patch"): what changed since the state a
// connection holds, applied to it. A key "section.field" sets one field of a section
// (the table, the view, you); a key "section" replaces the whole section.

/** ``state`` with a patch's ``set`` applied: a new object (the sections that change are
 * copied; ``state`` is left as it was). */
export function applyPatch(state, changes) {
  const next = { ...state };
  const copied = new Set();
  for (const [path, value] of Object.entries(changes)) {
    const dot = path.indexOf(".");
    if (dot < 0) { next[path] = value; copied.add(path); continue; }
    const name = path.slice(0, dot);
    if (!copied.has(name)) { next[name] = { ...next[name] }; copied.add(name); }
    next[name][path.slice(dot + 1)] = value;
  }
  return next;
}

/** The state a ``patch`` frame leaves, as a ``state`` frame with the patch's events; null
 * when it does not follow ``state`` (a frame was missed: ask for the whole state). */
export function patched(state, msg) {
  if (!state || msg.base !== state.v) return null;
  return { ...applyPatch(state, msg.set), type: "state", protocol: msg.protocol, v: msg.v, full: false, events: msg.events };
}
